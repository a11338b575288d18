/**
 * JWT access tokens (RFC 9068), verified locally: the signing keys come from
 * the issuer's `jwks_uri`, found through its metadata, kept as a remote
 * document (remote-document.ts: one fetch at a time, fetched again when old
 * or when a token names a key it does not have — a key rotation is picked up
 * without a restart — and after a failure not for `jwksCooldownMs`; the
 * document read within the size and time limits of http.ts). Only asymmetric
 * algorithms from an allow-list, never `none`, never HMAC (a public key used
 * as an HMAC secret is the classic forgery); `typ` must be `at+jwt`
 * (RFC 9068 §4); the issuer is checked before any key is fetched. A verified
 * token is remembered briefly so its signature is not checked on every request.
 */

import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { InvalidTokenError, TokenCheckUnavailableError } from './errors.js';
import { fetchJsonObject, secureUrl, type OutboundHttp } from './http.js';
import { IssuerMetadata } from './issuer-metadata.js';
import { RemoteDocument, type RefetchRules } from './remote-document.js';
import { TokenCache } from './token-cache.js';
import type { TokenVerifier, VerifyContext } from './token-verifier.js';

/** The default allow-list: asymmetric signatures only. */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA', 'Ed25519'];

export interface JwtAccessTokenOptions {
  /** Accepted signature algorithms (default: ES*, PS*, RS*, EdDSA). `none` and HS* are refused. */
  algorithms?: readonly string[];
  /** The key set URL, per issuer or for the only one (default: `jwks_uri` from the issuer's metadata). */
  jwksUri?: string | Readonly<Record<string, string>>;
  /** Require `typ: at+jwt` (RFC 9068 §4; default true). Turn off for authorization servers that put `JWT` there. */
  requireAccessTokenType?: boolean;
  /** How long a verified token is remembered, in ms (default 60000; 0 verifies every request). Never past its expiry. */
  cacheMs?: number;
  /** Most tokens remembered at once (default 10000). */
  maxCachedTokens?: number;
  /**
   * After a fetch of the key set or the metadata, how long before another may
   * be made, in ms (default 30000): a token naming a key the set does not
   * have triggers at most one fetch per this time, and after a failed fetch
   * requests get 503 with Retry-After until it has passed.
   */
  jwksCooldownMs?: number;
  /** How long a key set is used before it is fetched again, in ms (default 600000). */
  jwksMaxAgeMs?: number;
  /** Timeout of every call to the authorization server, in ms (default 5000). */
  timeoutMs?: number;
  /** Allow plain http to hosts other than loopback (never in production). */
  allowInsecureHttp?: boolean;
  fetch?: typeof fetch;
}

/** What jose's error codes mean for the caller: the token's fault (401), or a check that could not be made (503). */
function verdict(error: unknown): Error {
  if (error instanceof joseErrors.JWTExpired) return new InvalidTokenError('The access token expired', { cause: error });
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    const what = error.claim === 'typ' ? 'Its typ header is not at+jwt (RFC 9068)' : `Its "${error.claim}" claim ${error.reason === 'missing' ? 'is missing' : 'is not acceptable'}`;
    return new InvalidTokenError(`The access token was refused: ${what}`, { cause: error });
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return new InvalidTokenError('The access token signature does not verify', { cause: error });
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) {
    return new InvalidTokenError("The access token is signed with a key its issuer's key set does not have", { cause: error });
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported) {
    return new InvalidTokenError('The access token is signed with an algorithm this server does not accept', { cause: error });
  }
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid || error instanceof joseErrors.JWKInvalid) {
    return new InvalidTokenError('The access token is not a well-formed JWT', { cause: error });
  }
  if (error instanceof InvalidTokenError || error instanceof TokenCheckUnavailableError) return error;
  // The key set could not be used (jose found no usable keys in it).
  return new TokenCheckUnavailableError(`The issuer's keys could not be used: ${(error as Error).message}`, { cause: error });
}

/** An issuer's key set: the keys of the document kept, and once more from a newer one for a key they lack. */
class KeySet {
  private readonly document: RemoteDocument<JWTVerifyGetKey>;

  /** `url`: where the set is, asked on every fetch (found through the metadata, which has its own back-off). */
  constructor(url: () => Promise<string>, http: OutboundHttp, rules: RefetchRules) {
    this.document = new RemoteDocument(async () => {
      const at = await url();
      const keys = await fetchJsonObject(at, { headers: { accept: 'application/jwk-set+json, application/json' } }, http);
      try {
        return createLocalJWKSet(keys as unknown as JSONWebKeySet);
      } catch (error) {
        throw new TokenCheckUnavailableError(`The key set at ${at} is not a JWK Set`, { cause: error });
      }
    }, rules);
  }

