/** Canonical JSON and SHA-256 digests: the same value always gives the same digest, whatever its key order. */

import { platformCrypto } from '../platform/crypto.js';

/** JSON with object keys sorted at every level (undefined members dropped, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
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
