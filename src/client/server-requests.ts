/**
 * Requests a 2025-era server sends (elicitation, sampling, roots, ping),
 * answered with the same handlers the client uses for MRTR input rounds.
 */

import { McpError, ErrorCode } from '../protocol/errors.js';
import { errorResponse, resultResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { CreateMessageRequestParams, ElicitRequestFormParams, ElicitRequestUrlParams, Implementation } from '../protocol/types.js';
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
  try {
    switch (request.method) {
      case 'ping':
        return resultResponse(request.id, {});
      case 'elicitation/create': {
        const url = params.mode === 'url';
        const handler = url ? handlers.elicitation?.url : handlers.elicitation?.form;
        if (!handler) break;
        const result = url
          ? await handlers.elicitation!.url!(params as unknown as ElicitRequestUrlParams, context)
          : await handlers.elicitation!.form!({ ...(params as unknown as ElicitRequestFormParams), mode: 'form' }, context);
        return resultResponse(request.id, result as unknown as Record<string, unknown>);
      }
      case 'sampling/createMessage': {
        const handler = samplingHandlerOf(handlers);
        if (!handler) break;
        return resultResponse(request.id, (await handler(params as unknown as CreateMessageRequestParams, context)) as unknown as Record<string, unknown>);
      }
      case 'roots/list': {
        const roots = handlers.roots;
        if (!roots) break;
        return resultResponse(request.id, { roots: typeof roots === 'function' ? await roots(context) : roots });
      }
    }
    return errorResponse(request.id, McpError.methodNotFound(request.method));
  } catch (error) {
    return errorResponse(request.id, error instanceof McpError ? error : new McpError(ErrorCode.InternalError, (error as Error).message));
  }
}
