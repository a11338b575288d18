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
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v, depth + 1))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], depth + 1)}`);
  return `{${entries.join(',')}}`;
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
