/**
 * The 2025-11-25 sessions this instance serves. An HTTP session's data lives
 * in the session store (any instance that shares it can read it) and its live
 * part here; a stdio session is its connection, data and all.
 */

import type { Connection } from '../protocol/channel.js';
import { randomUuid } from '../platform/crypto.js';
import { MemoryEventStore, type EventStore } from '../stores/event-store.js';
import { MemorySessionBus, type SessionBus, type SessionEvent } from '../stores/session-bus.js';
import { MemorySessionStore, type SessionCreation, type SessionData, type SessionPatch, type SessionStore } from '../stores/session-store.js';
import { LiveSession } from './live-session.js';

/** One session as a request sees it: its data when the request arrived, what lives here, and how to change it. */
export interface SessionHandle {
  readonly data: SessionData;
  readonly live: LiveSession;
  update(patch: SessionPatch): Promise<void>;
}

export interface SessionLimits {
  /**
   * Most sessions held at once (default 1000, in memory). When full, a new
   * session may end the least recently used idle session of its own caller —
   * for an anonymous one, an idle session that never finished its handshake —
   * never anyone else's; otherwise it is refused (HTTP 503, Retry-After).
   */
  maxSessions?: number;
  /**
   * Most sessions one authenticated caller holds at once (default 100), in
   * memory or in a shared store; beyond it the caller's least recently used
   * idle session ends, or the new one is refused (HTTP 429, Retry-After).
   */
  maxSessionsPerPrincipal?: number;
  /** A session with nothing in flight and no open stream ends after this long (default 30 minutes). */
  idleTimeoutMs?: number;
  /** Where HTTP sessions are kept (default: this process's memory, bounded by the limits above). */
  store?: SessionStore;
  /** How instances sharing the store reach the live part of a session another one holds (default: this process only). */
  bus?: SessionBus;
  /** Where the events of resumable SSE streams are kept for replay on `Last-Event-ID` (default: this process's memory, bounded). */
  events?: EventStore;
}

/** Where a stdio connection keeps its 2025-era session. */
const SESSION_SLOT = Symbol('tessera.legacySession');

interface StdioSession extends SessionHandle {
  data: SessionData;
}

export class Sessions {
  private readonly store: SessionStore;
  /** The live part of HTTP sessions with something going on here. */
  private readonly live = new Map<string, LiveSession>();
  private readonly stdio = new Set<StdioSession>();
  /** The bound of the default store, for a refusal's message (undefined when the store is the app's). */
  readonly maxSessions: number | undefined;
  readonly maxSessionsPerPrincipal: number;
  readonly bus: SessionBus;
  readonly events: EventStore;
  private readonly unsubscribe: () => void;

  constructor(
    limits: SessionLimits = {},
    private readonly warn?: (message: string) => void,
  ) {
    this.maxSessions = limits.store ? undefined : (limits.maxSessions ?? 1000);
    this.maxSessionsPerPrincipal = limits.maxSessionsPerPrincipal ?? 100;
    this.bus = limits.bus ?? new MemorySessionBus();
    this.events = limits.events ?? new MemoryEventStore();
    this.unsubscribe = this.bus.subscribe((event) => this.onBusEvent(event));
    this.store =
      limits.store ??
      new MemorySessionStore({
        maxSessions: limits.maxSessions,
        idleTimeoutMs: limits.idleTimeoutMs,
        evictable: (id) => this.live.get(id)?.idle ?? true,
        onEnd: (id, why) => this.endLive(id, why === 'idle' ? 'The session was idle too long' : 'The session was ended to make room for a new one'),
      });
  }

  /** A new HTTP session, or which limit refused it. */
  async createHttp(data: Omit<SessionData, 'id'>): Promise<SessionHandle | Exclude<SessionCreation, 'created'>> {
    const session: SessionData = { ...data, id: randomUuid() };
    const created = await this.store.create(session, this.maxSessionsPerPrincipal);
    return created === 'created' ? this.httpHandle(session) : created;
  }

