/**
 * Records kept as Redis hashes of JSON-encoded fields (tasks, 2025 sessions):
 * a field per property, so a script can read or change one field alone.
 */

/**
 * Makes a record's hash unless its key is taken (a Redis Cluster creates tasks
 * and sessions step by step). KEYS: the hash. ARGV: PEXPIRE or PEXPIREAT, its
 * argument, then field/value pairs. Returns 1 when made, 0 when taken.
 */
export const MAKE_HASH = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call(ARGV[1], KEYS[1], ARGV[2])
return 1`;

/** A hash as HGETALL returns it: flat from a script, an object from the client. */
export type HashReply = string[] | Record<string, string> | null;

/** The fields of a hash, as [field, value] pairs. */
export function hashEntries(flat: HashReply): Array<[string, string]> {
  if (!flat) return [];
  if (!Array.isArray(flat)) return Object.entries(flat);
  const entries: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) entries.push([flat[i]!, flat[i + 1]!]);
  return entries;
}

/** A hash read back as the record it holds; undefined when empty. */
export function fromJsonHash<T>(flat: HashReply): T | undefined {
  const entries = hashEntries(flat);
  if (entries.length === 0) return undefined;
  // Every field is JSON this store wrote: the hash reads back as one JSON object.
  return JSON.parse(`{${entries.map(([field, json]) => `${JSON.stringify(field)}:${json}`).join(',')}}`) as T;
}
