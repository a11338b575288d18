/**
 * The seam between transports and the server: what a transport hands the
 * server for one request, and what it gets back. Transports know nothing of
 * eras or sessions; the optional hooks below let a server that also speaks the
 * 2025-11-25 lifecycle take the messages only that lifecycle has.
 */

import type { AuthInfo } from './authorization.js';
import type { ErrorCondition } from './errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './jsonrpc.js';

/** A transport connection that outlives one request (a stdio process, an in-memory link). */
export interface Connection {
  /** Per-connection slots for the server's own bookkeeping (e.g. a 2025-era session on stdio). */
  readonly slots: Map<symbol, unknown>;
  /** Sends a message that belongs to no request in flight. */
  send(message: JsonRpcNotification | JsonRpcRequest): void;
  /** Aborted when the connection closes. */
  readonly closed: AbortSignal;
}

export interface RequestChannel {
  /** Aborted when the client goes away or cancels (HTTP disconnect, stdio `notifications/cancelled`). */
  readonly signal: AbortSignal;
  /**
   * Whether the client went away already, read without making `signal` (on
   * HTTP a signal costs a controller and a listener per request, and most
   * requests only ask this once); absent: read `signal.aborted`.
   */
  readonly gone?: boolean;
  /** Whether messages can reach the client before the response (an HTTP client that accepts only JSON cannot stream). */
  readonly canNotify: boolean;
  /**
   * Sends a message that belongs to this request, before its response: a
   * notification (progress, log, listen-stream message) or, for a 2025-era
   * session only, a server-initiated request.
   */
  send(message: JsonRpcNotification | JsonRpcRequest): void;
  /** Request header lookup (lower-case names) on HTTP; absent on stdio and in memory. */
  header?(name: string): string | undefined;
  /**
   * Who is calling, as the transport established it (a verified token's
   * issuer, subject and client, or what an `authenticate` hook returned);
   * absent when anonymous. Bound into sealed state, tasks and 2025 sessions.
   */
  readonly principal?: string;
  /** The verified access token's caller, when the transport checks tokens (`ctx.auth`). */
  readonly auth?: AuthInfo;
  /** The connection the request came on; absent on HTTP, where each POST stands alone. */
  readonly connection?: Connection;
  /**
   * Offered by transports whose streams can be resumed (HTTP SSE): makes the
   * stream this request's reply may open resumable through `log` (2025-11-25
   * sessions only; called before the first send). What is sent after the
   * client disconnected is still recorded.
   */
  resumable?(log: EventLog): void;
}

/**
 * How the events of a resumable SSE stream are numbered and kept: the
 * server's (it knows the session), written by the transport.
 */
/**
 * Another channel seen through, but for what a subclass or the `signal` given
 * changes: every member delegated. A spread copy (`{ ...channel }`) would keep
 * only own properties and silently drop the prototype's (`header`,
 * `resumable`, a `signal` getter). The optional members are present only when
 * the inner channel has them, since their presence says something (`header`:
 * the request came over HTTP; `resumable`: its stream can be resumed). A class,
 * not an object literal with a getter (V8 makes those in old space).
 */
export class ChannelView implements RequestChannel {
  readonly canNotify: boolean;
  declare readonly principal?: string;
  declare readonly auth?: AuthInfo;
  declare readonly connection?: Connection;
  declare readonly header?: (name: string) => string | undefined;
  declare readonly resumable?: (log: EventLog) => void;

  constructor(
    protected readonly inner: RequestChannel,
    private readonly ownSignal?: AbortSignal,
  ) {
    this.canNotify = inner.canNotify;
    if (inner.principal !== undefined) this.principal = inner.principal;
    if (inner.auth !== undefined) this.auth = inner.auth;
    if (inner.connection !== undefined) this.connection = inner.connection;
    if (inner.header) this.header = (name) => inner.header!(name);
    if (inner.resumable) this.resumable = (log) => inner.resumable!(log);
  }