  /** The key for a token's header (jwtVerify's key function), at `now`. */
  async keyFor(now: () => number, ...token: Parameters<JWTVerifyGetKey>): Promise<Awaited<ReturnType<JWTVerifyGetKey>>> {
    try {
      return await (await this.document.get(now))(...token);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw error;
      const newer = this.document.refresh(now);
      if (!newer) throw error;
      return (await newer)(...token);
    }
  }
}

class JwtAccessTokenVerifier implements TokenVerifier {
  private readonly algorithms: string[];
  private readonly http: OutboundHttp;
  private readonly metadata: IssuerMetadata;
  private readonly rules: RefetchRules;
  private readonly keySets = new Map<string, KeySet>();
  private cache: TokenCache<Readonly<Record<string, unknown>>> | undefined;

  constructor(private readonly options: JwtAccessTokenOptions) {
    this.algorithms = [...(options.algorithms ?? ASYMMETRIC_ALGORITHMS)];
    for (const alg of this.algorithms) {
      if (alg === 'none' || /^HS/i.test(alg)) throw new TypeError(`jwtAccessTokens: algorithm ${alg} cannot be verified with an authorization server's public keys`);
    }
    this.http = { fetch: options.fetch ?? fetch, timeoutMs: options.timeoutMs ?? 5000, allowInsecureHttp: options.allowInsecureHttp ?? false };
    this.rules = { maxAgeMs: options.jwksMaxAgeMs ?? 600_000, retryMs: options.jwksCooldownMs ?? 30_000 };
    this.metadata = new IssuerMetadata(this.http, this.rules.retryMs);
    const configured = options.jwksUri;
    for (const url of typeof configured === 'string' ? [configured] : Object.values(configured ?? {})) secureUrl(url, this.http, 'jwtAccessTokens: jwksUri');
  }

  async verify(token: string, context: VerifyContext): Promise<Readonly<Record<string, unknown>>> {
    this.cache ??= new TokenCache(this.options.cacheMs ?? 60_000, this.options.maxCachedTokens ?? 10_000, () => context.now());
    const known = this.cache.get(token);
    if (known) return known;

    // Unverified, only to choose the keys: nothing is fetched for an issuer this server does not trust, nor for an algorithm it refuses.
    let issuer: unknown;
    let alg: unknown;
    try {
      issuer = decodeJwt(token).iss;
      alg = decodeProtectedHeader(token).alg;
    } catch (error) {
      throw new InvalidTokenError('The access token is not a well-formed JWT', { cause: error });
    }
    if (typeof alg !== 'string' || !this.algorithms.includes(alg)) throw new InvalidTokenError('The access token is signed with an algorithm this server does not accept');
    if (typeof issuer !== 'string' || !context.issuers.includes(issuer)) throw new InvalidTokenError('The access token is from an issuer this server does not trust');

    const keys = this.keySet(issuer, context);
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, (header, jws) => keys.keyFor(context.now, header, jws), {
        issuer,
        algorithms: this.algorithms,
        ...(this.options.requireAccessTokenType === false ? {} : { typ: 'at+jwt' }),
        clockTolerance: context.clockToleranceSeconds,
        requiredClaims: ['iss', 'aud', 'exp'],
        currentDate: new Date(context.now()),
      }));
    } catch (error) {
      throw verdict(error);
    }
    const claims = Object.freeze(payload);
    this.cache.set(token, claims, (payload.exp as number) * 1000);
    return claims;
  }

  /** The key set of a trusted issuer, made once: concurrent first tokens share it, and so its one fetch. */
  private keySet(issuer: string, context: VerifyContext): KeySet {
    let keys = this.keySets.get(issuer);
    if (!keys) {
      const configured = this.options.jwksUri;
      const given = typeof configured === 'string' ? configured : configured?.[issuer];
      const url = given !== undefined ? async () => secureUrl(given, this.http, `The key set of ${issuer}`).href : () => this.metadata.endpoint(issuer, 'jwks_uri', context.now);
      keys = new KeySet(url, this.http, this.rules);
      this.keySets.set(issuer, keys);
    }
    return keys;
  }
}

/** Verifies JWT access tokens (RFC 9068) from the trusted issuers against their published keys. */
export function jwtAccessTokens(options: JwtAccessTokenOptions = {}): TokenVerifier {
  return new JwtAccessTokenVerifier(options);
}
