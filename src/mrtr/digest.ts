/** Canonical JSON and SHA-256 digests: the same value always gives the same digest, whatever its key order. */

import { platformCrypto } from '../platform/crypto.js';
import { McpError } from '../protocol/errors.js';
import { cachedIn } from './bounded-cache.js';

/** Deepest nesting a digested value may have (arguments come from clients; the stack must not be theirs to exhaust). */
export const MAX_DIGEST_DEPTH = 256;

/**
 * JSON with object keys sorted at every level (undefined members dropped, as
 * JSON.stringify does). A value nested deeper than MAX_DIGEST_DEPTH is -32602.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_DIGEST_DEPTH) throw McpError.invalidParams(`Invalid params: the value nests deeper than ${MAX_DIGEST_DEPTH} levels`);
  // Loops, not map/filter callbacks: this runs over every argument of every round.
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + (value[i] === undefined ? 'null' : canonicalJson(value[i], depth + 1));
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  out = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(member, depth + 1)}`;
  }
  return `${out}}`;
}

/** base64url SHA-256 of the canonical JSON, shortened to `length` characters. */
export function digestOf(value: unknown, length = 22): Promise<string> {
  return digestOfText(canonicalJson(value), length);
}

/** base64url SHA-256 of a text, shortened to `length` characters. */
export async function digestOfText(text: string, length = 22): Promise<string> {
  return (await platformCrypto().sha256Base64url(text)).slice(0, length);
}

/** At most this many remembered question digests, each of a text at most QUESTION_CACHE_TEXT long. */
const QUESTION_CACHE_ENTRIES = 512;
const QUESTION_CACHE_TEXT = 4096;
const questionDigests = new Map<string, Promise<string>>();

/**
 * digestOfText for the server's own questions, remembered: a handler asks
 * the same questions in every round and every flow, so each is hashed once
 * (bounded like the sealer's field caches; long texts never kept).
 */
export function rememberedDigestOfText(text: string): Promise<string> {
  return text.length <= QUESTION_CACHE_TEXT ? cachedIn(questionDigests, text, QUESTION_CACHE_ENTRIES, () => digestOfText(text)) : digestOfText(text);
}
