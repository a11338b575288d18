/**
 * What a verifier already decided about a token, for a short while: a JWT's
 * signature need not be checked again on every request, nor an opaque token
 * introspected again. Bounded (least recently used goes), and never longer
 * than the token lives.
 */

import { ExpiringMap } from '../../stores/expiring-map.js';

export class TokenCache<V> {
  private readonly entries: ExpiringMap<string, V>;

  constructor(
    private readonly ttlMs: number,
    maxEntries: number,
    private readonly clock: () => number,
  ) {
    this.entries = new ExpiringMap({ maxEntries, clock });
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get(token: string): V | undefined {
    return this.ttlMs > 0 ? this.entries.get(token) : undefined;
  }

  /** Keeps `value` for the cache's time, or until `notAfterMs` when that is sooner. */
  set(token: string, value: V, notAfterMs = Number.POSITIVE_INFINITY, ttlMs = this.ttlMs): void {
    if (this.ttlMs <= 0) return;
    const until = Math.min(this.clock() + ttlMs, notAfterMs);
    if (until > this.clock()) this.entries.set(token, value, until, () => true);
  }
}
