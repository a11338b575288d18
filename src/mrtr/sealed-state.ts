/**
 * Sealing `requestState`: AES-256-GCM over a compact binary head (expiry and
 * the claims the state is bound to, see state-layout.ts) and the flow's data
 * as JSON. The client only ever sees
 *
 *     t2.<key id>.<base64url(iv ‖ ciphertext ‖ tag)>
 *
 * with the version and key id as associated data. On a retry every claim is
 * checked: expiry, method, target, a digest of the arguments, principal and
 * audience. A failure reports its precise reason to the caller (for the server
 * log); the client only ever gets one fixed error. A state may also carry the
 * redemption store's generation (not a claim: checked when it is redeemed).
 * t1 states (JSON inside, about a third larger) are still opened until they
 * expire, never sealed.
 */

import { platformCrypto, type CryptoPort } from '../platform/crypto.js';
import { cachedIn } from './bounded-cache.js';
import type { KeyRing } from './keyring.js';
import { checkV1Payload } from './sealed-state-v1.js';
import type { OpenedState, OpenResult, StateClaims } from './state-claims.js';
import {
  argsField,
  audienceField,
  decodeHead,
  encodeHead,
  fieldText,
  GENERATION_FLAG,
  generationField,
  ledgerText,
  methodField,
  principalField,
  sameBytes,
  targetField,
  type ClaimFields,
} from './state-layout.js';

export type { OpenedState, OpenResult, StateClaims, StateRejection } from './state-claims.js';

export class StateTooLargeError extends Error {
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(
      `The sealed requestState would be ${size} bytes, over the ${limit}-byte budget. ` +
        'Keep less in state (store large data server-side and keep a handle), or raise the state size limit.',
    );
    this.name = 'StateTooLargeError';
  }
}

export interface SealerOptions {
  keys: KeyRing;
  /** How long a sealed state stays valid (default 10 minutes). */
  ttlMs?: number;
  /** Largest sealed state, in bytes of its text form (default 64 KiB). */
  maxBytes?: number;
  /** Milliseconds since the epoch; injectable for tests. */
  clock?: () => number;
  /** The cryptography to use (default: the runtime's, see platform/crypto.ts). */
  crypto?: CryptoPort;
}

const VERSION = 't2';
const LEGACY_VERSION = 't1';
const IV_BYTES = 12;
/** 12 bytes are four whole base64 groups: the first 16 characters of a body are its IV's own base64url. */
const IV_TEXT_LENGTH = 16;
const TAG_BYTES = 16;
const encoder = new TextEncoder();
/** Per-value field caches stay this small: tool names, methods and audiences repeat; a flood of new ones is not cached. */
const CACHE_LIMIT = 256;

const FORGED = { ok: false, reason: 'requestState failed authentication (tampered, truncated or forged)', rejection: 'forged' } as const;

const cached = <V>(cache: Map<string, V>, key: string, make: () => V): V => cachedIn(cache, key, CACHE_LIMIT, make);

/** Whether a port's answer is still to come (WebCrypto) rather than already here (node:crypto). */
function pending<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

/**
 * A memo of a digest made asynchronously: the promise while it is pending,
 * the bytes once it has settled, so every later use goes without an await.
 */
function cachedDigest(cache: Map<string, Uint8Array | Promise<Uint8Array>>, key: string, make: () => Promise<Uint8Array>): Uint8Array | Promise<Uint8Array> {
  return cached(cache, key, () => {
    const digest = make();
    digest.then(
      (bytes) => {
        if (cache.get(key) === digest) cache.set(key, bytes);
      },
      () => undefined, // a failed digest stays cached as it is, and fails each use as before
    );
    return digest;
  });
}

/**
 * Random IVs drawn from a pool filled 512 at a time: one call into the system
 * RNG per seal costs more than the rest of the random work.
 */
class IvPool {
  private pool: Uint8Array = new Uint8Array(0);
  private offset = 0;
  constructor(private readonly crypto: CryptoPort) {}

