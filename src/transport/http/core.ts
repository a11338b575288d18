/**
 * Streamable HTTP (2026-07-28), independent of the HTTP library: the checks
 * that come before the body (method, Host/Origin, content type, size), reading
 * the one JSON-RPC message, and choosing a JSON body or an SSE stream for the
 * reply. A reply starts as JSON and turns into SSE only when the handler sends
 * a notification first, so every 4xx the spec fixes is still possible until then.
 */

import type { EndpointAuthorization, HttpAuthorization } from '../../protocol/authorization.js';
import type { EventLog, PeerMessageContext, Reply, RequestHandler, StreamSink, StreamStatus } from '../../protocol/channel.js';
import { McpError } from '../../protocol/errors.js';
import { errorResponse, parseMessage, serializeMessage, type JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { resourceMetadataUrls } from '../../protocol/oauth-urls.js';
import type { RequestId } from '../../protocol/types.js';
import { CallerCheck, isRefusal, type AuthenticateHook, type Caller, type CallerRequest } from './caller.js';
import { Cors, type CorsOptions } from './cors.js';
import { HostGuard, type HostGuardOptions } from './host-guard.js';
import { metadataResponse } from './metadata-route.js';
import type { HttpRequestView, HttpResponder } from './exchange.js';
import { PostChannel } from './post-channel.js';
import { SSE_HEADERS, SseStream } from './sse.js';
import { httpStatusFor } from './status.js';
import type { WireTrace } from '../wire-trace.js';

export { HttpError } from './http-error.js';
export type { HttpRequestView, HttpResponder } from './exchange.js';
export type { AuthenticateHook } from './caller.js';

export interface HttpTransportOptions extends HostGuardOptions {
  /** Largest accepted request body in bytes (default 4 MiB); larger bodies get 413. */
  maxBodyBytes?: number;
  /** Interval of SSE comment keep-alives on open streams, in ms (default 15000; 0 disables). */
  keepAliveMs?: number;
  /** Turns off the Host/Origin check (e.g. behind a proxy that already enforces it). */
  dnsRebindingProtection?: boolean;
  /** CORS for browser clients: the origins whose pages may call the endpoint (off by default). */
  cors?: CorsOptions;
  /**
   * The endpoint as an OAuth 2.1 protected resource (`protectedResource(…)`):
   * every request's access token verified, challenges, scopes, the Protected
   * Resource Metadata served beside the endpoint, the caller bound into
   * everything. Checked on every request, POST, GET and DELETE alike.
   */
  auth?: HttpAuthorization;
  /** The public URL of this endpoint: the resource `auth` protects when it names none (`serveHttp` sets its own). */
  endpoint?: string;
  /**
   * Establishes the caller from request headers, on every request (after
   * `auth`, whose verified caller it sees). Return the principal, `undefined`
   * for anonymous (or to keep the token's principal), or throw `HttpError`
   * (401/403) to refuse.
   */
  authenticate?: AuthenticateHook;
  /** Sees every JSON-RPC message received and sent (e.g. `printWire()`), for debugging; it shows arguments and answers. */
  trace?: WireTrace;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

function jsonError(status: number, error: McpError, id?: RequestId): [number, Record<string, string>, string] {
  return [status, JSON_HEADERS, JSON.stringify(errorResponse(id, error))];
}

/** The Retry-After of a refusal for a limit (503, 429): the seconds its error data names. */
function retryAfterOf(reply: Reply): number | undefined {
  if (reply.condition !== 'overloaded' && reply.condition !== 'limited') return undefined;
  const data = 'error' in reply.message ? reply.message.error.data : undefined;
  const seconds = typeof data === 'object' && data !== null ? (data as { retryAfterSeconds?: unknown }).retryAfterSeconds : undefined;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : undefined;
}

const NO_SCOPES: readonly string[] = Object.freeze([]);
const ANONYMOUS_CALLER: Caller = Object.freeze({ principal: undefined, auth: undefined });

/** The path of a request target, without its query. */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}

function acceptsJsonOrSse(accept: string | undefined): boolean {
  return accept === undefined || /application\/json|text\/event-stream|\*\/\*|application\/\*/.test(accept);
}

export class HttpCore {
  readonly maxBodyBytes: number;
  private readonly guard: HostGuard | undefined;
  private readonly cors: Cors | undefined;
  private readonly keepAliveMs: number;
  /** The endpoint's authorization, settled once (its resource URL known). */
  private readonly authorization: EndpointAuthorization | undefined;
  private readonly callers: CallerCheck | undefined;
  private readonly trace: WireTrace | undefined;

  constructor(
    private readonly handler: RequestHandler,
    options: HttpTransportOptions = {},
  ) {
    this.maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.keepAliveMs = options.keepAliveMs ?? 15_000;
    this.cors = options.cors ? new Cors(options.cors) : undefined;
    // An origin CORS allows is one the Origin check lets through.
    this.guard = options.dnsRebindingProtection === false ? undefined : new HostGuard(options, this.cors?.allowedOrigins);
    this.authorization = options.auth?.forEndpoint(options.endpoint);
    this.callers = this.authorization || options.authenticate ? new CallerCheck(this.authorization, options.authenticate) : undefined;
    this.trace = options.trace;
  }

  /**
   * The Protected Resource Metadata, when `request` asks for it (any other
   * path is the adapter's to answer). Only the Host check applies: the
   * document is public and browsers read it from other origins.
   */
  metadata(request: HttpRequestView): [number, Record<string, string>, string] | undefined {
    if (!this.authorization) return undefined;
    const path = pathOf(request.target);
    if (!this.authorization.metadataAt(path)) return undefined;
    const refusal = this.guard?.check(request.header('host'), undefined);
    if (refusal) return jsonError(403, McpError.invalidRequest(`Forbidden: ${refusal}`));
    // A public document: with CORS on, any page may read it.
    const crossOrigin: Record<string, string> = this.cors ? { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS' } : {};
    return metadataResponse(this.authorization, request.method, path, crossOrigin);
  }

  /** The paths the Protected Resource Metadata is served at (none when the endpoint is not protected), for adapters that route by path. */
  get metadataPaths(): readonly string[] {
    return this.authorization ? resourceMetadataUrls(this.authorization.resource).map((url) => new URL(url).pathname) : [];
  }

  /**
   * Checks that need no body. Returns the refusal to send, or undefined to go on
   * and read the body. `contentLength` lets an oversized body be refused unread.
   */
  precheck(request: HttpRequestView): [number, Record<string, string>, string] | undefined {
    const origin = request.header('origin');
    const refusal = this.refusal(request, origin);
    if (!refusal || !this.cors) return refusal;
    const [status, headers, body] = refusal;
    return [status, { ...headers, ...this.cors.headersFor(origin) }, body];
  }

  private refusal(request: HttpRequestView, origin: string | undefined): [number, Record<string, string>, string] | undefined {
    const refusal = this.guard?.check(request.header('host'), origin);
    if (refusal) return jsonError(403, McpError.invalidRequest(`Forbidden: ${refusal}`));
    if (request.method === 'OPTIONS' && this.cors) {
      return this.cors.preflight(origin, request.header('access-control-request-method'), request.header('access-control-request-headers'));
    }
    if (request.method === 'GET' || request.method === 'DELETE') {
      // Handled by `serveStream` / `endSession` when the server has 2025-era sessions.
      return this.handler.sessionPeer ? undefined : this.methodNotAllowed();
    }
    if (request.method !== 'POST') return this.methodNotAllowed();
    const contentType = request.header('content-type');
    if (contentType !== 'application/json' && (!contentType || !/^application\/json\s*(;|$)/i.test(contentType.trim()))) {
      return jsonError(415, McpError.invalidRequest('Unsupported media type: the body must be application/json'));
    }
    if (!acceptsJsonOrSse(request.header('accept'))) {
      return jsonError(406, McpError.invalidRequest('Not acceptable: accept application/json and text/event-stream'));
    }
    const length = request.header('content-length');
    if (length !== undefined && Number(length) > this.maxBodyBytes) return this.tooLarge();
    return undefined;
  }

  private methodNotAllowed(): [number, Record<string, string>, string] {
    const allow = this.handler.sessionPeer ? 'POST, GET, DELETE' : 'POST';
    return [405, { ...JSON_HEADERS, allow }, JSON.stringify(errorResponse(undefined, McpError.invalidRequest(`Method not allowed: send JSON-RPC messages with POST`)))];
  }

  /**
   * Serves one request that passed `precheck` (a POST's body read): GET opens a
   * 2025-era session's stream, DELETE ends a session, POST carries one message.
   * Never rejects: an unexpected failure is a 500 when nothing was sent yet.
   */
  async serve(request: HttpRequestView, body: string, responder: HttpResponder): Promise<void> {
    let answered = false;
    const cors = this.cors?.headersFor(request.header('origin'));
    const tracked: HttpResponder = {
      send: (status, headers, text) => {
        answered = true;
        responder.send(status, cors ? { ...headers, ...cors } : headers, text);
      },
      stream: (headers) => {
        answered = true;
        return responder.stream(cors ? { ...headers, ...cors } : headers);
      },
    };
    try {
      if (request.method === 'GET') await this.serveStream(request, tracked);
      else if (request.method === 'DELETE') await this.endSession(request, tracked);
      else await this.respond(request, body, tracked);
    } catch {
      if (!answered) responder.send(...jsonError(500, McpError.internal()));
    }
  }

  /**
   * The caller of one request, or undefined when it was refused (the refusal
   * is sent). Every request is authenticated on its own: there is no session
   * to remember a caller by.
   */
  private async caller(request: CallerRequest, responder: HttpResponder, scopes: readonly string[] = NO_SCOPES, id?: RequestId): Promise<Caller | undefined> {
    if (!this.callers) return ANONYMOUS_CALLER;
    const outcome = await this.callers.establish(request, scopes);
    if (!isRefusal(outcome)) return outcome;
    const error = outcome.status >= 500 ? McpError.internal(outcome.message) : McpError.invalidRequest(outcome.message);
    responder.send(outcome.status, { ...JSON_HEADERS, ...outcome.headers }, JSON.stringify(errorResponse(id, error)));
    return undefined;
  }

  /** HTTP GET: a standalone SSE stream of a 2025-era session. */
  private async serveStream(request: HttpRequestView, responder: HttpResponder): Promise<void> {
    const caller = await this.caller(request, responder);
    if (!caller) return;
    if (!request.header('accept')?.includes('text/event-stream')) {
      responder.send(...jsonError(406, McpError.invalidRequest('Not acceptable: a GET stream needs Accept: text/event-stream')));
      return;
    }
    let stream: SseStream | undefined;
    const open = (log?: EventLog): StreamSink => {
      stream = new SseStream(responder.stream(SSE_HEADERS), this.keepAliveMs, log);
      const opened = stream;
      const send = (message: JsonRpcMessage, id?: string): void => {
        this.trace?.('out', message);
        opened.send(message, id);
      };
      return { send, close: () => opened.end(), signal: request.signal };
    };
    const status = await this.handler.sessionPeer!.openStream(request.header, open, caller.principal);
    if (!stream) responder.send(...this.bare(status));
  }

  /** HTTP DELETE: ends a 2025-era session. */
  private async endSession(request: HttpRequestView, responder: HttpResponder): Promise<void> {
    const caller = await this.caller(request, responder);
    if (!caller) return;
    responder.send(...this.bare(await this.handler.sessionPeer!.endSession(request.header, caller.principal)));
  }

  /** The answer to GET or DELETE when no stream opened: body-less, a refusal's JSON-RPC error, or the 405 with its Allow header. */
  private bare(answer: StreamStatus): [number, Record<string, string>, string] {
    if (typeof answer !== 'number') return jsonError(answer.status, McpError.invalidRequest(answer.message));
    return answer === 405 ? this.methodNotAllowed() : [answer, {}, ''];
  }

  /** The body was read by something mounted before the endpoint, which kept nothing of it. */
  bodyConsumed(): [number, Record<string, string>, string] {
    return jsonError(500, McpError.internal('The request body was read before the MCP endpoint and not kept: mount the endpoint before body-reading middleware, or leave the parsed body on req.body'));
  }

  tooLarge(): [number, Record<string, string>, string] {
    return jsonError(413, McpError.invalidRequest(`Payload too large: the limit is ${this.maxBodyBytes} bytes`));
  }

  /** One POST whose body has been read. */
  private async respond(request: HttpRequestView, body: string, responder: HttpResponder): Promise<void> {
    const incoming = parseMessage(body);
    // Authenticated before anything is answered, even a malformed body; the scopes are those of what the request calls.
    const scopes = this.authorization && incoming.kind === 'request' ? (this.handler.requiredScopes?.(incoming.message) ?? NO_SCOPES) : NO_SCOPES;
    // No await at all when nothing checks the caller: the common, unprotected case stays as fast as before.
    const caller = this.callers ? await this.caller(request, responder, scopes, incoming.kind === 'request' ? incoming.message.id : undefined) : ANONYMOUS_CALLER;
    if (!caller) return;
    const { principal, auth } = caller;

    const peer: PeerMessageContext = { header: request.header, principal };
    if (incoming.kind !== 'invalid') this.trace?.('in', incoming.message);
    switch (incoming.kind) {
      case 'invalid':
        this.trace?.('out', errorResponse(incoming.id, incoming.error));
        responder.send(...jsonError(httpStatusFor(incoming.error.code), incoming.error, incoming.id));
        return;
      case 'notification':
        // 2026-07-28 has no client notifications on HTTP (cancelling = closing the stream); 2025-era sessions do.
        responder.send((await this.handler.sessionPeer?.handleNotification(incoming.message, peer)) ?? 202, {}, '');
        return;
      case 'response': {
        const status = (await this.handler.sessionPeer?.handleResponse(incoming.message, peer)) ?? 400;
        if (status < 300) responder.send(status, {}, '');
        else responder.send(...jsonError(status, McpError.invalidRequest('Invalid request: no request of this server is waiting for this response')));
        return;
      }
    }

    const channel = new PostChannel(request, responder, this.keepAliveMs, this.trace, principal, auth);
    const reply = await this.handler.handleRequest(incoming.message, channel);
    const stream = channel.stream;
    if (!reply.withhold) this.trace?.('out', reply.message);
    if (reply.withhold) {
      // Cancelled by the client: no JSON-RPC response; the HTTP exchange still ends.
      if (stream) stream.abandon();
      else responder.send(202, {}, '');
      return;
    }
    if (stream) {
      if (request.aborted) stream.recordOnly(reply.message);
      else stream.send(reply.message);
      stream.end();
    } else {
      // Sent even when the client is gone: an adapter may be waiting on it (the node adapter drops it).
      const code = 'error' in reply.message ? reply.message.error.code : undefined;
      const status = httpStatusFor(code, reply.condition, reply.legacy);
      const headers: Record<string, string> = { ...JSON_HEADERS, ...reply.headers };
      const retryAfter = reply.condition === undefined ? undefined : retryAfterOf(reply);
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
      responder.send(status, headers, serializeMessage(reply.message)!);
    }
  }
}
