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
