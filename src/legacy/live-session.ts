/**
 * What a 2025-11-25 session has on the instance serving it, beyond its data
 * in the session store: the standalone GET stream (HTTP) or the connection
 * (stdio), the requests in flight (to cancel them on
 * `notifications/cancelled`), and the server-initiated requests waiting for
 * the client's answer.
 */

import { McpError } from '../protocol/errors.js';
import type { Connection, StreamSink } from '../protocol/channel.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { RequestId, Result } from '../protocol/types.js';
import { randomId } from '../platform/crypto.js';

interface Waiting {
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

export class LiveSession {
  /** Requests of this session being handled here. */
  readonly inFlight = new Map<RequestId, AbortController>();
  /** The standalone GET stream (HTTP) for messages that belong to no request. */
  stream: StreamSink | undefined;
  private readonly waiting = new Map<RequestId, Waiting>();
  private nextId = 1;
  /** Server-initiated request ids are unique across instances sharing the session: this live part's own prefix. */
  private readonly idPrefix: string | undefined;
  private initialized = false;
  private readonly onInitialized = new Set<() => void>();

  constructor(
    readonly id: string,
    /** The stdio (or in-memory) connection this session is; undefined on HTTP. */
    readonly connection: Connection | undefined,
    /** Where a message goes when this instance has no way to the client (another instance holds the GET stream). */
    private readonly elsewhere?: (message: JsonRpcNotification | JsonRpcRequest) => void,
  ) {
    this.idPrefix = connection ? undefined : randomId(6);
  }

  /** The client sent notifications/initialized (on any instance: the session's data says so too). */
  markInitialized(): void {
    this.initialized = true;
    for (const resolve of [...this.onInitialized]) resolve();
    this.onInitialized.clear();
  }

  /**
   * Resolves once the client is initialized: a server may send it requests
   * only after notifications/initialized (2025-11-25 lifecycle).
   */
  whenInitialized(signal: AbortSignal, timeoutMs: number): Promise<void> {
    if (this.initialized) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.onInitialized.delete(done);
      };
      const done = (): void => {
        settle();
        resolve();
      };
      const onAbort = (): void => {
        settle();
        reject(signal.reason ?? new Error('Aborted'));
      };
      const timer = setTimeout(() => {
        settle();
        reject(McpError.internal(`The client did not send notifications/initialized within ${timeoutMs} ms, so the server cannot ask it anything`));
      }, timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.onInitialized.add(done);
    });
  }

  /** Nothing in flight, no open stream, no answer awaited. */
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
  ): Promise<Result> {
    const id: RequestId = this.idPrefix ? `${this.idPrefix}-${this.nextId++}` : this.nextId++;
    return new Promise<Result>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(id);
      };
      const onAbort = (): void => {
        settle();
        reject(signal.reason ?? new Error('Aborted'));
      };
      const timer = setTimeout(() => {
        settle();
        reject(McpError.internal(`The client did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, {
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
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
    if ('error' in response) waiting.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else waiting.resolve(response.result);
    return true;
  }

  /** Sends a message that belongs to no request (list changes, resource updates), if there is a way to. */
  notify(message: JsonRpcNotification): void {
    if (this.connection) this.connection.send(message);
    else this.stream?.send(message);
  }

  /** Sends a message on the session's GET stream, here or (through the session bus) on the instance that holds it; false when there is none. */
  sendOnStream(message: JsonRpcNotification | JsonRpcRequest): boolean {
    if (this.stream) {
      this.stream.send(message);
      return true;
    }
    if (!this.elsewhere) return false;
    this.elsewhere(message);
    return true;
  }

  /** Ends what the session has here: pending answers fail, the stream closes, requests in flight are aborted. */
  close(reason: string): void {
    for (const waiting of [...this.waiting.values()]) waiting.reject(McpError.internal(reason));
    this.waiting.clear();
    for (const controller of this.inFlight.values()) controller.abort(new Error(reason));
    this.stream?.close();
    this.stream = undefined;
  }
}