  next(): Uint8Array {
    if (this.offset + IV_BYTES > this.pool.length) {
      this.pool = this.crypto.randomBytes(512 * IV_BYTES);
      this.offset = 0;
    }
    const iv = this.pool.subarray(this.offset, this.offset + IV_BYTES);
    this.offset += IV_BYTES;
    return iv;
  }
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether unpadded base64url is in its one canonical form: the bits of the last
 * character that carry no data are zero (a decoder ignores them, so other
 * values would spell the same bytes differently).
 */
function canonicalTail(encoded: string): boolean {
  const rest = encoded.length % 4;
  if (rest === 0) return true;
  if (rest === 1) return false;
  const last = BASE64URL.indexOf(encoded[encoded.length - 1]!);
  return (last & (rest === 2 ? 0b1111 : 0b11)) === 0;
}

export class StateSealer {
  readonly ttlMs: number;
  readonly maxBytes: number;
  private readonly keys: KeyRing;
  private readonly clock: () => number;
  private readonly crypto: CryptoPort;
  private readonly ivs: IvPool;
  /** The associated data (`t2.<key id>`, or t1 for old states) of each key, encoded once. */
  private readonly headers = new Map<string, Uint8Array>();
  private readonly methods = new Map<string, Uint8Array>();
  private readonly targets = new Map<string, Uint8Array>();
  private readonly principals = new Map<string, Uint8Array | Promise<Uint8Array>>();
  private readonly audiences = new Map<string, Uint8Array | Promise<Uint8Array>>();
  private readonly generations = new Map<string, Uint8Array>();

  constructor(options: SealerOptions) {
    this.keys = options.keys;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024;
    this.clock = options.clock ?? (() => Date.now());
    this.crypto = options.crypto ?? platformCrypto();
    this.ivs = new IvPool(this.crypto);
  }

  private header(version: string, keyId: string): Uint8Array {
    const text = `${version}.${keyId}`;
    let header = this.headers.get(text);
    if (!header) {
      header = encoder.encode(text);
      this.headers.set(text, header);
    }
    return header;
  }

  /**
   * The claims as head fields; the hashes of principal and audience are
   * remembered, not recomputed per request, and once remembered the fields
   * come without a Promise.
   */
  private fields(claims: StateClaims): ClaimFields | Promise<ClaimFields> {
    const crypto = this.crypto;
    const method = cached(this.methods, claims.method, () => methodField(claims.method));
    const target = cached(this.targets, claims.target, () => targetField(claims.target));
    const args = argsField(claims.args, crypto);
    const principal = cachedDigest(this.principals, claims.principal, () => principalField(claims.principal, crypto));
    const audience = cachedDigest(this.audiences, claims.audience, () => audienceField(claims.audience, crypto));
    if (pending(principal) || pending(audience)) {
      return Promise.all([principal, audience]).then(([principal, audience]) => ({ method, target, args, principal, audience }));
    }
    return { method, target, args, principal, audience };
  }

  /** Seals `data` bound to `claims`, under the redemption store's `generation` when it has one. */
  async seal<D>(claims: StateClaims, data: D, generation?: string): Promise<string> {
    const key = this.keys.sealing;
    const expiresAt = this.clock() + this.ttlMs;
    // Awaited only while a digest is first made (each await costs a turn of the microtask queue).
    const fields = this.fields(claims);
    const head = encodeHead(expiresAt, pending(fields) ? await fields : fields, generation === undefined ? undefined : cached(this.generations, generation, () => generationField(generation, this.crypto)));
    // undefined seals as no ledger at all, and opens as undefined again.
    const ledger = data === undefined ? '' : JSON.stringify(data);
    const sealed = this.crypto.aesGcmSeal(key.secret, this.ivs.next(), this.header(VERSION, key.id), head, ledger);
    const body = pending(sealed) ? await sealed : sealed;
    const token = `${VERSION}.${key.id}.${body}`;
    if (token.length > this.maxBytes) throw new StateTooLargeError(token.length, this.maxBytes);
    return token;
  }

