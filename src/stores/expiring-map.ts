/**
 * A map whose entries expire, optionally bounded in size: the one memory
 * structure behind every in-memory store. Expired entries are dropped when
 * read and swept now and then on writes; no timer runs, so an idle process
 * (or a Worker) does no work for it.
 */

export interface ExpiringMapOptions<K, V> {
  /** Most entries held at once (default: unbounded). */
  maxEntries?: number;
  /** Milliseconds since the epoch; injectable for tests. */
  clock?: () => number;
  /** Told of every entry that expired or was evicted (not of deletes). */
  onDrop?: (key: K, value: V, why: 'expired' | 'evicted') => void;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
  /** When the entry was last read or written, for least-recently-used eviction. */
  usedAt: number;
}

const SWEEP_EVERY_MS = 10_000;

export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly maxEntries: number;
  private readonly clock: () => number;
  private readonly onDrop: ((key: K, value: V, why: 'expired' | 'evicted') => void) | undefined;
  private lastSweep = 0;

  constructor(options: ExpiringMapOptions<K, V> = {}) {
    this.maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
    this.clock = options.clock ?? (() => Date.now());
    this.onDrop = options.onDrop;
  }

  get size(): number {
    return this.entries.size;
  }

  now(): number {
    return this.clock();
  }

  /** The live value, or undefined (an expired entry is dropped). `refreshUntil` moves its expiry. */
  get(key: K, refreshUntil?: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = this.clock();
    if (entry.expiresAt <= now) {
      this.drop(key, entry, 'expired');
      return undefined;
    }
    entry.usedAt = now;
    if (refreshUntil !== undefined) entry.expiresAt = refreshUntil;
    return entry.value;
  }

  /**
   * Sets `key` until `expiresAt`. When the map is full it first drops expired
   * entries, then the least recently used one `evictable` allows; false when
   * none can go (the value is not stored).
   */
  set(key: K, value: V, expiresAt: number, evictable: (key: K, value: V) => boolean = () => false): boolean {
    const now = this.clock();
    if (now - this.lastSweep > SWEEP_EVERY_MS) this.sweep(now);
    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) {
      this.sweep(now);
      if (this.entries.size >= this.maxEntries && !this.evictOne(evictable)) return false;
    }
    this.entries.set(key, { value, expiresAt, usedAt: now });
    return true;
  }

  /** Whether `key` holds a live value, without counting as a use (an expired entry is dropped). */
  has(key: K): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    if (entry.expiresAt > this.clock()) return true;
    this.drop(key, entry, 'expired');
    return false;
  }

  /** Drops the least recently used entry `evictable` allows; false when there is none. */
  evict(evictable: (key: K, value: V) => boolean): boolean {
    return this.evictOne(evictable);
  }

  /** Sets `key` only when it holds no live value; false when it does (or the map is full). */
  setIfAbsent(key: K, value: V, expiresAt: number): boolean {
    if (this.get(key) !== undefined) return false;
    return this.set(key, value, expiresAt);
  }

  delete(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    return entry.value;
  }

  private evictOne(evictable: (key: K, value: V) => boolean): boolean {
    let oldest: [K, Entry<V>] | undefined;
    for (const pair of this.entries) {
      if (evictable(pair[0], pair[1].value) && (!oldest || pair[1].usedAt < oldest[1].usedAt)) oldest = pair;
    }
    if (!oldest) return false;
    this.drop(oldest[0], oldest[1], 'evicted');
    return true;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, entry] of [...this.entries]) if (entry.expiresAt <= now) this.drop(key, entry, 'expired');
  }

  private drop(key: K, entry: Entry<V>, why: 'expired' | 'evicted'): void {
    this.entries.delete(key);
    this.onDrop?.(key, entry.value, why);
  }
}
