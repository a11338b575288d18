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

import { platformCrypto, type CryptoPort } from '../platform/crypto.js';
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

/**
 * Why a state was refused, in one word (for metrics and the request log; the
 * client never sees it): not a state of ours at all, too large, under a key
 * this server does not hold, failing authentication, expired, bound to
 * another server, principal, method, target or arguments, or already redeemed.
 */
export type StateRejection = 'malformed' | 'too_large' | 'unknown_key' | 'forged' | 'expired' | 'audience' | 'principal' | 'method' | 'target' | 'arguments' | 'redeemed';

export type OpenResult<D> = { ok: true; state: OpenedState<D> } | { ok: false; reason: string; rejection: StateRejection };

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

const VERSION = 't1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const encoder = new TextEncoder();

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
  /** The associated data (`t1.<key id>`) of each key, encoded once. */
  private readonly headers = new Map<string, Uint8Array>();

  constructor(options: SealerOptions) {
    this.keys = options.keys;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024;
    this.clock = options.clock ?? (() => Date.now());
    this.crypto = options.crypto ?? platformCrypto();
    this.ivs = new IvPool(this.crypto);
  }

  private header(keyId: string): Uint8Array {
    let header = this.headers.get(keyId);
    if (!header) {
      header = encoder.encode(`${VERSION}.${keyId}`);
      this.headers.set(keyId, header);
    }
    return header;
  }

  async seal<D>(claims: StateClaims, data: D): Promise<string> {
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
    const body = await this.crypto.aesGcmSealText(key.secret, this.ivs.next(), this.header(key.id), JSON.stringify(payload));
    const token = `${VERSION}.${key.id}.${body}`;
    if (token.length > this.maxBytes) throw new StateTooLargeError(token.length, this.maxBytes);
    return token;
  }

  async open<D>(token: unknown, claims: StateClaims): Promise<OpenResult<D>> {
    if (typeof token !== 'string') return { ok: false, reason: 'requestState is not a string', rejection: 'malformed' };
    if (token.length > this.maxBytes) return { ok: false, reason: `requestState is ${token.length} bytes, over the ${this.maxBytes}-byte limit`, rejection: 'too_large' };
    const [version, keyId, encoded, extra] = token.split('.');
    if (version !== VERSION || keyId === undefined || encoded === undefined || extra !== undefined) {
      return { ok: false, reason: 'requestState is not in the t1 format', rejection: 'malformed' };
    }
    const key = this.keys.find(keyId);
    if (!key) return { ok: false, reason: `requestState was sealed with unknown or retired key "${keyId}"`, rejection: 'unknown_key' };
    if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return { ok: false, reason: 'requestState body is not base64url', rejection: 'malformed' };
    // Only the canonical encoding is accepted: a re-encoded state (other unused bits) is not the state we issued.
    if (!canonicalTail(encoded)) return { ok: false, reason: 'requestState body is not canonical base64url', rejection: 'forged' };
    const body = this.crypto.base64urlDecode(encoded);
    if (body.length < IV_BYTES + TAG_BYTES + 2) return { ok: false, reason: 'requestState is truncated', rejection: 'forged' };
    const iv = body.subarray(0, IV_BYTES);
    const plain = await this.crypto.aesGcmOpenText(key.secret, iv, this.header(keyId), body.subarray(IV_BYTES));
    if (plain === undefined) return { ok: false, reason: 'requestState failed authentication (tampered, truncated or forged)', rejection: 'forged' };
    let payload: Payload<D>;
    try {
      payload = JSON.parse(plain) as Payload<D>;
    } catch {
      return { ok: false, reason: 'requestState payload is not JSON', rejection: 'malformed' };
    }
    if (payload.v !== 1) return { ok: false, reason: `requestState payload version ${String(payload.v)} is unknown`, rejection: 'malformed' };
    const now = this.clock();
    if (!(now < payload.exp)) return { ok: false, reason: `requestState expired ${now - payload.exp} ms ago`, rejection: 'expired' };
    if (payload.aud !== claims.audience) return { ok: false, reason: `requestState was issued by server "${payload.aud}", not "${claims.audience}"`, rejection: 'audience' };
    if (payload.sub !== claims.principal) return { ok: false, reason: 'requestState was issued to another principal', rejection: 'principal' };
    if (payload.mth !== claims.method) return { ok: false, reason: `requestState was issued for ${payload.mth}, not ${claims.method}`, rejection: 'method' };
    if (payload.tgt !== claims.target) return { ok: false, reason: `requestState was issued for "${payload.tgt}", not "${claims.target}"`, rejection: 'target' };
    if (payload.arg !== claims.args) return { ok: false, reason: 'requestState was issued for other arguments', rejection: 'arguments' };
    return { ok: true, state: { data: payload.d, id: this.crypto.base64urlEncode(iv), expiresAt: payload.exp } };
  }
}
