/**
 * Streamable HTTP for the client: every message is its own POST; the reply is
 * one JSON body or an SSE stream (parsed with eventsource-parser) ending with
 * the response; requests the server sends on a stream go to the client, and
 * the answers it gives are POSTed back.
 *
 * 2026-07-28: a stream that breaks before its response lost the request, so it
 * is sent again as a new request with a new id.
 * 2025-11-25 sessions (headers, responses on other streams, cancellation,
 * resumption, the standalone GET stream, DELETE) are the era's, in
 * http-session.ts: this transport calls it at each step and moves the bytes.
 *
 * A 503 or 429 with Retry-After (before any JSON-RPC response: the server
 * ran nothing) is sent again after the wait it names, within `busyRetry`'s
 * bounds and the request's deadline (retry-after.ts).
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
import { HttpSession, type Session } from './http-session.js';
import { EVENT_STREAM, mediaType } from './media-type.js';
import { reachFailure } from './reach-failure.js';
import { fetchWithinOrigin } from './redirects.js';
import { pause } from './pause.js';
import { BusyRetries, RETRY_AFTER_STATUSES, RetryLater, retryAfterMs, type BusyRetryOptions } from './retry-after.js';
import { StreamBroken } from './stream-broken.js';
import type { ClientTransport, ServerRequestHandler, TransportRequestOptions } from './transport.js';

/** The default `maxResponseBytes`: 16 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
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
  /**
   * A request answered 503 or 429 with `Retry-After` is sent again after the
   * wait it names, at most `maxAttempts` times in all (default 5) and
   * `maxTotalWaitMs` of waiting in all (default 30 s), never past the
   * request's time limit; then a ServerBusyError. `false`: never (the reply
   * is the request's error, as without Retry-After).
   */
  busyRetry?: BusyRetryOptions | false;
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

export type { Session } from './http-session.js';

export class HttpClientTransport implements ClientTransport {
  readonly kind = 'http' as const;
  readonly url: string;
  private readonly fetchImpl: typeof fetch;
  private readonly maxResponseBytes: number;
  /** Requests and streams in flight, so close() can end them. */
  private readonly active = new Set<Tracked>();
  /** The 2025-11-25 era: none until `beginSession`. */
  private readonly session = new HttpSession({
    notify: (message) => this.notify(message),
    stream: (headers, waitFor, options, deadline) => this.get(headers, waitFor, options, deadline),
    fetch: (init) => fetchWithinOrigin(this.fetchImpl, this.url, init),
  });
  private serverRequests: ServerRequestHandler | undefined;
  private readonly unrouted: Array<(n: JsonRpcNotification) => void> = [];

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
    this.session.use(session);
  }

  beginSession(version: string): void {
    this.session.begin(version);
  }

  endSession(): void {
    this.session.forget();
  }

  openStandaloneStream(): void {
    this.session.openStandaloneStream();
  }

  onServerRequest(handler: ServerRequestHandler): void {
    this.serverRequests = handler;
  }

  onUnrouted(listener: (notification: JsonRpcNotification) => void): void {
    this.unrouted.push(listener);
  }

  private async baseHeaders(): Promise<Record<string, string>> {
    const extra = typeof this.options.headers === 'function' ? await this.options.headers() : this.options.headers;
    return { ...extra, ...this.session.headers() };
  }

  async request(message: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<JsonRpcResponse> {
    const limit = this.options.reissueLimit ?? 2;
    // One limit for the request, however many times it is sent or resumed.
    const deadline = new Deadline(options.timeoutMs);
    // Made only when a server asks to be tried again later: most requests never need it.
    let busy: BusyRetries | undefined;
    let attempt = message;
    for (let tries = 0; ; ) {
      try {
        return await this.send(attempt, options, deadline);
      } catch (error) {
        if (error instanceof RetryLater) {
          // Refused before any work: the same request again, once the server's wait is over (or the error saying why not).
          busy ??= new BusyRetries(this.url, this.options.busyRetry || undefined);
          await this.waitOut(busy.next(error, deadline), options.signal);
          continue;
        }
        tries++;
        if (!(error instanceof StreamBroken) || options.signal?.aborted) throw error;
        if (this.session.resumes(error)) return this.session.resume(message, error, options, limit, deadline);
        if (tries > limit) throw new TransportError(error.message, undefined, undefined, { cause: error.cause });
        // The broken stream lost the request: send it again as a new request.
        attempt = { ...message, id: `${String(message.id)}-r${tries}` };
      }
    }
  }

  /** The wait before a request is sent again: the caller's signal ends it at once (with its reason), and so does close(). */
  private async waitOut(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const waiting = this.track(signal);
    try {
      await pause(ms, waiting.signal);
    } catch (error) {
      if (waiting.closed) throw new TransportError('The client closed the connection while a request waited to be sent again (Retry-After)', undefined, undefined, { cause: error });
      throw error;
    } finally {
      waiting.release();
    }
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
      this.session.heard(response);
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
    if (left === 0) throw deadline.exceeded(message.method);
    const controller = this.track(options.signal, left);
    const { elsewhere, done } = this.session.track(message, options.signal);
    try {
      const res = await this.post(message, options.headers, controller.signal);
      await this.session.check(res);
      await this.refusedForNow(res);
      if (mediaType(res.headers.get('content-type')) === EVENT_STREAM) {
        const read = this.readStream(res, message.id, options, controller.signal);
        return elsewhere ? await Promise.race([read, elsewhere]) : await read;
      }
      return this.responseIn(await readBodyText(res, this.maxResponseBytes, this.url), res.status, res.headers.get('content-type'), message.id);
    } catch (error) {
      if (controller.timedOut) throw deadline.exceeded(message.method);
      // Aborted by the caller: their reason, not whatever the interrupted read made of it.
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (controller.closed) throw new TransportError(`The client closed the connection before ${message.method} was answered`, undefined, undefined, { cause: error });
      throw error;
    } finally {
      done();
      controller.release();
    }
  }

  /** A 503 or 429 with a readable Retry-After (and retries not turned off): thrown as RetryLater, its body read for the error. */
  private async refusedForNow(res: Response): Promise<void> {
    if (this.options.busyRetry === false || !RETRY_AFTER_STATUSES.has(res.status)) return;
    const retryAfter = res.headers.get('retry-after');
    const waitMs = retryAfterMs(retryAfter);
    if (waitMs === undefined) return;
    const text = await readBodyText(res, Math.min(this.maxResponseBytes, KEPT_BODY_CHARS * 4), this.url).catch(() => '');
    throw new RetryLater(res.status, retryAfter!.trim(), waitMs, text.length > KEPT_BODY_CHARS ? `${text.slice(0, KEPT_BODY_CHARS)}…` : text);
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
      if (!this.session.deliver(incoming.message) && id !== undefined) {
        throw new ProtocolViolationError(`The response stream for request ${JSON.stringify(id)} carried the response for ${JSON.stringify(other)}`, incoming.message);
      }
    }
    return undefined;
  }

  /** Hands a request the server sent to the client; POSTs the answer when there is one (a 2025 server's only). */
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
    extraHeaders: Record<string, string>,
    waitFor: JsonRpcRequest['id'] | undefined,
    options: TransportRequestOptions,
    deadline?: Deadline,
  ): Promise<JsonRpcResponse | undefined> {
    const controller = this.track(options.signal, deadline?.remaining());
    try {
      const headers: Record<string, string> = { ...(await this.baseHeaders()), accept: 'text/event-stream', ...extraHeaders };
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
    await this.session.close();
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
