/**
 * Errors the client raises itself. They carry no JSON-RPC code, so they cannot
 * be mistaken for an error the server sent (those arrive as `McpError`).
 * Whatever went wrong underneath (a network reset, a JSON syntax error) is
 * kept as the `cause`, never thrown raw.
 */

import type { TaskStatusName } from '../protocol/method-types.js';

export class ClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ClientError';
  }
}

/** The server answered something the protocol does not allow (an unknown resultType, a malformed input request…). */
export class ProtocolViolationError extends ClientError {
  constructor(
    message: string,
    readonly response?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProtocolViolationError';
  }
}

/** The transport failed: connection refused, a non-MCP HTTP reply, a stream that broke, a process that exited. */
export class TransportError extends ClientError {
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportError';
  }
}

/** A reply (a JSON body, an SSE line or event) grew past `maxResponseBytes`; the client stopped reading it. */
export class ResponseTooLargeError extends TransportError {
  constructor(
    message: string,
    /** The limit that was hit, in bytes (characters for SSE text). */
    readonly limit: number,
  ) {
    super(message);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * The server kept answering 503 or 429 with `Retry-After`, and the client
 * stopped trying (`busyRetry.maxAttempts`, `busyRetry.maxTotalWaitMs`, or
 * the request's own time limit): `status`, how many `attempts` were sent, and
 * the last `Retry-After` (as sent, and in ms). The server ran none of them.
 */
export class ServerBusyError extends TransportError {
  constructor(
    message: string,
    status: number,
    body: string | undefined,
    readonly attempts: number,
    readonly retryAfter: string,
    readonly retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super(message, status, body, options);
    this.name = 'ServerBusyError';
  }
}

/** A request ran out of time (`requestTimeoutMs`, or the request's own `timeoutMs`), across every attempt. */
export class RequestTimeoutError extends ClientError {
  constructor(message: string) {
    super(message);
    this.name = 'RequestTimeoutError';
  }
}

/** Why a multi-round flow stopped short of its result. */
export type InputFlowStop = 'rounds' | 'stopped' | 'timeout' | 'invalid-answer' | 'no-handler';

/**
 * A multi-round flow (or a task's questions) could not go on: the round limit,
 * `onRound` returning false, `flowTimeoutMs`, a question no handler answers,
 * or an answer from the app that does not fit the question (`field` names
 * the form field at fault).
 */
export class InputFlowError extends ClientError {
  readonly reason: InputFlowStop;
  /** The `inputRequests` key whose answer was at fault (`invalid-answer`). */
  readonly key: string | undefined;
  /** The form field whose value was at fault (`invalid-answer` of a form). */
  readonly field: string | undefined;

  constructor(
    message: string,
    readonly rounds: number,
    details: { reason?: InputFlowStop; key?: string; field?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'InputFlowError';
    this.reason = details.reason ?? 'rounds';
    this.key = details.key;
    this.field = details.field;
  }
}

/** Why a task ended without its result. */
export type TaskStop = 'cancelled' | 'expired' | 'timeout' | 'stopped';

/**
 * A task the client was following ended without a result: the server
 * cancelled it, it expired (or the server forgot it), the client's
 * `tasks.timeoutMs` ran out, or `onTask` returned false. A task that failed
 * with a JSON-RPC error throws that error as `McpError`, as the call would have.
 */
export class TaskError extends ClientError {
  constructor(
    message: string,
    readonly taskId: string,
    readonly reason: TaskStop,
    /** The last status the client saw. */
    readonly status: TaskStatusName | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TaskError';
  }
}

/**
 * A 2025-era server withdrew a request it had sent (`notifications/cancelled`,
 * e.g. its own timeout ran out): the handler's `context.signal` aborts with
 * this, and the request gets no answer (2025-11-25 cancellation).
 */
export class ServerCancelledError extends ClientError {
  constructor(
    /** The request the server withdrew (`sampling/createMessage`…). */
    readonly method: string,
    /** The reason the server gave, if any. */
    readonly reason: string | undefined,
  ) {
    super(`The server withdrew its ${method} request${reason ? `: ${reason}` : ''}`);
    this.name = 'ServerCancelledError';
  }
}
