/**
 * Records kept as Redis hashes of JSON-encoded fields (tasks, 2025 sessions):
 * a field per property, so a script can read or change one field alone.
 */

/** A hash as HGETALL returns it (flat from a script, an object from the client), read back as the record; undefined when empty. */
export function fromJsonHash<T>(flat: string[] | Record<string, string> | null): T | undefined {
  if (!flat) return undefined;
  const entries: Array<[string, string]> = Array.isArray(flat) ? [] : Object.entries(flat);
  if (Array.isArray(flat)) for (let i = 0; i + 1 < flat.length; i += 2) entries.push([flat[i]!, flat[i + 1]!]);
  if (entries.length === 0) return undefined;
  // Every field is JSON this store wrote: the hash reads back as one JSON object.
  return JSON.parse(`{${entries.map(([field, json]) => `${JSON.stringify(field)}:${json}`).join(',')}}`) as T;
}
