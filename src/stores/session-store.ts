/**
 * 2025-11-25 sessions as plain data: what `initialize` negotiated and what
 * the client set since (log level, resource subscriptions). What only lives
 * while a connection is open (a GET stream, requests in flight, server
 * requests awaiting answers) stays with the instance that holds it
 * (legacy/live-session.ts).
 */

import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import { ExpiringMap } from './expiring-map.js';

export interface SessionData {
  id: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** The client sent `notifications/initialized`. */
  initialized: boolean;
  logLevel?: LoggingLevel;
  /** `resources/subscribe` URIs. */
  subscriptions: string[];
  /** Who made the session (the principal of its `initialize`); anything else on it from another caller, or none, is refused. */
  principal?: string;
}

export type SessionPatch = Partial<Pick<SessionData, 'initialized' | 'logLevel' | 'subscriptions'>>;

export interface SessionStore {
  /** Adds a new session; false when the store is full and nothing could make room. */
  create(session: SessionData): Promise<boolean>;
  /** The session, or undefined when unknown, ended or idle too long; reading it counts as activity. */
  get(id: string): Promise<SessionData | undefined>;
  /** Applies `patch`; the updated session, or undefined when there is none. */
  update(id: string, patch: SessionPatch): Promise<SessionData | undefined>;
  /** Ends the session; false when there was none. */
  delete(id: string): Promise<boolean>;
}

export interface MemorySessionStoreOptions {
  /** Most sessions held at once (default 1000). */
  maxSessions?: number;
  /** A session unused this long ends (default 30 minutes). */
  idleTimeoutMs?: number;
  /**
   * Whether a session may be ended to make room for a new one; the least
   * recently used such session goes (default: none may, so a full store refuses).
   */
  evictable?: (id: string) => boolean;
  /** Told when a session ends by itself (idle, or evicted to make room). */
  onEnd?: (id: string, why: 'idle' | 'evicted') => void;
  clock?: () => number;
}

/** For one process. Several instances need a shared store, e.g. Redis (and a way to route answers, see the stores issue). */
export class MemorySessionStore implements SessionStore {
  private readonly sessions: ExpiringMap<string, SessionData>;
  private readonly idleTimeoutMs: number;
  private readonly evictable: (id: string) => boolean;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000;
    this.evictable = options.evictable ?? (() => false);
    const onEnd = options.onEnd;
    this.sessions = new ExpiringMap({
      maxEntries: options.maxSessions ?? 1000,
      clock: options.clock,
      onDrop: onEnd && ((id, _session, why) => onEnd(id, why === 'expired' ? 'idle' : 'evicted')),
    });
  }

  get size(): number {
    return this.sessions.size;
  }

  private idleUntil(): number {
    return this.sessions.now() + this.idleTimeoutMs;
  }

  create(session: SessionData): Promise<boolean> {
    return Promise.resolve(this.sessions.set(session.id, structuredClone(session), this.idleUntil(), (id) => this.evictable(id)));
  }

  get(id: string): Promise<SessionData | undefined> {
    const session = this.sessions.get(id, this.idleUntil());
    return Promise.resolve(session && structuredClone(session));
  }

  update(id: string, patch: SessionPatch): Promise<SessionData | undefined> {
    const session = this.sessions.get(id, this.idleUntil());
    if (!session) return Promise.resolve(undefined);
    Object.assign(session, structuredClone(patch));
    return Promise.resolve(structuredClone(session));
  }

  delete(id: string): Promise<boolean> {
    return Promise.resolve(this.sessions.delete(id) !== undefined);
  }
}
