/** What a handler sees of its request: who asked, with which capabilities, and how to report back. */

import type { RequestChannel } from '../protocol/channel.js';
import { notification } from '../protocol/jsonrpc.js';
import { Notification } from '../protocol/methods.js';
import {
  LOGGING_LEVELS,
  type ClientCapabilities,
  type Implementation,
  type LoggingLevel,
  type RequestId,
} from '../protocol/types.js';
import type { RequestMeta } from './request-meta.js';

export interface ProgressUpdate {
  total?: number;
  message?: string;
}

export interface RequestContext {
  readonly method: string;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  /** The capabilities the client declared on this request (never inferred from earlier ones). */
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** The authenticated caller, or undefined when anonymous. */
  readonly principal: string | undefined;
  /** Aborted when the client cancels or disconnects. */
  readonly signal: AbortSignal;
  /** The request's whole `_meta`. */
  readonly meta: Readonly<Record<string, unknown>>;
  /**
   * Reports progress when the client asked for it (a `progressToken`); otherwise
   * does nothing. Values that do not increase are dropped, as the spec requires.
   */
  progress(progress: number, update?: ProgressUpdate): void;
  /**
   * Sends a log message when the request opted in with `logLevel` at or below
   * `level`; otherwise does nothing. (Logging is deprecated in 2026-07-28; prefer
   * stderr or OpenTelemetry for new work.)
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
}

/** The server-side implementation of RequestContext; `finish()` stops notifications once the response is out. */
export class RequestExchange implements RequestContext {
  readonly method: string;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly principal: string | undefined;
  readonly signal: AbortSignal;
  readonly meta: Readonly<Record<string, unknown>>;

  private readonly channel: RequestChannel;
  private readonly requestMeta: RequestMeta;
  private readonly loggingEnabled: boolean;
  private lastProgress = -Infinity;
  private finished = false;

  constructor(method: string, requestId: RequestId, meta: RequestMeta, channel: RequestChannel, loggingEnabled: boolean) {
    this.method = method;
    this.requestId = requestId;
    this.protocolVersion = meta.protocolVersion;
    this.clientCapabilities = meta.clientCapabilities;
    this.clientInfo = meta.clientInfo;
    this.principal = channel.principal;
    this.signal = channel.signal;
    this.meta = meta.raw;
    this.channel = channel;
    this.requestMeta = meta;
    this.loggingEnabled = loggingEnabled;
  }

  progress(progress: number, update?: ProgressUpdate): void {
    const token = this.requestMeta.progressToken;
    if (token === undefined || this.finished || !this.channel.canNotify) return;
    if (!Number.isFinite(progress) || progress <= this.lastProgress) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (update?.total !== undefined) params.total = update.total;
    if (update?.message !== undefined) params.message = update.message;
    this.channel.notify(notification(Notification.Progress, params));
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.requestMeta.logLevel;
    if (!this.loggingEnabled || threshold === undefined || this.finished || !this.channel.canNotify) return;
    if (LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(threshold)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.channel.notify(notification(Notification.Message, params));
  }

  /** Called once the response is decided: nothing more may be sent for this request. */
  finish(): void {
    this.finished = true;
  }
}
