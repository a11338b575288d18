/**
 * The checks every accepted token passes, whichever verifier vouched for its
 * claims (OAuth 2.1 §5.2, RFC 8707, RFC 9068 §4): issued by a trusted
 * authorization server, for this resource, not expired, already valid, not
 * issued in the future; and the caller those claims describe.
 */

import type { AuthInfo } from '../../protocol/authorization.js';
import { InvalidTokenError } from './errors.js';
import { grantedScopes } from './scopes.js';
import type { VerifyContext } from './token-verifier.js';

function audiencesOf(aud: unknown): string[] {
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === 'string');
  return [];
}

/**
 * Throws InvalidTokenError unless the claims are for this resource, from a
 * trusted issuer, with an expiry (what never changes for a token). Audiences
 * are compared as exact strings (RFC 7519 §4.1.3, §7.3: no normalisation): a
 * query, a fragment or another spelling names another resource (RFC 8707).
 */
export function checkAudience(claims: Readonly<Record<string, unknown>>, context: VerifyContext, accepted: ReadonlySet<string>): void {
  if (typeof claims.iss !== 'string' || !context.issuers.includes(claims.iss)) {
    throw new InvalidTokenError('The access token is from an issuer this server does not trust');
  }
  if (!audiencesOf(claims.aud).some((aud) => accepted.has(aud))) {
    throw new InvalidTokenError('The access token is not for this resource (its audience)');
  }
  if (typeof claims.exp !== 'number') throw new InvalidTokenError('The access token has no expiry');
}

/** Throws InvalidTokenError unless the token is valid now (`exp`, `nbf`, `iat`, with the tolerated skew): checked on every request. */
export function checkLifetime(claims: Readonly<Record<string, unknown>>, context: VerifyContext): void {
  const now = context.now() / 1000;
  const skew = context.clockToleranceSeconds;
  if ((claims.exp as number) <= now - skew) throw new InvalidTokenError('The access token expired');
  if (typeof claims.nbf === 'number' && claims.nbf > now + skew) throw new InvalidTokenError('The access token is not valid yet');
  // A token from the future was not issued by a clock this server can trust (RFC 7519 §4.1.6).
  if (typeof claims.iat === 'number' && claims.iat > now + skew) throw new InvalidTokenError('The access token was issued in the future (its iat)');
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The caller the claims describe. */
export function authInfoOf(claims: Readonly<Record<string, unknown>>): AuthInfo {
  const cnf = claims.cnf;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as Record<string, unknown>).jkt : undefined;
  const clientId = stringClaim(claims.client_id) ?? stringClaim(claims.azp);
  return Object.freeze({
    // A token about no one else is about its client (client credentials; RFC 9068 §2.2 puts the client id in sub).
    subject: stringClaim(claims.sub) ?? clientId,
    clientId,
    issuer: stringClaim(claims.iss),
    scopes: Object.freeze(grantedScopes(claims)),
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    keyThumbprint: stringClaim(jkt),
    claims,
  });
}
