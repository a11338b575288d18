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

/** What `create` did: made the session, or refused it because its maker holds its share, or the store is full. */
export type SessionCreation = 'created' | 'principal-full' | 'store-full';

export interface SessionStore {
  /**
   * Adds a new session. A caller with a principal holds at most
   * `maxPerPrincipal` sessions ('principal-full' beyond); anonymous sessions
   * share the store's own bound ('store-full' when nothing could make room).
   */
  create(session: SessionData, maxPerPrincipal: number): Promise<SessionCreation>;
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
   * Whether a session has nothing going on (no request in flight, no open
   * stream), so that it may be ended to make room for a new one of the same
   * caller (default: none may, so a full store refuses). Only the newcomer's
   * own sessions ever go — for an anonymous newcomer only anonymous sessions
   * that never sent `notifications/initialized` (half-open handshakes) — so
   * a flood of `initialize` calls cannot end anyone else's session.
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
  /** The session ids of each principal, for its share (anonymous sessions are not counted here). */
  private readonly byPrincipal = new Map<string, Set<string>>();

  constructor(options: MemorySessionStoreOptions = {}) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000;
    this.evictable = options.evictable ?? (() => false);
    const onEnd = options.onEnd;
    this.sessions = new ExpiringMap({
      maxEntries: options.maxSessions ?? 1000,
      clock: options.clock,
      onDrop: (id, session, why) => {
        this.forget(id, session);
        onEnd?.(id, why === 'expired' ? 'idle' : 'evicted');
      },
    });
  }

  get size(): number {
    return this.sessions.size;
  }

  private idleUntil(): number {
    return this.sessions.now() + this.idleTimeoutMs;
  }

  create(session: SessionData, maxPerPrincipal: number): Promise<SessionCreation> {
    // Room is only ever made from the newcomer's own idle sessions (see `evictable`).
    const mayGo = (id: string, other: SessionData): boolean =>
      other.principal === session.principal && (other.principal !== undefined || !other.initialized) && this.evictable(id);
    const principal = session.principal;
    if (principal !== undefined) {
      const mine = this.byPrincipal.get(principal) ?? new Set<string>();
      for (const id of mine) if (!this.sessions.has(id)) mine.delete(id);
      if (mine.size >= maxPerPrincipal && !this.sessions.evict(mayGo)) return Promise.resolve('principal-full');
    }
    if (!this.sessions.set(session.id, structuredClone(session), this.idleUntil(), mayGo)) return Promise.resolve('store-full');
    if (principal !== undefined) this.byPrincipal.set(principal, (this.byPrincipal.get(principal) ?? new Set()).add(session.id));
    return Promise.resolve('created');
  }

  private forget(id: string, session: SessionData): void {
    if (session.principal === undefined) return;
    const mine = this.byPrincipal.get(session.principal);
    mine?.delete(id);
    if (mine?.size === 0) this.byPrincipal.delete(session.principal);
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
    const session = this.sessions.delete(id);
    if (session) this.forget(id, session);
    return Promise.resolve(session !== undefined);
  }
}
