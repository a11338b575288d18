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
 *
 * Against any server: replies are read up to `maxResponseBytes` (JSON
 * bodies after decompression, SSE lines and events), one timeout covers
 * every attempt of a request, redirects stay within the origin
 * (redirects.ts), a reply must carry the exact id of its request, and every
 * failure is a TransportError or ProtocolViolationError with its cause.
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
import { describe, readBodyText } from './bounded-body.js';
import { Deadline } from './deadline.js';
import { ClientError, ProtocolViolationError, RequestTimeoutError, ResponseTooLargeError, TransportError } from './errors.js';
import { EVENT_STREAM, mediaType } from './media-type.js';
import { pause } from './pause.js';
import { reachFailure } from './reach-failure.js';
import { fetchWithinOrigin } from './redirects.js';
import type { ClientTransport, ServerRequestHandler, TransportRequestOptions } from './transport.js';

/** The default `maxResponseBytes`: 16 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** The longest wait between a broken 2025 stream and its resumption, whatever `retry` the server sent. */
const MAX_RETRY_DELAY_MS = 30_000;
/** How much of a non-MCP body a TransportError keeps (for the message and `body`). */
const KEPT_BODY_CHARS = 4096;

export interface HttpClientTransportOptions {
  /** Extra headers on every request (e.g. Authorization). */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Authorization (e.g. an OAuthProvider): it wraps the fetch, adding credentials and answering 401/403 challenges. */
  auth?: HttpAuthProvider;
  /** How many times a request whose stream broke is sent again (2026-07-28) or resumed (2025 sessions) (default 2). */
  reissueLimit?: number;
  /**
   * The largest reply the client reads, in bytes (default 16 MiB): a JSON
   * body (counted after decompression), and one SSE line or event (counted
   * in characters). Past it the read stops with a ResponseTooLargeError.
   */
  maxResponseBytes?: number;
}

interface Tracked {
  readonly signal: AbortSignal;
  abort(): void;
  /** Set when close() ended it: the request fails as a TransportError, not with the abort. */
  closed?: boolean;
  /** Set when its time ran out (the abort was the timer's). */
  timedOut?: boolean;
  /** The fetch is over: its timer stops, it leaves the active set, and anything still reading it is aborted. */
  release(): void;
}

class StreamBroken extends Error {
  constructor(
    message: string,
    readonly lastEventId: string | undefined,
    readonly retryMs: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface Session {
  /** Absent when the server issued none (a sessionless 2025-era server). */
  id: string | undefined;
  version: string;
}

export class HttpClientTransport implements ClientTransport {
  readonly kind = 'http' as const;
  readonly url: string;
  private readonly fetchImpl: typeof fetch;
  private readonly maxResponseBytes: number;
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
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
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
    // One limit for the request, however many times it is sent or resumed.
    const deadline = new Deadline(options.timeoutMs);
    let attempt = message;
    for (let tries = 0; ; tries++) {
      try {
        return await this.send(attempt, options, deadline);
      } catch (error) {
        if (!(error instanceof StreamBroken) || options.signal?.aborted) throw error;
        if (this.session && error.lastEventId !== undefined) return this.resume(message, error, options, limit, deadline);
        if (tries >= limit) throw new TransportError(error.message, undefined, undefined, { cause: error.cause });
        // The broken stream lost the request: send it again as a new request.
        attempt = { ...message, id: `${String(message.id)}-r${tries + 1}` };
      }
    }
  }

  /** 2025 sessions: waits the server's retry delay, then GETs with Last-Event-ID to get the rest of the stream. */
  private async resume(
    message: JsonRpcRequest,
    broken: StreamBroken,
    options: TransportRequestOptions,
    limit: number,
    deadline: Deadline,
  ): Promise<JsonRpcResponse> {
    let last = broken;
    for (let tries = 0; tries < limit; tries++) {
      const left = deadline.remaining();
      const delay = Math.min(last.retryMs ?? 1000, MAX_RETRY_DELAY_MS);
      if (left !== undefined && left <= delay) throw timedOut(message, deadline);
      await pause(delay, options.signal);
      try {
        const response = await this.get(options.signal, last.lastEventId, message.id, options, deadline);
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
      const response = await fetchWithinOrigin(this.fetchImpl, this.url, {
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
      if (signal.aborted || error instanceof AuthorizationError || error instanceof ClientError) throw error;
      throw new TransportError(`Could not reach ${this.url}: ${reachFailure(this.url, error)}`, undefined, undefined, { cause: error });
    }
  }

  /** A signal for one fetch: aborted by the caller's signal, by close(), after `timeoutMs`, or by the request itself when done. */
  private track(signal: AbortSignal | undefined, timeoutMs?: number): Tracked {
    const own = new AbortController();
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            tracked.timedOut = true;
            own.abort();
          }, timeoutMs);
    // AbortSignal.any holds the caller's signal weakly: no listener is left on it per call.
    const tracked: Tracked = {
      signal: signal ? AbortSignal.any([signal, own.signal]) : own.signal,
      abort: () => own.abort(),
      release: () => {
        if (timer) clearTimeout(timer);
        this.active.delete(tracked);
        own.abort();
      },
    };
    this.active.add(tracked);
    return tracked;
  }

  private async send(message: JsonRpcRequest, options: TransportRequestOptions, deadline: Deadline): Promise<JsonRpcResponse> {
    const left = deadline.remaining();
    if (left === 0) throw timedOut(message, deadline);
    const controller = this.track(options.signal, left);
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
        await res.body?.cancel().catch(() => undefined);
        throw new TransportError(`The server no longer knows session ${session.id ?? ''}; initialize again`, 404);
      }
      if (mediaType(res.headers.get('content-type')) === EVENT_STREAM) {
        const read = this.readStream(res, message.id, options, controller.signal);
        return elsewhere ? await Promise.race([read, elsewhere]) : await read;
      }
      return this.responseIn(await readBodyText(res, this.maxResponseBytes, this.url), res.status, res.headers.get('content-type'), message.id);
    } catch (error) {
      if (controller.timedOut) throw timedOut(message, deadline);
      // Aborted by the caller: their reason, not whatever the interrupted read made of it.
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (controller.closed) throw new TransportError(`The client closed the connection before ${message.method} was answered`, undefined, undefined, { cause: error });
      throw error;
    } finally {
      options.signal?.removeEventListener('abort', cancel);
      if (arrived) this.waiting.delete(message.id);
      controller.release();
    }
  }

