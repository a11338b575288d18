/**
 * Requests a 2025-era server sends (elicitation, sampling, roots, ping),
 * answered with the same handlers the client uses for MRTR input rounds. An
 * answer that fails its checks (a form value that does not fit, a root that
 * is not a file:// URI) goes back as an error, never as the answer.
 */

import { McpError, ErrorCode } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import { INPUT_REQUEST_METHODS, isInputRequest } from '../protocol/input-requests.js';
import { errorResponse, resultResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { META_INPUT_KEY } from '../protocol/meta.js';
import { LegacyMethod } from '../protocol/methods.js';
import type { Implementation } from '../protocol/types.js';
import type { InputContext, InputHandlers } from './handlers.js';
import { answerInput } from './input-answers.js';

export async function answerServerRequest(
  request: JsonRpcRequest,
  handlers: InputHandlers,
  server: Implementation | undefined,
): Promise<JsonRpcResponse> {
  const params = request.params ?? {};
  // A Tessera server names the question (the key it would have at 2026-07-28); others only have the request id.
  const named = isObject(params._meta) ? params._meta[META_INPUT_KEY] : undefined;
  const context: InputContext = {
    key: typeof named === 'string' && named !== '' ? named : String(request.id),
    method: request.method,
    params,
    round: 0,
    era: 'legacy',
    server,
    signal: new AbortController().signal,
  };
  if (request.method === LegacyMethod.Ping) return resultResponse(request.id, {});
  if (!INPUT_REQUEST_METHODS.has(request.method)) return errorResponse(request.id, McpError.methodNotFound(request.method));
  const asked = { method: request.method, params };
  if (!isInputRequest(asked)) return errorResponse(request.id, McpError.invalidParams(`Invalid params: ${request.method} without its params`));
  try {
    const answer = await answerInput(handlers, asked, context);
    return answer ? resultResponse(request.id, answer) : errorResponse(request.id, McpError.methodNotFound(request.method));
  } catch (error) {
    // What went wrong here (a file, a path, a person) stays here: the server learns only that no answer came.
    return errorResponse(request.id, error instanceof McpError ? error : new McpError(ErrorCode.InternalError, 'The client could not answer this request'));
  }
}
