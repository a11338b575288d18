/**
 * A 2025-11-25 session: what `initialize` negotiated (version, client
 * capabilities), the log level and resource subscriptions the client set, and
 * the server-initiated requests waiting for the client's answer. An HTTP
 * session lives in this instance's memory; a stdio session is its connection.
 */

import { McpError } from '../protocol/errors.js';
import type { Connection, StreamSink } from '../protocol/channel.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, Implementation, LoggingLevel, RequestId } from '../protocol/types.js';

interface Waiting {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
}

export class LegacySession {
  initialized = false;
  logLevel: LoggingLevel | undefined;
  readonly subscriptions = new Set<string>();
  lastActivity = Date.now();
  /** Requests of this session being handled, to cancel them on `notifications/cancelled`. */
  readonly inFlight = new Map<RequestId, AbortController>();
  /** The standalone GET stream (HTTP) for messages that belong to no request. */
  stream: StreamSink | undefined;
  private readonly waiting = new Map<RequestId, Waiting>();
  private nextId = 1;

  constructor(
    readonly id: string,
    readonly protocolVersion: string,
    readonly clientCapabilities: ClientCapabilities,
    readonly clientInfo: Implementation | undefined,
    /** The stdio (or in-memory) connection this session is; undefined on HTTP. */
    readonly connection: Connection | undefined,
  ) {}

  touch(): void {
    this.lastActivity = Date.now();
  }

  /** Idle: nothing in flight, no open stream, no answer awaited. */
  get idle(): boolean {
    return this.inFlight.size === 0 && this.waiting.size === 0 && this.stream === undefined;
  }

  /**
   * Sends a server-initiated request with `send` (the stream of the request
   * that needs it) and waits for the client's answer, which arrives as a
   * separate message (`answer`).
   */
  request(
    send: (message: JsonRpcRequest) => void,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(id);
      };
      const onAbort = (): void => {
        cleanup();
        reject(signal.reason ?? new Error('Aborted'));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(McpError.internal(`The client did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref?.();
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, {
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Routes the client's answer to the request waiting for it; false when none is. */
  answer(response: JsonRpcResponse): boolean {
    const waiting = response.id === undefined ? undefined : this.waiting.get(response.id);
    if (!waiting) return false;
    this.touch();
    if ('error' in response) waiting.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else waiting.resolve(response.result);
    return true;
  }

  /** Sends a message that belongs to no request (list changes, resource updates), if there is a way to. */
  notify(message: JsonRpcNotification): void {
    if (this.connection) this.connection.send(message);
    else this.stream?.send(message);
  }

  /** Ends the session: pending answers fail, the stream closes, requests in flight are aborted. */
  close(reason: string): void {
    for (const waiting of this.waiting.values()) waiting.reject(new McpError(-32603, reason));
    this.waiting.clear();
    for (const controller of this.inFlight.values()) controller.abort(new Error(reason));
    this.stream?.close();
    this.stream = undefined;
  }
}