  get signal(): AbortSignal {
    return this.ownSignal ?? this.inner.signal;
  }

  get gone(): boolean | undefined {
    return this.ownSignal ? this.ownSignal.aborted : this.inner.gone;
  }

  send(message: JsonRpcNotification | JsonRpcRequest): void {
    this.inner.send(message);
  }
}

export interface EventLog {
  /** The id of the priming event that opens the stream. */
  prime(): string;
  /** Records a message of the stream and returns its event id; a response ends the stream. */
  record(message: JsonRpcMessage): string;
  /** Nothing more comes on the stream (its request was cancelled, or it was closed). */
  end(): void;
}

/** What the server answers a request with; each transport decides how it travels (on HTTP, its status: transport/http/status.ts). */
export interface Reply {
  message: JsonRpcResponse;
  /** Why an error reply failed, when its code alone does not say how to answer (HTTP 400, 404, 503). */
  condition?: ErrorCondition | undefined;
  /** A reply within a 2025-11-25 session, whose clients read error codes only from 2xx bodies. */
  legacy?: boolean;
  /** The client cancelled the request: no response is sent for it (the transport ends what it has open). */
  withhold?: boolean;
  /** Extra HTTP response headers (e.g. `Mcp-Session-Id` on a 2025-era handshake). */
  headers?: Record<string, string>;
}

/** Where a standalone stream (HTTP GET) writes. */
export interface StreamSink {
  /** Sends a message (recorded in the stream's log under a new id); `id` instead replays an event recorded earlier. */
  send(message: JsonRpcMessage, id?: string): void;
  close(): void;
  readonly signal: AbortSignal;
}

/** The answer to a GET: a status, or a refusal's status and what to tell the client. */
export type StreamStatus = number | { status: number; message: string };

/** What the client sent that is not a request, as seen by the HTTP transport or a link. */
export interface PeerMessageContext {
  header?(name: string): string | undefined;
  connection?: Connection;
  /** Who sent it, as the transport established it (see `RequestChannel.principal`). */
  principal?: string;
}

/** Anything that answers MCP requests: the server, or a test double. */
export interface RequestHandler {
  handleRequest(request: JsonRpcRequest, channel: RequestChannel): Promise<Reply>;
  /**
   * The OAuth scopes `request` needs, from what it calls (a tool's, prompt's or
   * resource's `scopes`), so that an HTTP transport checking tokens can refuse
   * it with 403 before it runs. Empty when it needs none.
   */
  requiredScopes?(request: JsonRpcRequest): readonly string[];
  /**
   * What the transports hand over besides requests, when the handler serves
   * 2025-11-25 sessions (McpServer's 2025 era). Without it a client response
   * is a 400, a notification is taken (202) and ignored, GET and DELETE are 405.
   */
  readonly sessionPeer?: SessionPeer;
}

/** The other side of a 2025-11-25 session, in one seam: messages that are not requests, and HTTP GET and DELETE. */
export interface SessionPeer {
  /**
   * A response from the client (to a server-initiated request of a 2025-era
   * session). Returns the HTTP status to answer with (202 when taken).
   */
  handleResponse(response: JsonRpcResponse, context: PeerMessageContext): number | Promise<number>;
  /** A notification from the client. Returns the HTTP status to answer with (202 when taken). */
  handleNotification(notification: JsonRpcNotification, context: PeerMessageContext): number | Promise<number>;
  /**
   * HTTP GET on the endpoint: a standalone stream for a 2025-era session, or
   * (with `Last-Event-ID`) the resumption of one of its streams. Returns the
   * status, with a message for a refusal; 200 means `open()` was called and
   * the stream is in use. `principal` is the caller, as for requests.
   */
  openStream(header: (name: string) => string | undefined, open: (log?: EventLog) => StreamSink, principal?: string): StreamStatus | Promise<StreamStatus>;
  /** HTTP DELETE on the endpoint: ends a 2025-era session. Returns the status. */
  endSession(header: (name: string) => string | undefined, principal?: string): number | Promise<number>;
}
