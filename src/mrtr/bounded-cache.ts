/**
 * A memo that stops growing: what is made for a key is kept while the cache
 * has room, and made afresh (not kept) once it is full, so a flood of new
 * keys costs the work, never the memory.
 */
export function cachedIn<V>(cache: Map<string, V>, key: string, limit: number, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    if (cache.size < limit) cache.set(key, value);
  }
  return value;
}

export interface CacheLimits {
  /** Most entries held at once. */
  readonly entries: number;
  /** Most bytes held at once, as the entries weigh themselves; an entry heavier than this alone is made, never kept. */
  readonly bytes: number;
}

/**
 * A memo bounded in entries and in bytes, for values costly to make whose
 * keys may keep coming new: the least recently used entries make room, so a
 * flood of new keys costs the work and never the memory, and what is in use
 * stays.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private held = 0;

  constructor(readonly limits: CacheLimits) {}

  /** Entries held now. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes held now, as the entries weighed themselves. */
  get bytes(): number {
    return this.held;
  }

  /** The value kept for `key`, or `make`'s, kept at the weight `weigh` gives it (a throw keeps nothing). */
  get(key: string, make: () => V, weigh: (value: V) => number): V {
    const hit = this.entries.get(key);
    if (hit) {
      // Moved to the end: a Map iterates in insertion order, so its first entry is the least recently used.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const value = make();
    const bytes = weigh(value);
    if (bytes > this.limits.bytes) return value;
    while (this.entries.size > 0 && (this.entries.size >= this.limits.entries || this.held + bytes > this.limits.bytes)) {
      const [oldest, entry] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.held -= entry.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.held += bytes;
    return value;
  }
}
