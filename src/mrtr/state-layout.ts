/**
 * The bytes inside a t2 requestState, before sealing: a compact binary head
 * with the expiry and the claims, then the ledger as UTF-8 JSON.
 *
 *     flags(1) ‖ expiry(6) ‖ [generation] ‖ method ‖ target ‖ arguments ‖ principal ‖ audience(8) ‖ ledger
 *
 * - flags: bit 0 set when a generation follows the expiry; the other bits are
 *   reserved (a head with any of them set is refused)
 * - expiry: milliseconds since the epoch, 48-bit big-endian
 * - generation: one length byte and the bytes of the redemption store's
 *   generation (base64url decoded) when the state was sealed
 *   (stores/redemption-store.ts); a redemption under another one is refused.
 *   States sealed before generations existed have flags 0.
 * - method: one byte for the three methods that carry state, or 0 and a string
 * - target: a string (tool name, prompt name or resource URI)
 * - arguments: the digest's bytes (base64url decoded; for Tessera's 22-character
 *   digests, their first 128 bits), or a string when it is not base64url
 * - principal: 0 for anonymous, else 16 and the first 16 bytes of its SHA-256
 * - audience: the first 8 bytes of its SHA-256 (chosen by operators, not callers)
 *
 * Strings are a varint length and UTF-8. The head is encrypted and
 * authenticated with the ledger, so the client can neither read nor change
 * it; comparing each field with the one the retry would have made keeps a
 * precise reason for every refusal.
 */

import type { CryptoPort } from '../platform/crypto-port.js';

export const HEAD_FIXED_BYTES = 7;
const AUDIENCE_BYTES = 8;
const PRINCIPAL_BYTES = 16;
/** Flag bit 0: a store generation follows the expiry. */
export const GENERATION_FLAG = 1;
/** Longest generation a head carries, in bytes (one length byte). */
export const GENERATION_MAX_BYTES = 255;

const METHOD_CODES: Record<string, number> = { 'tools/call': 1, 'prompts/get': 2, 'resources/read': 3 };
const METHOD_NAMES = ['', 'tools/call', 'prompts/get', 'resources/read'];

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The claims as the fields of the head, each self-delimiting, comparable byte for byte. */
export interface ClaimFields {
  method: Uint8Array;
  target: Uint8Array;
  args: Uint8Array;
  principal: Uint8Array;
  audience: Uint8Array;
}

