/**
 * The structured request log: one entry per request, written once its reply
 * is ready. It says what was called and how it ended — never what was sent
 * or answered, unless the app asks for those (`include`), since arguments,
 * answers and results may hold personal data.
 */

import type { StateRejection } from '../mrtr/sealed-state.js';
import type { RequestId } from '../protocol/types.js';

export interface RequestLogEntry {
  /** When the request arrived (ISO 8601). */
  time: string;
  requestId: RequestId;
  method: string;
  /** The tool or prompt name, or the resource URI, when the method names one. */
  name?: string;
  /** `modern` (2026-07-28) or `legacy` (a 2025-11-25 session or handshake). */
  era: 'modern' | 'legacy';
  /** The protocol version the request declared (2026-07-28 requests, and 2025 ones over HTTP). */
  protocolVersion?: string;
  /** How it ended: its resultType, or `error`. */
  status: 'complete' | 'input_required' | 'task' | 'error';
  /** The JSON-RPC error code, when status is `error`. */
  errorCode?: number;
  /** A tool result with `isError: true` (status `complete`). */
  toolError?: true;
  /** From the request's arrival to its reply, in milliseconds. */
  durationMs: number;
  /** The multi round-trip call this request is a round of (every round carries the same id). */
  flowId?: string;
  /** Which round of the flow (1 for the first request). */
  round?: number;
  /** Who called, as the transport established it; absent when anonymous. */
  principal?: string;
  /** Bytes of the requestState this round sealed (status `input_required`). */
  stateBytes?: number;
  /** Why the request's requestState was refused (the client only ever sees one fixed error). */
  rejectedState?: StateRejection;
  /** The `ctx.once` steps that ran in this round. */
  onceSteps?: string[];
  /** `include: ['arguments']`: the request's `arguments`. */
  arguments?: unknown;
  /** `include: ['answers']`: the request's `inputResponses`. */
  answers?: unknown;
  /** `include: ['result']`: the result, or the error object, as sent. */
  result?: unknown;
}

/** What an entry may carry beyond the facts, when the app asks. */
export type RequestLogDetail = 'arguments' | 'answers' | 'result';

export interface RequestLog {
  /** Called once per request, after its reply is made. A throw is reported to the server's logger and otherwise ignored. */
  write(entry: RequestLogEntry): void;
  /** Payloads to add to each entry (default none). */
  include?: readonly RequestLogDetail[];
}
