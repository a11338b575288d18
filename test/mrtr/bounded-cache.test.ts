/**
 * The memo bounded in entries and bytes behind resolved form schemas: it never
 * holds more than either bound, the least recently used entry goes first, an
 * entry heavier than the whole byte bound is made but never kept, and a make
 * that throws keeps nothing.
 */

import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../src/mrtr/bounded-cache.js';

/** A cache whose values are their keys, each weighing what `weights` says (default 1). */
function cacheOf(limits: { entries: number; bytes: number }, weights: Record<string, number> = {}) {
  const cache = new BoundedCache<string>(limits);
  const made: string[] = [];
  const get = (key: string): string =>
    cache.get(
      key,
      () => {
        made.push(key);
        return key;
      },
      () => weights[key] ?? 1,
    );
  return { cache, made, get };
}

describe('BoundedCache', () => {
  it('makes a value once while it is kept', () => {
    const { cache, made, get } = cacheOf({ entries: 3, bytes: 100 });
    expect([get('a'), get('a'), get('b'), get('a')]).toEqual(['a', 'a', 'b', 'a']);
    expect(made).toEqual(['a', 'b']);
    expect({ size: cache.size, bytes: cache.bytes }).toEqual({ size: 2, bytes: 2 });
  });

  it('holds at most its entries, dropping the least recently used', () => {
    const { cache, made, get } = cacheOf({ entries: 2, bytes: 100 });
    get('a');
    get('b');
    get('a'); // a is now more recent than b
    get('c'); // b goes
    get('a');
    get('b');
    expect(made).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.size).toBe(2);
  });

  it('holds at most its bytes, dropping as many of the least recently used as it takes', () => {
    const { cache, made, get } = cacheOf({ entries: 10, bytes: 10 }, { a: 4, b: 4, c: 2, big: 9 });
    get('a');
    get('b');
    get('c');
    expect(cache.bytes).toBe(10);
    get('big'); // a, b and c all go
    expect({ size: cache.size, bytes: cache.bytes }).toEqual({ size: 1, bytes: 9 });
    get('c'); // too heavy beside big: big goes
    expect({ size: cache.size, bytes: cache.bytes }).toEqual({ size: 1, bytes: 2 });
    expect(made).toEqual(['a', 'b', 'c', 'big', 'c']);
  });

  it('never keeps an entry heavier than its whole byte bound, and drops nothing for it', () => {
    const { cache, made, get } = cacheOf({ entries: 10, bytes: 10 }, { huge: 11 });
    get('a');
    expect([get('huge'), get('huge')]).toEqual(['huge', 'huge']);
    expect(made).toEqual(['a', 'huge', 'huge']);
    expect({ size: cache.size, bytes: cache.bytes }).toEqual({ size: 1, bytes: 1 });
  });

  it('keeps nothing when making the value throws', () => {
    const cache = new BoundedCache<string>({ entries: 2, bytes: 10 });
    expect(() =>
      cache.get(
        'bad',
        () => {
          throw new TypeError('not a schema');
        },
        () => 1,
      ),
    ).toThrow('not a schema');
    expect(cache.size).toBe(0);
  });
});