/** [marker ‖] varint length ‖ bytes, written straight into one array (args are made afresh for every seal and open). */
function withLength(marker: number | undefined, bytes: Uint8Array): Uint8Array {
  let lengthBytes = 1;
  for (let rest = bytes.length; rest >= 0x80; rest >>>= 7) lengthBytes++;
  const out = new Uint8Array((marker === undefined ? 0 : 1) + lengthBytes + bytes.length);
  let at = 0;
  if (marker !== undefined) out[at++] = marker;
  let rest = bytes.length;
  while (rest >= 0x80) {
    out[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  out[at++] = rest;
  out.set(bytes, at);
  return out;
}

export function methodField(method: string): Uint8Array {
  const code = METHOD_CODES[method];
  return code !== undefined ? Uint8Array.of(code) : withLength(0, encoder.encode(method));
}

export function targetField(target: string): Uint8Array {
  return withLength(undefined, encoder.encode(target));
}

/** 1 and the decoded bytes for base64url (not of a length base64url cannot have), else 0 and the UTF-8 string. */
export function argsField(args: string, crypto: CryptoPort): Uint8Array {
  if (BASE64URL.test(args) && args.length % 4 !== 1) return withLength(1, crypto.base64urlDecode(args));
  return withLength(0, encoder.encode(args));
}

export async function principalField(principal: string, crypto: CryptoPort): Promise<Uint8Array> {
  if (principal === '') return Uint8Array.of(0);
  const out = new Uint8Array(1 + PRINCIPAL_BYTES);
  out[0] = PRINCIPAL_BYTES;
  out.set((await crypto.sha256(principal)).subarray(0, PRINCIPAL_BYTES), 1);
  return out;
}

export async function audienceField(audience: string, crypto: CryptoPort): Promise<Uint8Array> {
  return (await crypto.sha256(audience)).slice(0, AUDIENCE_BYTES);
}

/**
 * The generation as it goes in a head: its length byte and its bytes. It must
 * be canonical base64url of 1 to GENERATION_MAX_BYTES bytes, so that the
 * bytes read back as the very same string.
 */
export function generationField(generation: string, crypto: CryptoPort): Uint8Array {
  const bytes = BASE64URL.test(generation) && generation.length % 4 !== 1 ? crypto.base64urlDecode(generation) : undefined;
  if (!bytes || bytes.length > GENERATION_MAX_BYTES || crypto.base64urlEncode(bytes) !== generation) {
    throw new TypeError(`A redemption store's generation must be canonical base64url of 1 to ${GENERATION_MAX_BYTES} bytes (such as 8 characters for 48 random bits), not ${JSON.stringify(generation)}`);
  }
  const field = new Uint8Array(1 + bytes.length);
  field[0] = bytes.length;
  field.set(bytes, 1);
  return field;
}

/** flags ‖ expiry ‖ [generation] ‖ the claim fields, ready to go in front of the ledger. */
export function encodeHead(expiresAt: number, fields: ClaimFields, generation?: Uint8Array): Uint8Array {
  const parts = [fields.method, fields.target, fields.args, fields.principal, fields.audience];
  if (generation) parts.unshift(generation);
  let size = HEAD_FIXED_BYTES;
  for (const part of parts) size += part.length;
  const head = new Uint8Array(size);
  head[0] = generation ? GENERATION_FLAG : 0;
  // 48-bit big-endian: the high 16 bits, then the low 32.
  const high = Math.floor(expiresAt / 2 ** 32);
  const low = expiresAt >>> 0;
  head[1] = high >>> 8;
  head[2] = high & 0xff;
  head[3] = low >>> 24;
  head[4] = (low >>> 16) & 0xff;
  head[5] = (low >>> 8) & 0xff;
  head[6] = low & 0xff;
  let offset = HEAD_FIXED_BYTES;
  for (const part of parts) {
    head.set(part, offset);
    offset += part.length;
  }
  return head;
}

/** Where each field of a decoded head lies in the plaintext, and where the ledger starts. */
export interface DecodedHead {
  flags: number;
  expiresAt: number;
  /** The bytes of the store generation the state was sealed under, when it carries one. */
  generation?: Uint8Array;
  fields: ClaimFields;
  ledgerStart: number;
}

/** Reads a varint-prefixed run at `offset` (after `skip` marker bytes); its end, or -1 past the buffer. */
function prefixedEnd(bytes: Uint8Array, offset: number, skip: number): number {
  let at = offset + skip;
  let length = 0;
  for (let shift = 0; shift < 21; shift += 7) {
    if (at >= bytes.length) return -1;
    const byte = bytes[at++]!;
    length |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return at + length <= bytes.length ? at + length : -1;
  }
  return -1;
}

/** The head of an opened plaintext; undefined when it is cut short (never for what we sealed). */
export function decodeHead(bytes: Uint8Array): DecodedHead | undefined {
  if (bytes.length < HEAD_FIXED_BYTES + 1) return undefined;
  const expiresAt = (bytes[1]! * 256 + bytes[2]!) * 2 ** 32 + ((bytes[3]! << 24) >>> 0) + (bytes[4]! << 16) + (bytes[5]! << 8) + bytes[6]!;
  let offset = HEAD_FIXED_BYTES;
  let generation: Uint8Array | undefined;
  if ((bytes[0]! & GENERATION_FLAG) !== 0) {
    const end = offset + 1 + bytes[offset]!;
    if (bytes[offset] === 0 || end >= bytes.length) return undefined;
    generation = bytes.subarray(offset + 1, end);
    offset = end;
  }
  const claimsStart = offset;
  const methodEnd = bytes[offset] === 0 ? prefixedEnd(bytes, offset, 1) : offset + 1;
  if (methodEnd < 0) return undefined;
  const targetEnd = prefixedEnd(bytes, methodEnd, 0);
  if (targetEnd < 0) return undefined;
  const argsEnd = prefixedEnd(bytes, targetEnd, 1);
  if (argsEnd < 0) return undefined;
  const principalEnd = argsEnd + 1 + (bytes[argsEnd] ?? 0);
  const audienceEnd = principalEnd + AUDIENCE_BYTES;
  if (argsEnd >= bytes.length || audienceEnd > bytes.length) return undefined;
  const head: DecodedHead = {
    flags: bytes[0]!,
    expiresAt,
    fields: {
      method: bytes.subarray(claimsStart, methodEnd),
      target: bytes.subarray(methodEnd, targetEnd),
      args: bytes.subarray(targetEnd, argsEnd),
      principal: bytes.subarray(argsEnd, principalEnd),
      audience: bytes.subarray(principalEnd, audienceEnd),
    },
    ledgerStart: audienceEnd,
  };
  if (generation !== undefined) head.generation = generation;
  return head;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A method or target field back as text, for the log line of a refusal. */
export function fieldText(field: Uint8Array, kind: 'method' | 'target'): string {
  if (kind === 'method' && field.length === 1) return METHOD_NAMES[field[0]!] ?? `method #${field[0]}`;
  let at = kind === 'method' ? 1 : 0;
  while (at < field.length && (field[at]! & 0x80) !== 0) at++; // the varint's continuation bytes
  return decoder.decode(field.subarray(at + 1));
}

export function ledgerText(bytes: Uint8Array, start: number): string {
  return decoder.decode(bytes.subarray(start));
}
