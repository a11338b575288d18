/**
 * Opaque, stable cursors for the list methods. A cursor names the first item
 * of the next page (not an offset), so it survives on any instance that has the
 * same list, and a list that changed under it fails clearly with -32602.
 */

import { McpError } from '../protocol/errors.js';
import { base64ToUtf8, utf8ToBase64 } from '../protocol/base64.js';

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

function encodeCursor(list: string, key: string): string {
  return utf8ToBase64(JSON.stringify([list, key]));
}

function decodeCursor(list: string, cursor: string): string {
  try {
    const decoded: unknown = JSON.parse(base64ToUtf8(cursor));
    if (Array.isArray(decoded) && decoded[0] === list && typeof decoded[1] === 'string') return decoded[1];
  } catch {
    // fall through
  }
  throw McpError.invalidParams('Invalid params: the cursor is invalid or expired');
}

/** Returns one page of `items`; `keyOf` gives each item's stable key. */
export function paginate<T>(
  list: string,
  items: readonly T[],
  keyOf: (item: T) => string,
  cursor: unknown,
  pageSize: number,
): Page<T> {
  let start = 0;
  if (cursor !== undefined) {
    if (typeof cursor !== 'string') throw McpError.invalidParams('Invalid params: cursor must be a string');
    const key = decodeCursor(list, cursor);
    start = items.findIndex((item) => keyOf(item) === key);
    if (start < 0) throw McpError.invalidParams('Invalid params: the cursor is invalid or expired');
  }
  if (start === 0 && items.length <= pageSize) return { items: items as T[] };
  const end = start + pageSize;
  const page: Page<T> = { items: items.slice(start, end) };
  const next = items[end];
  if (next !== undefined) page.nextCursor = encodeCursor(list, keyOf(next));
  return page;
}
