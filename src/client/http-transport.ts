/**
 * Streamable HTTP for the client: every message is its own POST; the reply is
 * one JSON body or an SSE stream (parsed with eventsource-parser) ending with
 * the response.
 *
 * 2026-07-28: a stream that breaks before its response lost the request, so it
 * is sent again as a new request with a new id.
 * 2025-11-25 (after `useSession`): every request carries the session id and
 * negotiated version; requests the server sends on a stream are answered by
 * POSTing responses; a stream that ends early is resumed with GET and
 * `Last-Event-ID` after the server's `retry` delay; a standalone GET stream
 * carries what belongs to no request; closing sends DELETE.
 */

import { createParser } from 'eventsource-parser';
import type { HttpAuthProvider } from '../auth/client/auth-provider.js';
import { AuthorizationError } from '../auth/client/errors.js';
import {
  classifyMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import { RequestTimeoutError, TransportError } from './errors.js';
import type { ClientTransport, ServerRequestHandler, TransportRequestOptions } from './transport.js';

export interface HttpClientTransportOptions {
  /** Extra headers on every request (e.g. Authorization). */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Authorization (e.g. an OAuthProvider): it wraps the fetch, adding credentials and answering 401/403 challenges. */
  auth?: HttpAuthProvider;
  /** How many times a request whose stream broke is sent again (2026-07-28) or resumed (2025 sessions) (default 2). */
  reissueLimit?: number;
}

interface Tracked {
  readonly signal: AbortSignal;
  abort(): void;
}

class StreamBroken extends Error {
  constructor(
    message: string,
    readonly lastEventId: string | undefined,
    readonly retryMs: number | undefined,
  ) {
    super(message);
  }
}

interface Session {
  /** Absent when the server issued none (a sessionless 2025-era server). */
  id: string | undefined;
  version: string;
}

export class HttpClientTransport implements ClientTransport {
  readonly kind = 'http' as const;
  readonly url: string;
  private readonly fetchImpl: typeof fetch;
  /** Requests and streams in flight, so close() can end them. */
  private readonly active = new Set<Tracked>();
  private session: Session | undefined;
  private serverRequests: ServerRequestHandler | undefined;
  private readonly unrouted: Array<(n: JsonRpcNotification) => void> = [];
  /** Requests waiting for a response that may arrive on any stream (2025 sessions). */
  private readonly waiting = new Map<JsonRpcRequest['id'], (response: JsonRpcResponse) => void>();
  /** The session id the last response carried (the initialize response's becomes the session's). */
  lastSessionId: string | undefined;

  constructor(
    url: string | URL,
    private readonly options: HttpClientTransportOptions = {},
  ) {
    this.url = String(url);
    const base = options.fetch ?? fetch;
    this.fetchImpl = options.auth ? options.auth.wrapFetch(base) : base;
  }

  /** Switches to a 2025-era session (its headers go on every later message), or back to none. */
  useSession(session: Session | undefined): void {
    this.session = session;
  }

  beginSession(version: string): void {
    this.useSession({ id: this.lastSessionId, version });
  }

  endSession(): void {
    this.useSession(undefined);
  }

  onServerRequest(handler: ServerRequestHandler): void {
    this.serverRequests = handler;
  }

  onUnrouted(listener: (notification: JsonRpcNotification) => void): void {
    this.unrouted.push(listener);
  }

  private async baseHeaders(): Promise<Record<string, string>> {
    const extra = typeof this.options.headers === 'function' ? await this.options.headers() : this.options.headers;
    const headers: Record<string, string> = { ...extra };
    if (this.session) {
      headers['mcp-protocol-version'] = this.session.version;
      if (this.session.id !== undefined) headers['mcp-session-id'] = this.session.id;
    }
    return headers;
  }

  async request(message: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<JsonRpcResponse> {
    const limit = this.options.reissueLimit ?? 2;
    let attempt = message;
    for (let tries = 0; ; tries++) {
      try {
        return await this.send(attempt, options);
      } catch (error) {
        if (!(error instanceof StreamBroken) || options.signal?.aborted) throw error;
        if (this.session && error.lastEventId !== undefined) return this.resume(message, error, options, limit);
        if (tries >= limit) throw new TransportError(error.message);
        // The broken stream lost the request: send it again as a new request.
        attempt = { ...message, id: `${String(message.id)}-r${tries + 1}` };
      }
    }
  }

  /** 2025 sessions: waits the server's retry delay, then GETs with Last-Event-ID to get the rest of the stream. */
  private async resume(message: JsonRpcRequest, broken: StreamBroken, options: TransportRequestOptions, limit: number): Promise<JsonRpcResponse> {
    let last = broken;
    for (let tries = 0; tries < limit; tries++) {
      await new Promise((resolve) => setTimeout(resolve, last.retryMs ?? 1000));
      options.signal?.throwIfAborted();
      try {
        const response = await this.get(options.signal, last.lastEventId, message.id, options);
        if (response) return response;
      } catch (error) {
        if (!(error instanceof StreamBroken) || options.signal?.aborted) throw error;
        last = error.lastEventId === undefined ? last : error;
      }
    }
    throw new TransportError(`The response stream for request ${String(message.id)} could not be resumed`);
  }

  private async post(body: unknown, extraHeaders: Record<string, string> | undefined, signal: AbortSignal): Promise<Response> {
    try {
      const response = await this.fetchImpl(this.url, {
        method: 'POST',
        headers: {
          ...(await this.baseHeaders()),
          ...extraHeaders,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(body),
        signal,
      });
      const session = response.headers.get('mcp-session-id');
      if (session) this.lastSessionId = session;
      return response;
    } catch (error) {
      if (signal.aborted || error instanceof AuthorizationError) throw error;
      // fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND…) is in its cause.
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new TransportError(`Could not reach ${this.url}: ${reason}`);
    }
  }

  /** A signal for one fetch: aborted by the caller's signal, by close(), or by the request itself when done. */
  private track(signal: AbortSignal | undefined): Tracked {
    const own = new AbortController();
    // AbortSignal.any holds the caller's signal weakly: no listener is left on it per call.
    const tracked: Tracked = { signal: signal ? AbortSignal.any([signal, own.signal]) : own.signal, abort: () => own.abort() };
    this.active.add(tracked);
    return tracked;
  }

  private async send(message: JsonRpcRequest, options: TransportRequestOptions): Promise<JsonRpcResponse> {
    const controller = this.track(options.signal);
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, options.timeoutMs);
    let arrived: ((response: JsonRpcResponse) => void) | undefined;
    // In a session the response may come on another stream (a resumed or standalone GET).
    const elsewhere = this.session
      ? new Promise<JsonRpcResponse>((resolve) => {
          arrived = resolve;
          this.waiting.set(message.id, resolve);
        })
      : undefined;
    // 2025-11-25: disconnecting is not cancelling; tell the server (2026-07-28 needs nothing: closing is cancelling).
    const session = this.session;
    const cancel = (): void => {
      if (session && this.session === session) {
        void this.notify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: message.id, reason: String(options.signal?.reason ?? 'cancelled') } }).catch(() => undefined);
      }
    };
    options.signal?.addEventListener('abort', cancel, { once: true });
    try {
      const res = await this.post(message, options.headers, controller.signal);
      if (session && res.status === 404) {
        await res.arrayBuffer().catch(() => undefined);
        throw new TransportError(`The server no longer knows session ${session.id ?? ''}; initialize again`, 404);
      }
      const contentType = res.headers.get('content-type') ?? '';
      if (contentType.includes('text/event-stream')) {
        const read = this.readStream(res, message.id, options, controller.signal);
        return elsewhere ? await Promise.race([read, elsewhere]) : await read;
      }
      const text = await res.text();
      const response = asResponse(text);
      if (response) return response;
      throw new TransportError(`HTTP ${res.status} from ${this.url} without a JSON-RPC response`, res.status, text);
    } catch (error) {
      if (timedOut) throw new RequestTimeoutError(`${message.method} got no response within ${options.timeoutMs} ms`);
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', cancel);
      if (arrived) this.waiting.delete(message.id);
      this.active.delete(controller);
      controller.abort();
    }
  }

  /**
   * Reads an SSE stream: notifications go to `options`, server requests are
   * answered, and the response to `id` (when given) ends the read.
   */
  private async readStream(
    res: Response,
    id: JsonRpcRequest['id'] | undefined,
    options: TransportRequestOptions,
    signal: AbortSignal,
  ): Promise<JsonRpcResponse> {
    let response: JsonRpcResponse | undefined;
    let lastEventId: string | undefined;
    let retryMs: number | undefined;
    const parser = createParser({
      onRetry: (ms) => {
        retryMs = ms;
      },
      onEvent: (event) => {
        if (event.id !== undefined) lastEventId = event.id;
        if (response || event.data.trim() === '') return;
        const found = this.dispatch(event.data, id, options);
        if (found) response = found;
      },
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    try {
      while (!response) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      if (signal.aborted) throw error;
      throw new StreamBroken(`The response stream for request ${String(id)} broke: ${(error as Error).message}`, lastEventId, retryMs);
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    if (!response) throw new StreamBroken(`The response stream for request ${String(id)} ended without a response`, lastEventId, retryMs);
    return response;
  }

  /** Handles one incoming message; returns it when it is the response to `id`. */
  private dispatch(data: string, id: JsonRpcRequest['id'] | undefined, options: TransportRequestOptions): JsonRpcResponse | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return undefined; // not a JSON-RPC message; ignore
    }
    const incoming = classifyMessage(parsed);
    if (incoming.kind === 'notification') {
      if (options.onNotification) options.onNotification(incoming.message);
      else for (const listener of this.unrouted) listener(incoming.message);
    } else if (incoming.kind === 'request') {
      void this.answer(incoming.message);
    } else if (incoming.kind === 'response') {
      if (id !== undefined && incoming.message.id === id) return incoming.message;
      if (incoming.message.id !== undefined) this.waiting.get(incoming.message.id)?.(incoming.message);
    }
    return undefined;
  }

  /** Answers a request the server sent (2025 sessions) by POSTing the response. */
  private async answer(request: JsonRpcRequest): Promise<void> {
    if (!this.serverRequests) return;
    const response = await this.serverRequests(request);
    const controller = this.track(undefined);
    try {
      const res = await this.post(response, undefined, controller.signal);
      await res.arrayBuffer();
    } catch {
      // The server will time the request out; nothing else can be done from here.
    } finally {
      this.active.delete(controller);
    }
  }

  /** GET on the endpoint; with `waitFor`, resolves with that response when it arrives on the stream. */
  private async get(
    signal: AbortSignal | undefined,
    lastEventId: string | undefined,
    waitFor: JsonRpcRequest['id'] | undefined,
    options: TransportRequestOptions,
  ): Promise<JsonRpcResponse | undefined> {
    const controller = this.track(signal);
    try {
      const headers: Record<string, string> = { ...(await this.baseHeaders()), accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const res = await this.fetchImpl(this.url, { method: 'GET', headers, signal: controller.signal });
      if (!res.ok || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        await res.arrayBuffer().catch(() => undefined);
        if (waitFor !== undefined) throw new TransportError(`HTTP ${res.status} when resuming the stream`, res.status);
        return undefined;
      }
      return await this.readStream(res, waitFor, options, controller.signal);
    } finally {
      this.active.delete(controller);
      controller.abort();
    }
  }

  /**
   * Opens the session's standalone stream (2025 sessions), for requests and
   * notifications that belong to no request; reopened when it ends, until closed.
   */
  openStandaloneStream(): void {
    const run = async (): Promise<void> => {
      for (let attempt = 0; this.session && attempt < 5; attempt++) {
        try {
          await this.get(undefined, undefined, undefined, {});
          return; // the server refused or ended it cleanly
        } catch (error) {
          if (!(error instanceof StreamBroken)) return;
          await new Promise((resolve) => setTimeout(resolve, error.retryMs ?? 1000));
        }
      }
    };
    void run();
  }

  /** Sends a notification (2025 sessions: notifications/initialized, notifications/cancelled). */
  async notify(message: JsonRpcNotification): Promise<void> {
    const controller = this.track(undefined);
    try {
      const res = await this.post(message, undefined, controller.signal);
      await res.arrayBuffer();
      if (!res.ok) throw new TransportError(`HTTP ${res.status} for ${message.method}`, res.status);
    } finally {
      this.active.delete(controller);
    }
  }

  async close(): Promise<void> {
    for (const controller of this.active) controller.abort();
    this.active.clear();
    const session = this.session;
    this.session = undefined;
    if (session?.id !== undefined) {
      // Ends the 2025-era session on the server (SHOULD); a failure changes nothing here.
      await this.fetchImpl(this.url, {
        method: 'DELETE',
        headers: { 'mcp-session-id': session.id, 'mcp-protocol-version': session.version },
        signal: AbortSignal.timeout(2000),
      })
        .then((res) => res.arrayBuffer())
        .catch(() => undefined);
    }
  }
}

function asResponse(text: string): JsonRpcResponse | undefined {
  if (!text) return undefined;
  try {
    const incoming = classifyMessage(JSON.parse(text));
    return incoming.kind === 'response' ? incoming.message : undefined;
  } catch {
    return undefined;
  }
}