  /** The JSON-RPC response in a JSON body: it must be one, and for this request (the same id, of the same type). */
  private responseIn(text: string, status: number, contentType: string | null, id: JsonRpcRequest['id']): JsonRpcResponse {
    const kept = text.length > KEPT_BODY_CHARS ? `${text.slice(0, KEPT_BODY_CHARS)}…` : text;
    // A web page, a 404 page or another API: say so, rather than what the JSON parser made of it.
    const notMcp = `${this.url} is not an MCP endpoint (HTTP ${status}, ${mediaType(contentType) || 'no content type'})`;
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch (cause) {
      if (status >= 200 && status < 300) throw new ProtocolViolationError(`${notMcp}: the body is not JSON`, kept, { cause });
      throw new TransportError(notMcp, status, kept, { cause });
    }
    const incoming = classifyMessage(parsed);
    if (incoming.kind !== 'response') {
      if (status >= 200 && status < 300 && parsed !== undefined) {
        throw new ProtocolViolationError(`HTTP ${status} from ${this.url} with JSON that is not a JSON-RPC response`, parsed);
      }
      throw new TransportError(parsed === undefined ? `HTTP ${status} from ${this.url} with an empty body` : notMcp, status, kept);
    }
    if (!answers(incoming.message, id)) {
      throw new ProtocolViolationError(`The server answered request ${JSON.stringify(id)} with the response for ${JSON.stringify(incoming.message.id)}`, incoming.message);
    }
    return incoming.message;
  }

