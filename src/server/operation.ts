/**
 * One request as the gates admitted it: its `_meta`, and what was
 * registered for its target (the tool of a `tools/call`), looked up once. Every
 * later step (the extensions' admission, opening state, holding notifications,
 * the tool call itself) reads it here instead of looking the target up again.
 */

import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { RequestMeta } from './request-meta.js';
import type { RegisteredTool } from './tools.js';

export interface Operation {
  readonly request: JsonRpcRequest;
  readonly meta: RequestMeta;
  /** The registered tool a `tools/call` names (hidden or not: the call decides); undefined for an unknown tool or another method. */
  readonly tool: RegisteredTool | undefined;
}