  /** A new session for a stdio connection (it ends with the connection; a second initialize replaces it). */
  createStdio(data: Omit<SessionData, 'id'>, connection: Connection): SessionHandle {
    const previous = connection.slots.get(SESSION_SLOT) as StdioSession | undefined;
    if (previous) this.stdio.delete(previous);
    const session: StdioSession = {
      data: { ...data, id: 'stdio' },
      live: new LiveSession('stdio', connection),
      update: (patch) => {
        session.data = { ...session.data, ...patch };
        if (patch.initialized) session.live.markInitialized();
        return Promise.resolve();
      },
    };
    connection.slots.set(SESSION_SLOT, session);
    this.stdio.add(session);
    connection.closed.addEventListener('abort', () => {
      this.stdio.delete(session);
      session.live.close('The connection closed');
    });
    return session;
  }

  /**
   * The HTTP session with this id, or undefined (unknown, ended, idle too
   * long — or made by another caller than `principal`, which is told no more
   * than that the session does not exist, and does not end it).
   */
  async http(id: string, principal: string | undefined): Promise<SessionHandle | undefined> {
    const data = await this.store.get(id);
    if (!data) {
      this.endLive(id, 'The session ended');
      return undefined;
    }
    if (data.principal !== principal) {
      this.warn?.(`Refused a message on 2025-11-25 session ${id}: it belongs to another caller`);
      return undefined;
    }
    return this.httpHandle(data);
  }

  /** The session a stdio connection ran initialize on, or undefined. */
  ofConnection(connection: Connection | undefined): SessionHandle | undefined {
    return connection?.slots.get(SESSION_SLOT) as StdioSession | undefined;
  }

  private httpHandle(data: SessionData): SessionHandle {
    let live = this.live.get(data.id);
    if (!live) {
      const elsewhere = this.bus.shared ? (message: Extract<SessionEvent, { type: 'message' }>['message']) => this.tellOthers({ type: 'message', sessionId: data.id, message }) : undefined;
      this.live.set(data.id, (live = new LiveSession(data.id, undefined, elsewhere)));
    }
    if (data.initialized) live.markInitialized();
    return { data, live, update: async (patch) => void (await this.store.update(data.id, patch)) };
  }

  /** A request or stream of an HTTP session is done here: forget its live part once nothing is left of it. */
  release(session: SessionHandle): void {
    if (!session.live.connection && session.live.idle && this.live.get(session.data.id) === session.live) this.live.delete(session.data.id);
  }

  async end(id: string, reason: string): Promise<boolean> {
    const ended = await this.store.delete(id);
    this.endLive(id, reason);
    this.tellOthers({ type: 'ended', sessionId: id });
    return ended;
  }

  private endLive(id: string, reason: string): void {
    const live = this.live.get(id);
    if (!live) return;
    this.live.delete(id);
    live.close(reason);
  }

  /** Every session with a way to hear of changes here (a stdio connection, an HTTP GET stream), with its current data. */
  async *listening(): AsyncIterable<SessionHandle> {
    yield* this.stdio;
    for (const live of [...this.live.values()]) {
      if (!live.stream) continue;
      const data = await this.store.get(live.id);
      if (data) yield { data, live, update: async (patch) => void (await this.store.update(live.id, patch)) };
    }
  }

  /** What another instance said about a session: acted on when its live part is here. */
  private onBusEvent(event: SessionEvent): void {
    const live = this.live.get(event.sessionId);
    if (!live) return;
    switch (event.type) {
      case 'answer':
        live.answer(event.response);
        return;
      case 'message':
        live.stream?.send(event.message);
        return;
      case 'cancel':
        live.inFlight.get(event.requestId)?.abort(new Error('Cancelled by the client'));
        return;
      case 'initialized':
        live.markInitialized();
        return;
      case 'ended':
        this.endLive(event.sessionId, 'The client ended the session');
    }
  }

  /** Tells the other instances (when the bus reaches any). */
  tellOthers(event: SessionEvent): void {
    if (this.bus.shared) void this.bus.publish(event).catch((error: unknown) => this.warn?.(`Could not tell the other instances about session ${event.sessionId}: ${String(error)}`));
  }

  /**
   * Ends what this instance holds (server shutdown). Sessions in a shared
   * store live on: the other instances serve them, and the client reopens
   * its streams there.
   */
  async closeAll(): Promise<void> {
    this.unsubscribe();
    for (const session of this.stdio) session.live.close('The server is shutting down');
    this.stdio.clear();
    for (const id of [...this.live.keys()]) {
      if (this.bus.shared) this.endLive(id, 'The server is shutting down');
      else await this.end(id, 'The server is shutting down');
    }
  }
}
