/**
 * Opaque access tokens, checked by asking their issuer (RFC 7662): the
 * resource server authenticates as a client of the authorization server
 * (`client_secret_basic`) and posts the token to its introspection endpoint
 * (from the metadata, or given). An active token's response is its claims.
 * Answers are remembered briefly — an active one never past its expiry, an
 * inactive one for less — so a busy client does not cost a call per request.
 */

import { InvalidTokenError, TokenCheckUnavailableError } from './errors.js';
import { fetchJsonObject, secureUrl, type OutboundHttp } from './http.js';
import { IssuerMetadata } from './issuer-metadata.js';
import { TokenCache } from './token-cache.js';
import type { TokenVerifier, VerifyContext } from './token-verifier.js';

export interface TokenIntrospectionOptions {
  /** This resource server's client id at the authorization server. */
  clientId: string;
  clientSecret: string;
  /** The introspection endpoint (default: `introspection_endpoint` from the issuer's metadata; needs a single issuer). */
  endpoint?: string;
  /** How long an answer is remembered, in ms (default 30000; 0 asks every time). Never past the token's expiry. */
  cacheMs?: number;
  /** How long an inactive answer is remembered, in ms (default 5000, at most `cacheMs`). */
  inactiveCacheMs?: number;
  /** Most answers remembered at once (default 10000). */
  maxCachedTokens?: number;
  timeoutMs?: number;
  allowInsecureHttp?: boolean;
  fetch?: typeof fetch;
}

/** After a failed fetch of the issuer's metadata, how long before another, in ms. */
const METADATA_RETRY_MS = 30_000;

type Answer = { active: true; claims: Readonly<Record<string, unknown>> } | { active: false };

/** client_secret_basic: both parts form-encoded, then Basic (RFC 6749 §2.3.1). */
function basicCredentials(clientId: string, clientSecret: string): string {
  const encode = (part: string): string => encodeURIComponent(part).replace(/%20/g, '+');
  return `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`;
}

class IntrospectionVerifier implements TokenVerifier {
  private readonly http: OutboundHttp;
  private readonly metadata: IssuerMetadata;
  private readonly authorization: string;
  private cache: TokenCache<Answer> | undefined;

  constructor(private readonly options: TokenIntrospectionOptions) {
    if (!options.clientId || !options.clientSecret) throw new TypeError('tokenIntrospection needs the clientId and clientSecret this server introspects with');
    this.http = { fetch: options.fetch ?? fetch, timeoutMs: options.timeoutMs ?? 5000, allowInsecureHttp: options.allowInsecureHttp ?? false };
    if (options.endpoint !== undefined) secureUrl(options.endpoint, this.http, 'tokenIntrospection: endpoint');
    this.metadata = new IssuerMetadata(this.http, METADATA_RETRY_MS);
    this.authorization = basicCredentials(options.clientId, options.clientSecret);
  }

  async verify(token: string, context: VerifyContext): Promise<Readonly<Record<string, unknown>>> {
    const ttl = this.options.cacheMs ?? 30_000;
    this.cache ??= new TokenCache(ttl, this.options.maxCachedTokens ?? 10_000, () => context.now());
    let answer = this.cache.get(token);
    if (!answer) {
      answer = await this.introspect(token, context);
      if (answer.active) {
        const exp = answer.claims.exp;
        this.cache.set(token, answer, typeof exp === 'number' ? exp * 1000 : undefined);
      } else {
        this.cache.set(token, answer, undefined, Math.min(this.options.inactiveCacheMs ?? 5000, ttl));
      }
    }
    if (!answer.active) throw new InvalidTokenError('The access token is not active (revoked, expired or unknown)');
    return answer.claims;
  }

  private async endpoint(context: VerifyContext): Promise<string> {
    if (this.options.endpoint !== undefined) return this.options.endpoint;
    if (context.issuers.length !== 1) throw new TokenCheckUnavailableError('tokenIntrospection needs an endpoint when several issuers are trusted');
    return this.metadata.endpoint(context.issuers[0]!, 'introspection_endpoint', context.now);
  }

  private async introspect(token: string, context: VerifyContext): Promise<Answer> {
    const response = await fetchJsonObject(
      await this.endpoint(context),
      {
        method: 'POST',
        headers: { authorization: this.authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      },
      this.http,
    );
    if (response.active !== true) return { active: false };
    // The response speaks for the issuer whose endpoint it is; an omitted `iss` is that one.
    const claims = { ...response };
    if (claims.iss === undefined && this.options.endpoint === undefined && context.issuers.length === 1) claims.iss = context.issuers[0];
    return { active: true, claims: Object.freeze(claims) };
  }
}

/** Checks opaque access tokens with the authorization server's introspection endpoint (RFC 7662). */
export function tokenIntrospection(options: TokenIntrospectionOptions): TokenVerifier {
  return new IntrospectionVerifier(options);
}
