/**
 * Sends one request and returns its result: the envelope around it, the
 * transport, the server's JSON-RPC error as McpError, and the recoveries the
 * spec allows once — another version on -32022, a new 2025 session when the
 * server no longer knows ours, and learning the tools when mirrored headers
 * came from a schema this client had not seen.
 */

import { context as contexts, type Context } from '@opentelemetry/api';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { isImplementation, isObject } from '../protocol/guards.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import { META_SERVER_INFO, TASKS_EXTENSION } from '../protocol/meta.js';
import { LegacyMethod, Method, Notification, TaskMethod } from '../protocol/methods.js';
import type { CallerParams, ClientMethod, ResultByMethod } from '../protocol/method-types.js';
import type { ClientCapabilities, Implementation, LoggingLevel, Result, ServerCapabilities } from '../protocol/types.js';
import { LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { ClientTelemetry } from '../telemetry/client-telemetry.js';
import { TelemetrySource, type TelemetryOptions } from '../telemetry/telemetry-options.js';
import { Deadline } from './deadline.js';
import { RequestEnvelope, type Era } from './envelope.js';
import { ClientError, ProtocolViolationError, RequestTimeoutError, TransportError } from './errors.js';
import { declaresTasks, readResult } from './result-checks.js';
import type { TaskObserver } from './task-observer.js';
import type { ClientTransport } from './transport.js';

export interface RequestOptions {
  signal?: AbortSignal;
  /** Progress notifications for this request (a progress token is added). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Log level for this request (overrides the client's). */
  logLevel?: LoggingLevel;
  /** Per-request timeout in ms (overrides the client's), for every attempt together. */
  timeoutMs?: number;
  /** Task status changes of this call, when the server answers it with a task (see `ClientOptions.onTask`). */
  onTask?: TaskObserver;
}

export interface RequesterOptions {
  protocolVersion?: string;
  /** Spans and metrics (docs/observability.md): the global providers by default, `false` for none. */
  telemetry?: TelemetryOptions | false;
  logLevel?: LoggingLevel;
  requestTimeoutMs?: number;
}

/** What the input loop says of a request that is a round of a call: the call's span context (the parent), and which round. */
export interface FlowStep {
  parent: Context;
  round: number;
}

export class Requester {
  readonly envelope: RequestEnvelope;
  transport: ClientTransport | undefined;
  era: Era = 'modern';
  version: string;
  /** The server's self-reported identity, from the last result (or initialize) that carried it. */
  serverInfo: Implementation | undefined;
  /** Starts a new 2025 session when the server no longer knows ours (set by the era negotiation). */
  reinitialize: ((version: string) => Promise<void>) | undefined;
  /** What a 2025-era server declared in its initialize result. */
  serverCapabilities: ServerCapabilities | undefined;
  /** Notifications on a request's stream that are not its progress (set by the client). */
  overheard: ((notification: JsonRpcNotification) => void) | undefined;
  /** The log level the 2025 session was last set to (logging/setLevel). */
  private sessionLogLevel: LoggingLevel | undefined;
  /** The capabilities plus the Tasks extension: what `tasks/*` requests declare, whatever the client otherwise does. */
  private readonly withTasks: ClientCapabilities;
  /** The capabilities a 2025-era request stands on: extensions do not exist there. */
  private readonly legacyCapabilities: ClientCapabilities;
  /** Spans and metrics; undefined when turned off. */
  readonly telemetry: ClientTelemetry | undefined;

  constructor(
    info: Implementation,
    readonly capabilities: ClientCapabilities,
    private readonly options: RequesterOptions,
    /** Learns the tools (to send their mirrored headers), on a -32020 for a tool whose schema this client has not seen. */
    private readonly learnTools: (options: RequestOptions) => Promise<unknown>,
  ) {
    this.envelope = new RequestEnvelope(info);
    this.version = options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    this.withTasks = declaresTasks(capabilities) ? capabilities : { ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION]: {} } };
    const { extensions: _extensions, ...legacy } = capabilities;
    this.legacyCapabilities = legacy;
    this.telemetry = options.telemetry === false ? undefined : new ClientTelemetry(new TelemetrySource(options.telemetry));
  }

  /**
   * What a request declares: the client's capabilities; with the Tasks
   * extension for `tasks/*` and a listen for task ids (the extension
   * requires it there); no extensions at all in the 2025 era.
   */
  declaredFor(method: string, params: Record<string, unknown> = {}): ClientCapabilities {
    if (this.era === 'legacy') return this.legacyCapabilities;
    const taskMethod = method === TaskMethod.Get || method === TaskMethod.Update || method === TaskMethod.Cancel;
    const taskListen = method === Method.SubscriptionsListen && isObject(params.notifications) && params.notifications.taskIds !== undefined;
    return taskMethod || taskListen ? this.withTasks : this.capabilities;
  }

  get connected(): ClientTransport {
    if (!this.transport) throw new ClientError('Not connected: call connect() first');
    return this.transport;
  }

  /**
   * Sends one request and returns its result (whatever its resultType).
   * JSON-RPC errors throw McpError with the server's code and data.
   */
  request<M extends ClientMethod>(method: M, params?: CallerParams<M>, options?: RequestOptions): Promise<ResultByMethod[M]>;
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions, flow?: FlowStep): Promise<Result>;
  async request(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}, flow?: FlowStep): Promise<Result> {
    const transport = this.connected;
    // One limit for the request and whatever it takes to recover it (another version, a new session, learning the tools).
    const deadline = new Deadline(options.timeoutMs ?? this.options.requestTimeoutMs ?? 60_000);
    if (this.era === 'legacy' && method !== LegacyMethod.Initialize && method !== LegacyMethod.SetLogLevel) {
      await this.useLogLevel(options.logLevel ?? this.options.logLevel, { signal: options.signal, timeoutMs: deadline.remaining() });
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.send(transport, method, params, options, deadline, flow);
        // An unknown resultType, input_required or a task where the spec forbids it, is never handed on.
        readResult(method, result, this.declaredFor(method, params));
        return result;
      } catch (error) {
        if (attempt > 0) throw error;
        // A 2025 session the server no longer knows (ended, or another instance): start a new one (2025 rule).
        if (error instanceof TransportError && error.status === 404 && this.era === 'legacy' && method !== LegacyMethod.Initialize && this.reinitialize) {
          transport.endSession?.();
          await this.reinitialize(this.version);
          continue;
        }
        if (!(error instanceof McpError)) throw error;
        if (error.code === ErrorCode.UnsupportedProtocolVersion && this.era === 'modern' && this.renegotiate(error)) continue;
        // Headers mirrored from a schema we did not know yet: learn the tools, then retry once.
        if (error.code === ErrorCode.HeaderMismatch && method === Method.ToolsCall && transport.kind === 'http' && !this.envelope.knowsTool(String(params.name))) {
          await this.learnTools({ signal: options.signal });
          continue;
        }
        throw error;
      }
    }
  }

  /**
   * 2025-11-25 has no per-request log level: the session has one, set with
   * `logging/setLevel`. A request's level (or the client's) becomes the
   * session's when it differs from the last one set, and stays for the
   * requests after it (the session has only the one). A server without the
   * `logging` capability sends no logs, so nothing is set there.
   */
  async useLogLevel(level: LoggingLevel | undefined, options: RequestOptions = {}): Promise<void> {
    if (level === undefined || level === this.sessionLogLevel || this.serverCapabilities?.logging === undefined) return;
    await this.request(LegacyMethod.SetLogLevel, { level }, options);
    this.sessionLogLevel = level;
  }

  /** A new 2025 session: what its server declared, and no log level set yet. */
  beginSession(capabilities: ServerCapabilities | undefined): void {
    this.serverCapabilities = capabilities;
    this.sessionLogLevel = undefined;
  }

  /**
   * Picks a version from a -32022 error's `supported` list (the latest this
   * client speaks, even the one just sent: the request is then simply retried);
   * false when it lists none this client speaks.
   */
  private renegotiate(error: McpError): boolean {
    const supported = isObject(error.data) && Array.isArray(error.data.supported) ? error.data.supported : [];
    const choice = MODERN_PROTOCOL_VERSIONS.find((v) => supported.includes(v));
    if (!choice) return false;
    this.version = choice;
    return true;
  }

  /** The message a request travels as (also for requests whose response the caller reads itself, like listen). */
  message(method: string, params: Record<string, unknown>, options: RequestOptions, progressToken?: string, traceMeta?: Record<string, string>): JsonRpcRequest {
    const declared = this.declaredFor(method, params);
    const made = this.envelope.meta(this.era, this.version, declared, options.logLevel ?? this.options.logLevel, progressToken, params._meta);
    // The trace context of this request's span (traceparent…), over any the caller put in params._meta.
    const meta = traceMeta ? { ...made, ...traceMeta } : made;
    return { jsonrpc: '2.0', id: this.envelope.id(), method, params: meta === undefined ? { ...params } : { ...params, _meta: meta } };
  }

  /** The request-metadata headers, on HTTP 2026-07-28 requests (2025-era requests carry the session's, which the transport adds). */
  headersFor(transport: ClientTransport, message: JsonRpcRequest): Record<string, string> | undefined {
    return transport.kind === 'http' && this.era === 'modern' ? this.envelope.headers(this.version, message.method, message.params ?? {}) : undefined;
  }

  private async send(transport: ClientTransport, method: string, params: Record<string, unknown>, options: RequestOptions, deadline: Deadline, flow: FlowStep | undefined): Promise<Result> {
    const left = deadline.remaining();
    if (left === 0) throw new RequestTimeoutError(`${method} got no response within ${deadline.totalMs} ms`);
    const token = options.onProgress ? this.envelope.progressToken() : undefined;
    const span = this.telemetry?.request(method, params, flow?.parent ?? contexts.active(), flow?.round);
    const message = this.message(method, params, options, token, span?.traceMeta());
    const version = this.era === 'modern' ? this.version : undefined;
    span?.sent(message, transport.kind, version);
    let response;
    try {
      response = await transport.request(message, {
        signal: options.signal,
        timeoutMs: left,
        headers: this.headersFor(transport, message),
        onNotification: (note) => this.notified(note, options, token),
        onLateResponse: (late) => this.cancelLateTask(transport, method, late),
      });
    } catch (failure) {
      span?.end({ failure }, version);
      throw failure;
    }
    span?.end({ response }, version);
    if ('error' in response) {
      const e = response.error;
      throw new McpError(typeof e?.code === 'number' ? e.code : ErrorCode.InternalError, String(e?.message ?? 'Unknown error'), e?.data);
    }
    const result = response.result;
    if (!isObject(result)) throw new ProtocolViolationError(`The server answered ${method} without a result object`, response);
    const resultMeta = result._meta;
    if (isObject(resultMeta) && isImplementation(resultMeta[META_SERVER_INFO])) this.serverInfo = resultMeta[META_SERVER_INFO];
    return result;
  }

  /**
   * A task the server made for a request this client had already given up
   * on: nobody will poll it, so it is cancelled (a task is stopped only with
   * tasks/cancel, never by notifications/cancelled — Tasks extension).
   */
  private cancelLateTask(transport: ClientTransport, method: string, late: JsonRpcResponse): void {
    if (method !== Method.ToolsCall || !('result' in late) || !isObject(late.result) || late.result.resultType !== 'task') return;
    const taskId = late.result.taskId;
    if (typeof taskId !== 'string' || transport !== this.transport) return;
    this.request(TaskMethod.Cancel, { taskId }).catch(() => undefined);
  }

  /** A notification on this request's stream: its own progress, else whatever the client makes of it (logs, a 2025 server's cancellations and changes). */
  private notified(note: JsonRpcNotification, options: RequestOptions, token: string | undefined): void {
    const params = note.params ?? {};
    if (note.method === Notification.Progress) {
      if (token !== undefined && params.progressToken === token) options.onProgress?.(params as { progress: number; total?: number; message?: string });
    } else this.overheard?.(note);
  }
}
