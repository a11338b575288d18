/**
 * Sealing `requestState`: AES-256-GCM over a JSON payload that carries the
 * flow's data and the claims it is bound to. The client only ever sees
 *
 *     t1.<key id>.<base64url(iv ‖ ciphertext ‖ tag)>
 *
 * with the version and key id as associated data. On a retry every claim is
 * checked: expiry, method, target, a digest of the arguments, principal and
 * audience. A failure reports its precise reason to the caller (for the server
 * log); the client only ever gets one fixed error.
 */

import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import type { KeyRing } from './keyring.js';

/** What a state is bound to: the request it was issued for and who made it. */
export interface StateClaims {
  method: string;
  /** Tool name, prompt name or resource URI. */
  target: string;
  /** Digest of the request's arguments. */
  args: string;
  /** The authenticated principal; '' when anonymous. */
  principal: string;
  /** The server (or cluster) the state was issued by. */
  audience: string;
}

interface Payload<D> {
  v: 1;
  iat: number;
  exp: number;
  mth: string;
  tgt: string;
  arg: string;
  sub: string;
  aud: string;
  d: D;
}

export interface OpenedState<D> {
  data: D;
  /** Unique per sealing (the IV), for single-use redemption. */
  id: string;
  expiresAt: number;
}

export type OpenResult<D> = { ok: true; state: OpenedState<D> } | { ok: false; reason: string };

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
}

const VERSION = 't1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Random IVs drawn from a pool filled 512 at a time: one call into the system
 * RNG per seal costs more than the rest of the random work.
 */
const IV_POOL_SIZE = 512 * IV_BYTES;
let ivPool = Buffer.alloc(0);
let ivOffset = IV_POOL_SIZE;
function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafe(IV_POOL_SIZE));
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
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

  constructor(options: SealerOptions) {
    this.keys = options.keys;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024;
    this.clock = options.clock ?? Date.now;
  }

  seal<D>(claims: StateClaims, data: D): string {
    const key = this.keys.sealing;
    const now = this.clock();
    const payload: Payload<D> = {
      v: 1,
      iat: now,
      exp: now + this.ttlMs,
      mth: claims.method,
      tgt: claims.target,
      arg: claims.args,
      sub: claims.principal,
      aud: claims.audience,
      d: data,
    };
    const header = `${VERSION}.${key.id}`;
    const iv = nextIv();
    const cipher = createCipheriv('aes-256-gcm', key.secret, iv);
    cipher.setAAD(Buffer.from(header));
    const body = Buffer.concat([iv, cipher.update(JSON.stringify(payload), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const token = `${header}.${body.toString('base64url')}`;
    if (token.length > this.maxBytes) throw new StateTooLargeError(token.length, this.maxBytes);
    return token;
  }

  open<D>(token: unknown, claims: StateClaims): OpenResult<D> {
    if (typeof token !== 'string') return { ok: false, reason: 'requestState is not a string' };
    if (token.length > this.maxBytes) return { ok: false, reason: `requestState is ${token.length} bytes, over the ${this.maxBytes}-byte limit` };
    const [version, keyId, encoded, extra] = token.split('.');
    if (version !== VERSION || keyId === undefined || encoded === undefined || extra !== undefined) {
      return { ok: false, reason: 'requestState is not in the t1 format' };
    }
    const key = this.keys.find(keyId);
    if (!key) return { ok: false, reason: `requestState was sealed with unknown or retired key "${keyId}"` };
    if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return { ok: false, reason: 'requestState body is not base64url' };
    // Only the canonical encoding is accepted: a re-encoded state (other unused bits) is not the state we issued.
    if (!canonicalTail(encoded)) return { ok: false, reason: 'requestState body is not canonical base64url' };
    const body = Buffer.from(encoded, 'base64url');
    if (body.length < IV_BYTES + TAG_BYTES + 2) return { ok: false, reason: 'requestState is truncated' };
    let plain: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.secret, body.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(`${VERSION}.${keyId}`));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return { ok: false, reason: 'requestState failed authentication (tampered, truncated or forged)' };
    }
    let payload: Payload<D>;
    try {
      payload = JSON.parse(plain) as Payload<D>;
    } catch {
      return { ok: false, reason: 'requestState payload is not JSON' };
    }
    if (payload.v !== 1) return { ok: false, reason: `requestState payload version ${String(payload.v)} is unknown` };
    const now = this.clock();
    if (!(now < payload.exp)) return { ok: false, reason: `requestState expired ${now - payload.exp} ms ago` };
    if (payload.aud !== claims.audience) return { ok: false, reason: `requestState was issued by server "${payload.aud}", not "${claims.audience}"` };
    if (payload.sub !== claims.principal) return { ok: false, reason: 'requestState was issued to another principal' };
    if (payload.mth !== claims.method) return { ok: false, reason: `requestState was issued for ${payload.mth}, not ${claims.method}` };
    if (payload.tgt !== claims.target) return { ok: false, reason: `requestState was issued for "${payload.tgt}", not "${claims.target}"` };
    if (payload.arg !== claims.args) return { ok: false, reason: 'requestState was issued for other arguments' };
    return { ok: true, state: { data: payload.d, id: body.subarray(0, IV_BYTES).toString('base64url'), expiresAt: payload.exp } };
  }
}
