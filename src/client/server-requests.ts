/**
 * Requests a 2025-era server sends (elicitation, sampling, roots, ping),
 * answered with the same handlers the client uses for MRTR input rounds. An
 * answer that fails its checks (a form value that does not fit, a root that
 * is not a file:// URI) goes back as an error, never as the answer. The
 * server may withdraw a request (`notifications/cancelled`): its handler's
 * signal aborts and nothing is sent back (2025-11-25 cancellation).
 */

import { McpError, ErrorCode } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import { INPUT_REQUEST_METHODS, isInputRequest } from '../protocol/input-requests.js';
import { errorResponse, resultResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { META_INPUT_KEY } from '../protocol/meta.js';
import { LegacyMethod } from '../protocol/methods.js';
import type { Implementation, RequestId } from '../protocol/types.js';
import { ServerCancelledError } from './errors.js';
import type { InputContext, InputHandlers } from './handlers.js';
import { answerInput } from './input-answers.js';

/** The `_meta` key a 2025-11-25 server puts on the requests a task of its own sends. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

export async function answerServerRequest(
  request: JsonRpcRequest,
  handlers: InputHandlers,
  server: Implementation | undefined,
  signal: AbortSignal = new AbortController().signal,
): Promise<JsonRpcResponse> {
  const params = request.params ?? {};
  const related = isObject(params._meta) && isObject(params._meta[RELATED_TASK]) ? params._meta[RELATED_TASK].taskId : undefined;
  // A Tessera server names the question (the key it would have at 2026-07-28); others only have the request id.
  const named = isObject(params._meta) ? params._meta[META_INPUT_KEY] : undefined;
  const context: InputContext = {
    key: typeof named === 'string' && named !== '' ? named : String(request.id),
    method: request.method,
    params,
    round: 0,
    era: 'legacy',
    server,
    signal,
    ...(typeof related === 'string' ? { taskId: related } : {}),
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

/** The requests of a 2025-era server being answered now, so that the server can withdraw them. */
export class ServerRequests {
  private readonly inFlight = new Map<RequestId, { method: string; controller: AbortController }>();

  /** The answer to send back; undefined when the server withdrew the request meanwhile (it gets none). */
  async answer(request: JsonRpcRequest, handlers: InputHandlers, server: Implementation | undefined): Promise<JsonRpcResponse | undefined> {
    const controller = new AbortController();
    const entry = { method: request.method, controller };
    this.inFlight.set(request.id, entry);
    try {
      const response = await answerServerRequest(request, handlers, server, controller.signal);
      return controller.signal.aborted ? undefined : response;
    } finally {
      if (this.inFlight.get(request.id) === entry) this.inFlight.delete(request.id);
    }
  }

  /** `notifications/cancelled` from the server: the handler's signal aborts (an unknown or finished id is ignored, as the spec asks). */
  cancel(params: Record<string, unknown> | undefined): void {
    const id = params?.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const entry = this.inFlight.get(id);
    if (!entry) return;
    this.inFlight.delete(id);
    entry.controller.abort(new ServerCancelledError(entry.method, typeof params?.reason === 'string' ? params.reason : undefined));
  }

  /** The connection is gone: every handler still running is told so. */
  abandonAll(reason: unknown): void {
    for (const { controller } of this.inFlight.values()) controller.abort(reason);
    this.inFlight.clear();
  }
}