  /**
   * Reads an SSE stream: notifications go to `options`, server requests go to
   * the client (which answers them only in a 2025 session), and the response
   * to `id` (when given) ends the read. A line or event past
   * `maxResponseBytes` ends it too.
   */
  private async readStream(
    res: Response,
    id: JsonRpcRequest['id'] | undefined,
    options: TransportRequestOptions,
    signal: AbortSignal,
  ): Promise<JsonRpcResponse> {
    let response: JsonRpcResponse | undefined;
    let failure: ClientError | undefined;
    let lastEventId: string | undefined;
    let retryMs: number | undefined;
    const limit = this.maxResponseBytes;
    const parser = createParser({
      // The parser holds at most this much of an unfinished line or event.
      maxBufferSize: limit,
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') {
          failure ??= new ResponseTooLargeError(`An SSE line or event from ${this.url} is longer than maxResponseBytes (${limit} characters); stopped reading`, limit);
        }
      },
      onRetry: (ms) => {
        retryMs = ms;
      },
      onEvent: (event) => {
        if (event.id !== undefined) lastEventId = event.id;
        if (response || failure || event.data.trim() === '') return;
        try {
          const found = this.dispatch(event.data, id, options);
          if (found) response = found;
        } catch (error) {
          failure = error instanceof ClientError ? error : new ProtocolViolationError('The SSE stream could not be read', undefined, { cause: error });
        }
      },
    });
    const body = res.body;
    if (!body) throw new StreamBroken(`The response stream for request ${String(id)} had no body`, lastEventId, retryMs);
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      while (!response && !failure) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      if (signal.aborted) throw error;
      throw new StreamBroken(`The response stream for request ${String(id)} broke: ${describe(error)}`, lastEventId, retryMs, { cause: error });
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    if (failure) throw failure;
    if (!response) throw new StreamBroken(`The response stream for request ${String(id)} ended without a response`, lastEventId, retryMs);
    return response;
  }

  /**
   * Handles one incoming message; returns it when it is the response to `id`.
   * On a request's stream, an event that is not JSON or a response for
   * another request is a protocol violation (2025 sessions route responses
   * to whichever request waits for them).
   */
  private dispatch(data: string, id: JsonRpcRequest['id'] | undefined, options: TransportRequestOptions): JsonRpcResponse | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch (cause) {
      if (id === undefined) return undefined; // a standalone stream: nothing waits on it to fail
      throw new ProtocolViolationError(`An SSE event on the response stream for request ${JSON.stringify(id)} is not JSON`, data.slice(0, KEPT_BODY_CHARS), { cause });
    }
    const incoming = classifyMessage(parsed);
    if (incoming.kind === 'notification') {
      if (options.onNotification) options.onNotification(incoming.message);
      else for (const listener of this.unrouted) listener(incoming.message);
    } else if (incoming.kind === 'request') {
      void this.answer(incoming.message);
    } else if (incoming.kind === 'response') {
      const other = incoming.message.id;
      if (id !== undefined && answers(incoming.message, id)) return incoming.message;
      if (this.session && other !== undefined && this.waiting.has(other)) this.waiting.get(other)!(incoming.message);
      else if (id !== undefined && !this.session) {
        throw new ProtocolViolationError(`The response stream for request ${JSON.stringify(id)} carried the response for ${JSON.stringify(other)}`, incoming.message);
      }
    }
    return undefined;
  }

  /** Hands a request the server sent to the client; POSTs the answer when there is one (2025 sessions only). */
  private async answer(request: JsonRpcRequest): Promise<void> {
    const response = await this.serverRequests?.(request);
    if (!response) return;
    const controller = this.track(undefined);
    try {
      const res = await this.post(response, undefined, controller.signal);
      await res.body?.cancel().catch(() => undefined);
    } catch {
      // The server will time the request out; nothing else can be done from here.
    } finally {
      controller.release();
    }
  }

  /** GET on the endpoint; with `waitFor`, resolves with that response when it arrives on the stream (within `deadline`). */
  private async get(
    signal: AbortSignal | undefined,
    lastEventId: string | undefined,
    waitFor: JsonRpcRequest['id'] | undefined,
    options: TransportRequestOptions,
    deadline?: Deadline,
  ): Promise<JsonRpcResponse | undefined> {
    const controller = this.track(signal, deadline?.remaining());
    try {
      const headers: Record<string, string> = { ...(await this.baseHeaders()), accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const res = await fetchWithinOrigin(this.fetchImpl, this.url, { method: 'GET', headers, signal: controller.signal });
      if (!res.ok || mediaType(res.headers.get('content-type')) !== EVENT_STREAM) {
        await res.body?.cancel().catch(() => undefined);
        if (waitFor !== undefined) throw new TransportError(`HTTP ${res.status} when resuming the stream`, res.status);
        return undefined;
      }
      return await this.readStream(res, waitFor, options, controller.signal);
    } catch (error) {
      if (controller.timedOut && deadline && waitFor !== undefined) throw new RequestTimeoutError(`No response to request ${String(waitFor)} within ${deadline.totalMs} ms`);
      throw error;
    } finally {
      controller.release();
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
          await pause(Math.min(error.retryMs ?? 1000, MAX_RETRY_DELAY_MS));
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
      await res.body?.cancel().catch(() => undefined);
      if (!res.ok) throw new TransportError(`HTTP ${res.status} for ${message.method}`, res.status);
    } finally {
      controller.release();
    }
  }

  async close(): Promise<void> {
    for (const controller of this.active) {
      controller.closed = true;
      controller.abort();
    }
    this.active.clear();
    const session = this.session;
    this.session = undefined;
    if (session?.id !== undefined) {
      // Ends the 2025-era session on the server (SHOULD); a failure changes nothing here.
      await fetchWithinOrigin(this.fetchImpl, this.url, {
        method: 'DELETE',
        headers: { 'mcp-session-id': session.id, 'mcp-protocol-version': session.version },
        signal: AbortSignal.timeout(2000),
      })
        .then((res) => res.body?.cancel())
        .catch(() => undefined);
    }
  }
}

/**
 * Whether a response answers the request with this id: the same id, of the
 * same JSON type (`"5"` is not `5`). An error response without an id (the
 * server could not read the request) answers the request it came back for.
 */
function answers(response: JsonRpcResponse, id: JsonRpcRequest['id']): boolean {
  if (response.id === id) return true;
  // `null` is how some servers write "no id" (classifyMessage passes it through).
  return (response.id ?? undefined) === undefined && 'error' in response;
}

function timedOut(message: JsonRpcRequest, deadline: Deadline): RequestTimeoutError {
  return new RequestTimeoutError(`${message.method} got no response within ${deadline.totalMs} ms`);
}
