/**
 * Requests a 2025-era server sends (elicitation, sampling, roots, ping),
 * answered with the same handlers the client uses for MRTR input rounds.
 */

import { McpError, ErrorCode } from '../protocol/errors.js';
import { INPUT_REQUEST_METHODS, isInputRequest } from '../protocol/input-requests.js';
import { errorResponse, resultResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { InputMethod, LegacyMethod } from '../protocol/methods.js';
import type { Implementation, InputRequest, Result } from '../protocol/types.js';
import { samplingHandlerOf, type InputContext, type InputHandlers } from './handlers.js';

export async function answerServerRequest(
  request: JsonRpcRequest,
  handlers: InputHandlers,
  server: Implementation | undefined,
): Promise<JsonRpcResponse> {
  const params = request.params ?? {};
  const context: InputContext = {
    key: String(request.id),
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
    const answer = await answerWith(handlers, asked, context);
    return answer ? resultResponse(request.id, answer) : errorResponse(request.id, McpError.methodNotFound(request.method));
  } catch (error) {
    return errorResponse(request.id, error instanceof McpError ? error : new McpError(ErrorCode.InternalError, (error as Error).message));
  }
}

/** The handler's answer, or undefined when no handler takes this kind of request. */
async function answerWith(handlers: InputHandlers, asked: InputRequest, context: InputContext): Promise<Result | undefined> {
  switch (asked.method) {
    case InputMethod.Elicit: {
      const params = asked.params;
      if (params.mode === 'url') return handlers.elicitation?.url?.(params, context);
      return handlers.elicitation?.form?.({ ...params, mode: 'form' }, context);
    }
    case InputMethod.CreateMessage:
      return samplingHandlerOf(handlers)?.(asked.params, context);
    case InputMethod.ListRoots: {
      const roots = handlers.roots;
      if (!roots) return undefined;
      return { roots: typeof roots === 'function' ? await roots(context) : roots };
    }
  }
}