  async open<D>(token: unknown, claims: StateClaims): Promise<OpenResult<D>> {
    if (typeof token !== 'string') return { ok: false, reason: 'requestState is not a string', rejection: 'malformed' };
    if (token.length > this.maxBytes) return { ok: false, reason: `requestState is ${token.length} bytes, over the ${this.maxBytes}-byte limit`, rejection: 'too_large' };
    // version.keyId.body, cut by index (split would make an array and a string per part).
    const afterVersion = token.indexOf('.');
    const afterKeyId = afterVersion < 0 ? -1 : token.indexOf('.', afterVersion + 1);
    const version = token.slice(0, afterVersion);
    if ((version !== VERSION && version !== LEGACY_VERSION) || afterKeyId < 0 || token.includes('.', afterKeyId + 1)) {
      return { ok: false, reason: 'requestState is not in the t2 format', rejection: 'malformed' };
    }
    const keyId = token.slice(afterVersion + 1, afterKeyId);
    const encoded = token.slice(afterKeyId + 1);
    const key = this.keys.find(keyId);
    if (!key) return { ok: false, reason: `requestState was sealed with unknown or retired key "${keyId}"`, rejection: 'unknown_key' };
    if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return { ok: false, reason: 'requestState body is not base64url', rejection: 'malformed' };
    // Only the canonical encoding is accepted: a re-encoded state (other unused bits) is not the state we issued.
    if (!canonicalTail(encoded)) return { ok: false, reason: 'requestState body is not canonical base64url', rejection: 'forged' };
    const body = this.crypto.base64urlDecode(encoded);
    if (body.length < IV_BYTES + TAG_BYTES + 2) return { ok: false, reason: 'requestState is truncated', rejection: 'forged' };
    const iv = body.subarray(0, IV_BYTES);
    const opened = this.crypto.aesGcmOpen(key.secret, iv, this.header(version, keyId), body.subarray(IV_BYTES));
    const plain = pending(opened) ? await opened : opened;
    if (plain === undefined) return FORGED;
    const id = encoded.slice(0, IV_TEXT_LENGTH);
    if (version === LEGACY_VERSION) return checkV1Payload<D>(ledgerText(plain, 0), claims, this.clock(), id);
    const head = decodeHead(plain);
    if (!head || (head.flags & ~GENERATION_FLAG) !== 0) return { ok: false, reason: 'requestState head is malformed', rejection: 'malformed' };
    const now = this.clock();
    if (!(now < head.expiresAt)) return { ok: false, reason: `requestState expired ${now - head.expiresAt} ms ago`, rejection: 'expired' };
    const fields = this.fields(claims);
    const expected = pending(fields) ? await fields : fields;
    const got = head.fields;
    if (!sameBytes(got.audience, expected.audience)) return { ok: false, reason: `requestState was issued by another server, not "${claims.audience}"`, rejection: 'audience' };
    if (!sameBytes(got.principal, expected.principal)) return { ok: false, reason: 'requestState was issued to another principal', rejection: 'principal' };
    if (!sameBytes(got.method, expected.method)) return { ok: false, reason: `requestState was issued for ${fieldText(got.method, 'method')}, not ${claims.method}`, rejection: 'method' };
    if (!sameBytes(got.target, expected.target)) return { ok: false, reason: `requestState was issued for "${fieldText(got.target, 'target')}", not "${claims.target}"`, rejection: 'target' };
    if (!sameBytes(got.args, expected.args)) return { ok: false, reason: 'requestState was issued for other arguments', rejection: 'arguments' };
    let data: D;
    try {
      data = (head.ledgerStart === plain.length ? undefined : JSON.parse(ledgerText(plain, head.ledgerStart))) as D;
    } catch {
      return { ok: false, reason: 'requestState ledger is not JSON', rejection: 'malformed' };
    }
    const state: OpenedState<D> = { data, id, expiresAt: head.expiresAt };
    if (head.generation !== undefined) state.generation = this.crypto.base64urlEncode(head.generation);
    return { ok: true, state };
  }
}
