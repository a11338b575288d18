/**
 * One request as the gates admitted it: its `_meta`, its params checked into
 * the shape its method reads (method-params.ts), and what was registered for
 * its target — the tool of a `tools/call`, the prompt of a `prompts/get`, the
 * resource or template match of a `resources/read` — looked up once. Every
 * later step (the extensions' admission, opening state, holding
 * notifications, the handler) reads it here instead of looking again.
 */

import type { AskKind } from '../protocol/capabilities.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { CoreMethod } from '../protocol/method-types.js';
import type { RoundRequest } from '../mrtr/input-rounds.js';
import type { CheckedParams } from './method-params.js';
import type { RegisteredPrompt } from './prompts.js';
import type { RequestMeta } from './request-meta.js';
import type { ResourceTarget } from './resources.js';
import type { RegisteredTool } from './tools.js';

/** Params no checker typed: those of a method an extension adds (it checks its own). */
export type UncheckedParams = Readonly<Record<string, unknown>>;

export interface Operation<P extends object = UncheckedParams> {
  readonly request: JsonRpcRequest;
  readonly params: P;
  readonly meta: RequestMeta;
  /** The registered tool a `tools/call` names (hidden or not: the call decides); undefined for an unknown tool or another method. */
  readonly tool?: RegisteredTool | undefined;
  /** The registered prompt a `prompts/get` names. */
  readonly prompt?: RegisteredPrompt | undefined;
  /** What serves the URI a `resources/read` names. */
  readonly resource?: ResourceTarget | undefined;
  /** The kinds of question its handler declared it may ask (`asks`), as registered for the target. */
  readonly asks?: readonly AskKind[] | undefined;
  /** For the three methods that may ask: what the open step reads (the target, arguments and the retry's state). */
  readonly round?: RoundRequest | undefined;
}

/** The operation of a core method, its params typed as that method's. */
export type OperationOf<M extends CoreMethod> = Operation<CheckedParams<M>>;
