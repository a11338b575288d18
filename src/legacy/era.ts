/**
 * The 2025-11-25 era as an extension of the 2026-07-28 server: the same URL
 * and the same handlers serve both. It classifies every request before the
 * 2026 gates (the era step of the request path):
 *
 * - `Mcp-Session-Id` (HTTP) or a stdio connection that ran `initialize` → the
 *   session's 2025-era handling (an unknown session id is 404);
 * - `initialize` without 2026 `_meta` → the 2025 handshake, a new session;
 * - anything else → 2026-07-28, unchanged.
 *
 * A 2025-era request never gets `input_required` (asks become real requests
 * to the client); a 2026 request never gets a server-initiated request. It
 * also takes what only sessions have: client responses and notifications,
 * HTTP GET streams and DELETE, and list changes and resource updates for them.
 */

import type { EventLog, PeerMessageContext, Reply, RequestChannel, StreamSink, SessionPeer, StreamStatus } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import { errorResponse, resultResponse, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { LegacyMethod, Notification } from '../protocol/methods.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS, SERVED_LEGACY_VERSIONS } from '../protocol/versions.js';
import type { ExtensionFactory, ServerExtension, ServerHost } from '../server/extension.js';
import { hasModernMeta } from '../server/request-meta.js';
import { coversResource, type Change } from '../stores/change-bus.js';
import { handshake } from './handshake.js';
import type { LiveOptions } from './live-interaction.js';
import { resumeStream } from './resume-stream.js';
import { serveInSession } from './session-requests.js';
import { Sessions, type SessionHandle, type SessionLimits } from './sessions.js';
import { StreamLog } from './stream-log.js';

export interface LegacyOptions extends SessionLimits {
  /** How long a server-initiated request waits for the client's answer (default 10 minutes). */
  answerTimeoutMs?: number;
  /** Most hand-made input rounds one request may take (default 10). */
  maxRounds?: number;
}

const LIST_CHANGED = {
  tools: Notification.ToolsListChanged,
  prompts: Notification.PromptsListChanged,
  resources: Notification.ResourcesListChanged,
} as const;

function isLegacyVersion(version: string | undefined): boolean {
  return version !== undefined && LEGACY_PROTOCOL_VERSIONS.includes(version);
}

/**
 * On a session's requests, streams and DELETE the client sends the negotiated
 * version; one this server does not serve is 400 (2025-11-25, transports: an
 * invalid or unsupported MCP-Protocol-Version). Without the header a 2025
 * client is taken as it is (the spec lets the server assume an older revision).
 */
function unservedVersion(version: string | undefined): boolean {
  return version !== undefined && !SERVED_LEGACY_VERSIONS.includes(version);
}

function badVersion(id: JsonRpcRequest['id'] | undefined, version: string): Reply {
  return { message: errorResponse(id, McpError.invalidRequest(`Bad request: MCP-Protocol-Version ${version} is not served here (served: ${SERVED_LEGACY_VERSIONS.join(', ')})`)) };
}

export function legacyEra(options: LegacyOptions = {}): ExtensionFactory {
  return (host) => new LegacyEra(host, options);
}

class LegacyEra implements ServerExtension, SessionPeer {
  readonly name = 'legacy';
  /** The era is its own sessions' peer. */
  readonly sessionPeer: SessionPeer = this;
  private readonly sessions: Sessions;
  private readonly live: LiveOptions;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly host: ServerHost,
    options: LegacyOptions,
  ) {
    this.sessions = new Sessions(options, (message) => host.logger.warn(message));
    this.live = { answerTimeoutMs: options.answerTimeoutMs ?? 10 * 60_000, maxRounds: options.maxRounds ?? 10 };
    this.unsubscribe = host.changes.subscribe((change) => void this.tellSessions(change));
  }

  route(request: JsonRpcRequest, channel: RequestChannel): Promise<Reply> | undefined {
    const modern = hasModernMeta(request.params);
    const sessionId = channel.header?.('mcp-session-id');
    // 2026-07-28 in its body and in no session: the gates take it, whatever its header says (they check it).
    if (modern && sessionId === undefined) return undefined;
    const version = channel.header?.('mcp-protocol-version')?.trim();
    // A stray session id on a request that is 2026 in both body and header is ignored (§12.6).
    if (sessionId !== undefined && !(modern && version !== undefined && !isLegacyVersion(version))) {
      if (unservedVersion(version)) return Promise.resolve(badVersion(request.id, version!));
      return this.serveHttpSession(request, channel, sessionId);
    }
    const stdio = this.sessions.ofConnection(channel.connection);
    if (stdio && !modern) return serveInSession(request, channel, stdio, this.host, this.live, this.sessions.events);
    const legacyHeader = version === undefined || isLegacyVersion(version);
    if (request.method === LegacyMethod.Initialize && !modern && legacyHeader) return handshake(request, channel, this.host, this.sessions);
    // A 2025-era client may ping before initialize (spec 2025-11-25 lifecycle).
    if (request.method === LegacyMethod.Ping && !modern && legacyHeader) return Promise.resolve({ message: resultResponse(request.id, {}), legacy: true });
    if (isLegacyVersion(version) && !modern) {
      const error = McpError.invalidRequest('Bad request: 2025-era requests need the Mcp-Session-Id that initialize returned');
      return Promise.resolve({ message: errorResponse(request.id, error) });
    }
    return undefined;
  }

  private async serveHttpSession(request: JsonRpcRequest, channel: RequestChannel, sessionId: string): Promise<Reply> {
    const session = await this.sessions.http(sessionId, channel.principal);
    if (!session) {
      const error = McpError.unknownSession(sessionId);
      return { message: errorResponse(request.id, error), condition: error.condition };
    }
    try {
      return await serveInSession(request, channel, session, this.host, this.live, this.sessions.events);
    } finally {
      this.sessions.release(session);
    }
  }

  /* ---------------- messages that are not requests ---------------- */

  /** The session a message belongs to; undefined when none; null when it names one this instance does not have. */
  private async sessionOf(context: PeerMessageContext): Promise<SessionHandle | undefined | null> {
    const id = context.header?.('mcp-session-id');
    const version = context.header?.('mcp-protocol-version')?.trim();
    // A stray session id on 2026-07-28 traffic is ignored (§12.6).
    if (id !== undefined && !(version !== undefined && MODERN_PROTOCOL_VERSIONS.includes(version))) return (await this.sessions.http(id, context.principal)) ?? null;
    return this.sessions.ofConnection(context.connection);
  }

  async handleResponse(response: JsonRpcResponse, context: PeerMessageContext): Promise<number> {
    const session = await this.sessionOf(context);
    if (session === null) return 404;
    if (!session) return 400;
    if (session.live.answer(response)) return 202;
    // The handler waiting for it may be on another instance sharing the sessions: the answer goes there.
    if (!this.sessions.bus.shared) return 400;
    this.sessions.tellOthers({ type: 'answer', sessionId: session.data.id, response });
    return 202;
  }

  handleNotification(note: JsonRpcNotification, context: PeerMessageContext): number | Promise<number> {
    // stdio: the session is the connection, and a request right behind this notification must see its effect.
    const stdio = context.header ? undefined : this.sessions.ofConnection(context.connection);
    if (stdio) {
      if (note.method === Notification.Initialized) void stdio.update({ initialized: true });
      return 202;
    }
    return this.sessionOf(context).then(async (session) => {
      if (session === null) return 404;
      if (!session) return 202;
      if (note.method === Notification.Initialized) {
        await session.update({ initialized: true });
        session.live.markInitialized();
        this.sessions.tellOthers({ type: 'initialized', sessionId: session.data.id });
      }
      if (note.method === Notification.Cancelled) {
        const id = note.params?.requestId;
        if (typeof id === 'string' || typeof id === 'number') {
          const running = session.live.inFlight.get(id);
          if (running) running.abort(new Error('Cancelled by the client'));
          else this.sessions.tellOthers({ type: 'cancel', sessionId: session.data.id, requestId: id });
        }
      }
      this.sessions.release(session);
      return 202;
    });
  }

  async openStream(header: (name: string) => string | undefined, open: (log?: EventLog) => StreamSink, principal?: string): Promise<StreamStatus> {
    const id = header('mcp-session-id');
    if (id === undefined) return 405; // 2026-07-28 has no GET stream
    if (unservedVersion(header('mcp-protocol-version')?.trim())) return 400;
    const session = await this.sessions.http(id, principal);
    if (!session) return 404;
    const lastEventId = header('last-event-id');
    if (lastEventId !== undefined) return resumeStream(session, lastEventId, open, this.sessions.events, (s) => this.attachStream(session, s), () => this.standaloneLog(session));
    // One standalone stream per session; the spec allows a second GET only an SSE stream or 405.
    if (session.live.stream) return 405;
    this.attachStream(session, open(this.standaloneLog(session)));
    return 200;
  }

  private standaloneLog(session: SessionHandle): EventLog {
    return new StreamLog(this.sessions.events, session.data.id, 'standalone', (message) => this.host.logger.warn(message));
  }

  /** Makes `stream` the session's standalone stream (a resumed one replaces the one it resumes). */
  private attachStream(session: SessionHandle, stream: StreamSink): void {
    session.live.stream?.close();
    session.live.stream = stream;
    stream.signal.addEventListener('abort', () => {
      if (session.live.stream !== stream) return;
      session.live.stream = undefined;
      this.sessions.release(session);
    });
  }

  async endSession(header: (name: string) => string | undefined, principal?: string): Promise<number> {
    const id = header('mcp-session-id');
    if (id === undefined) return 405;
    if (unservedVersion(header('mcp-protocol-version')?.trim())) return 400;
    // Only its maker may end a session.
    if (!(await this.sessions.http(id, principal))) return 404;
    return (await this.sessions.end(id, 'The client ended the session')) ? 200 : 404;
  }

  /* ---------------- change notifications ---------------- */

  private async tellSessions(change: Change): Promise<void> {
    for await (const session of this.sessions.listening()) {
      if (change.type === 'list') {
        if (session.data.initialized) session.live.notify({ jsonrpc: '2.0', method: LIST_CHANGED[change.list] });
      } else if (session.data.subscriptions.some((s) => coversResource(s, change.uri))) {
        session.live.notify({ jsonrpc: '2.0', method: Notification.ResourceUpdated, params: { uri: change.uri } });
      }
    }
  }

  close(): void {
    this.unsubscribe();
    void this.sessions.closeAll();
  }
}
