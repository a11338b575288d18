/**
 * HTTP sessions of this instance, bounded in number and ended when idle.
 * Sessions are per instance: a request for a session another instance made
 * gets 404 with a message that says so (the 2025 client then initializes again).
 */

import { randomUUID } from 'node:crypto';
import type { LegacySession } from './session.js';

export interface SessionLimits {
  /** Most sessions held at once (default 1000). */
  maxSessions?: number;
  /** A session with nothing in flight and no open stream ends after this long (default 30 minutes). */
  idleTimeoutMs?: number;
}

export class SessionStore {
  private readonly sessions = new Map<string, LegacySession>();
  private readonly maxSessions: number;
  private readonly idleTimeoutMs: number;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(limits: SessionLimits = {}) {
    this.maxSessions = limits.maxSessions ?? 1000;
    this.idleTimeoutMs = limits.idleTimeoutMs ?? 30 * 60_000;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A fresh, unguessable session id (visible ASCII, as the 2025 spec asks). */
  newId(): string {
    return randomUUID();
  }

  /**
   * Adds a session, making room by ending the least recently used idle one
   * when full; false when every session is busy.
   */
  add(session: LegacySession): boolean {
    if (this.sessions.size >= this.maxSessions) {
      let oldest: LegacySession | undefined;
      for (const candidate of this.sessions.values()) {
        if (candidate.idle && (!oldest || candidate.lastActivity < oldest.lastActivity)) oldest = candidate;
      }
      if (!oldest) return false;
      this.end(oldest.id, 'The session was ended to make room for a new one');
    }
    this.sessions.set(session.id, session);
    this.startSweeping();
    return true;
  }

  get(id: string): LegacySession | undefined {
    const session = this.sessions.get(id);
    session?.touch();
    return session;
  }

  end(id: string, reason = 'The session ended'): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    session.close(reason);
    if (this.sessions.size === 0) this.stopSweeping();
    return true;
  }

  all(): IterableIterator<LegacySession> {
    return this.sessions.values();
  }

  /** Ends every session (server shutdown). */
  clear(): void {
    for (const id of [...this.sessions.keys()]) this.end(id, 'The server is shutting down');
  }

  private startSweeping(): void {
    if (this.sweeper) return;
    const every = Math.max(1000, Math.min(60_000, this.idleTimeoutMs / 2));
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref?.();
  }

  private stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleTimeoutMs;
    for (const session of [...this.sessions.values()]) {
      if (session.idle && session.lastActivity < cutoff) this.end(session.id, 'The session was idle too long');
    }
  }
}
