/**
 * The stateless 2026-07-28 server plus the 2025-11-25
 * lifecycle on the same URL and over stdio, so one set of handlers serves
 * both eras. Each request is classified:
 *
 * - `Mcp-Session-Id` (HTTP) or a stdio connection that ran `initialize` → the
 *   session's 2025-era handling (an unknown session id is 404);
 * - `initialize` without 2026 `_meta` → the 2025 handshake, a new session;
 * - anything else → 2026-07-28, unchanged.
 *
 * A 2025-era request never gets `input_required` (asks become real requests
 * to the client); a 2026 request never gets a server-initiated request.
 */

import type { PeerMessageContext, Reply, RequestChannel, StreamSink } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import { errorResponse, resultResponse, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { Notification } from '../protocol/methods.js';
import { LOGGING_LEVELS, type ClientCapabilities, type Implementation, type LoggingLevel, type ServerCapabilities } from '../protocol/types.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { RequestMeta } from '../server/request-meta.js';
import { hasModernMeta } from '../server/request-meta.js';
import { StatelessServer, type ServerOptions } from '../server/server.js';
import { legacyError, legacyResponse } from './legacy-results.js';
import { LiveRounds, type LiveOptions } from './live-rounds.js';
import { LegacySession } from './session.js';
import { SessionStore, type SessionLimits } from './session-store.js';

export interface LegacyOptions extends SessionLimits {
  /** How long a server-initiated request waits for the client's answer (default 10 minutes). */
  answerTimeoutMs?: number;
  /** Most hand-made input rounds one request may take (default 10). */
  maxRounds?: number;
}

export interface DualEraOptions extends ServerOptions {
  /** The 2025-11-25 lifecycle (sessions, server-initiated requests); `false` serves 2026-07-28 only. */
  legacy?: LegacyOptions | false;
}

/** Where a stdio connection keeps its 2025-era session. */
const SESSION_SLOT = Symbol('tessera.legacySession');

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonReply(id: JsonRpcRequest['id'] | undefined, error: McpError, status: number): Reply {
  return { message: errorResponse(id, error), status };
}

export class DualEraServer extends StatelessServer {
  private readonly legacyEnabled: boolean;
  private readonly sessions: SessionStore;
  private readonly stdioSessions = new Set<LegacySession>();
  private readonly live: LiveOptions;

  constructor(info: Implementation, options: DualEraOptions = {}) {
    super(info, options);
    const legacy = options.legacy === false ? undefined : (options.legacy ?? {});
    this.legacyEnabled = legacy !== undefined;
    this.sessions = new SessionStore(legacy);
    this.live = { answerTimeoutMs: legacy?.answerTimeoutMs ?? 10 * 60_000, maxRounds: legacy?.maxRounds ?? 10 };
  }

  override handleRequest(request: JsonRpcRequest, channel: RequestChannel): Promise<Reply> {
    if (!this.legacyEnabled) return super.handleRequest(request, channel);
    const version = channel.header?.('mcp-protocol-version')?.trim();
    const modern = hasModernMeta(request.params);
    const sessionId = channel.header?.('mcp-session-id');
    // A stray session id on a request that is 2026 in both body and header is ignored (§12.6).
    if (sessionId !== undefined && !(modern && version !== undefined && !LEGACY_PROTOCOL_VERSIONS.includes(version))) {
      const session = this.sessions.get(sessionId);
      if (!session) return Promise.resolve(this.unknownSession(request.id, sessionId));
      return this.serveLegacy(request, channel, session);
    }
    const stdioSession = channel.connection?.slots.get(SESSION_SLOT) as LegacySession | undefined;
    if (stdioSession && !modern) return this.serveLegacy(request, channel, stdioSession);
    const legacyHeader = version === undefined || LEGACY_PROTOCOL_VERSIONS.includes(version);
    if (request.method === 'initialize' && !modern && legacyHeader) return Promise.resolve(this.handshake(request, channel));
    // A 2025-era client may ping before initialize (spec 2025-11-25 lifecycle).
    if (request.method === 'ping' && !modern && legacyHeader) return Promise.resolve({ message: resultResponse(request.id, {}), status: 200 });
    if (version !== undefined && LEGACY_PROTOCOL_VERSIONS.includes(version) && !modern) {
      return Promise.resolve(
        jsonReply(request.id, McpError.invalidRequest('Bad request: 2025-era requests need the Mcp-Session-Id that initialize returned'), 400),
      );
    }
    return super.handleRequest(request, channel);
  }

  /* ---------------- the handshake ---------------- */

  private handshake(request: JsonRpcRequest, channel: RequestChannel): Reply {
    const params = request.params ?? {};
    const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
    // Answer the version asked for when it is one of ours, else the latest 2025-era one; never 2026-07-28.
    const version = LEGACY_PROTOCOL_VERSIONS.includes(requested) ? requested : LEGACY_PROTOCOL_VERSIONS[0]!;
    const capabilities = isObject(params.capabilities) ? (params.capabilities as ClientCapabilities) : {};
    const clientInfo = isObject(params.clientInfo) ? (params.clientInfo as unknown as Implementation) : undefined;
    const connection = channel.connection;
    const session = new LegacySession(connection ? 'stdio' : this.sessions.newId(), version, capabilities, clientInfo, connection);
    let headers: Record<string, string> | undefined;
    if (connection) {
      const previous = connection.slots.get(SESSION_SLOT) as LegacySession | undefined;
      if (previous) this.stdioSessions.delete(previous);
      connection.slots.set(SESSION_SLOT, session);
      this.stdioSessions.add(session);
      connection.closed.addEventListener('abort', () => {
        this.stdioSessions.delete(session);
        session.close('The connection closed');
      });
    } else {
      if (!this.sessions.add(session)) {
        return jsonReply(request.id, McpError.internal('Too many sessions: try again later'), 503);
      }
      headers = { 'mcp-session-id': session.id };
    }
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: this.legacyCapabilities(),
      serverInfo: this.info,
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return { message: resultResponse(request.id, result), status: 200, headers };
  }

  /** What a 2025-era client is told: the same features, without 2026-only extensions. */
  private legacyCapabilities(): ServerCapabilities {
    const { extensions: _extensions, ...capabilities } = this.capabilities();
    return capabilities;
  }

  private unknownSession(id: JsonRpcRequest['id'] | undefined, sessionId: string): Reply {
    return jsonReply(
      id,
      McpError.invalidRequest(
        `Session not found: ${sessionId} is not a session of this server instance (it ended, or another instance made it; ` +
          '2025-era sessions need sticky routing, 2026-07-28 requests do not). Initialize again.',
      ),
      404,
    );
  }

  /* ---------------- 2025-era requests ---------------- */

  private async serveLegacy(request: JsonRpcRequest, channel: RequestChannel, session: LegacySession): Promise<Reply> {
    session.touch();
    // Cancellable by notifications/cancelled as well as by the transport.
    const controller = new AbortController();
    const upstream = channel.signal;
    if (upstream.aborted) controller.abort(upstream.reason);
    else upstream.addEventListener('abort', () => controller.abort(upstream.reason), { once: true });
    session.inFlight.set(request.id, controller);
    const sessionChannel: RequestChannel = { ...channel, signal: controller.signal, send: (m) => channel.send(m) };
    try {
      const reply = await this.dispatchLegacy(request, sessionChannel, session);
      // 2025 clients read error codes only from 2xx bodies.
      return { ...reply, message: legacyResponse(reply.message), status: 200 };
    } finally {
      session.inFlight.delete(request.id);
      session.touch();
    }
  }

  private async dispatchLegacy(request: JsonRpcRequest, channel: RequestChannel, session: LegacySession): Promise<Reply> {
    const params = request.params ?? {};
    const done = (): Reply => ({ message: resultResponse(request.id, {}), status: 200 });
    switch (request.method) {
      case 'initialize':
        return jsonReply(request.id, McpError.invalidRequest('Invalid request: this session is already initialized'), 200);
      case 'ping':
        return done();
      case 'logging/setLevel': {
        if (!LOGGING_LEVELS.includes(params.level as LoggingLevel)) {
          return jsonReply(request.id, McpError.invalidParams(`Invalid params: unknown log level ${JSON.stringify(params.level)}`), 200);
        }
        session.logLevel = params.level as LoggingLevel;
        return done();
      }
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        if (typeof params.uri !== 'string') return jsonReply(request.id, McpError.invalidParams('Invalid params: uri must be a string'), 200);
        if (request.method === 'resources/subscribe') session.subscriptions.add(params.uri);
        else session.subscriptions.delete(params.uri);
        return done();
      }
      case 'server/discover':
      case 'subscriptions/listen':
        return jsonReply(request.id, McpError.methodNotFound(request.method), 200);
    }
    const handler = this.lookup(request.method);
    if (!handler) return jsonReply(request.id, McpError.methodNotFound(request.method), 200);
    const meta = params._meta;
    const progressToken = isObject(meta) ? meta.progressToken : undefined;
    const requestMeta: RequestMeta = {
      protocolVersion: session.protocolVersion,
      clientCapabilities: session.clientCapabilities,
      clientInfo: session.clientInfo,
      logLevel: session.logLevel,
      progressToken: typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
      raw: isObject(meta) ? meta : {},
    };
    return this.execute(request, channel, requestMeta, handler, new LiveRounds(session, channel, this.live), legacyError);
  }

  /* ---------------- messages that are not requests ---------------- */

  /** The session a message belongs to; undefined when none; null when it names one this instance does not have. */
  private sessionOf(context: PeerMessageContext): LegacySession | undefined | null {
    if (!this.legacyEnabled) return undefined;
    const id = context.header?.('mcp-session-id');
    const version = context.header?.('mcp-protocol-version')?.trim();
    // A stray session id on 2026-07-28 traffic is ignored (§12.6).
    if (id !== undefined && !(version !== undefined && MODERN_PROTOCOL_VERSIONS.includes(version))) return this.sessions.get(id) ?? null;
    return context.connection?.slots.get(SESSION_SLOT) as LegacySession | undefined;
  }

  handleResponse(response: JsonRpcResponse, context: PeerMessageContext): number {
    const session = this.sessionOf(context);
    if (session === null) return 404;
    return session?.answer(response) ? 202 : 400;
  }

  handleNotification(note: JsonRpcNotification, context: PeerMessageContext): number {
    const session = this.sessionOf(context);
    if (session === null) return 404;
    if (!session) return 202;
    if (note.method === 'notifications/initialized') session.initialized = true;
    if (note.method === Notification.Cancelled && !context.connection) {
      const id = note.params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') session.inFlight.get(id)?.abort(new Error('Cancelled by the client'));
    }
    return 202;
  }

  openStream(header: (name: string) => string | undefined, open: () => StreamSink): number {
    if (!this.legacyEnabled) return 405;
    const id = header('mcp-session-id');
    if (id === undefined) return 405; // 2026-07-28 has no GET stream
    const session = this.sessions.get(id);
    if (!session) return 404;
    if (session.stream) return 409;
    const stream = open();
    session.stream = stream;
    stream.signal.addEventListener('abort', () => {
      if (session.stream === stream) session.stream = undefined;
    });
    return 200;
  }

  endSession(header: (name: string) => string | undefined): number {
    if (!this.legacyEnabled) return 405;
    const id = header('mcp-session-id');
    if (id === undefined) return 405;
    return this.sessions.end(id, 'The client ended the session') ? 200 : 404;
  }

  /* ---------------- change notifications ---------------- */

  private *legacySessions(): Iterable<LegacySession> {
    yield* this.sessions.all();
    yield* this.stdioSessions;
  }

  protected override listChanged(list: 'tools' | 'prompts' | 'resources'): void {
    super.listChanged(list);
    if (!this.sessions || !this.stdioSessions) return; // registration inside the base constructor
    const method =
      list === 'tools' ? Notification.ToolsListChanged : list === 'prompts' ? Notification.PromptsListChanged : Notification.ResourcesListChanged;
    for (const session of this.legacySessions()) if (session.initialized) session.notify({ jsonrpc: '2.0', method });
  }

  override resourceUpdated(uri: string): void {
    super.resourceUpdated(uri);
    for (const session of this.legacySessions()) {
      if ([...session.subscriptions].some((s) => uri === s || uri.startsWith(s.endsWith('/') ? s : `${s}/`))) {
        session.notify({ jsonrpc: '2.0', method: Notification.ResourceUpdated, params: { uri } });
      }
    }
  }

  override close(): void {
    super.close();
    this.sessions.clear();
    for (const session of this.stdioSessions) session.close('The server is shutting down');
    this.stdioSessions.clear();
  }
}
