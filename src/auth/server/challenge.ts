/**
 * The refusals of the resource server and their `WWW-Authenticate`
 * challenges (RFC 6750 §3, RFC 9728 §5.1, RFC 9449 §7.1): every one names the
 * Protected Resource Metadata, a 401 or 403 the scopes the operation needs,
 * an error code when a token was sent, a short description.
 */

import type { AuthorizationRefusal } from '../../protocol/authorization.js';

export type OAuthErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof';

export interface ChallengeSettings {
  readonly resourceMetadataUrl: string;
  /** The algorithms DPoP proofs may use, for `DPoP` challenges' `algs`. */
  readonly dpopAlgorithms: readonly string[];
}

export interface Challenge {
  /** `Bearer`, or `DPoP` when the request used that scheme or the server requires it. */
  scheme: 'Bearer' | 'DPoP';
  error?: OAuthErrorCode;
  description?: string;
  /** What the operation needs; omitted when empty. */
  scopes?: readonly string[];
}

/** error_description allows %x20-21 / %x23-5B / %x5D-7E (RFC 6750 §3): anything else becomes a space. */
function describe(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ').slice(0, 300);
}

export function challengeHeader(challenge: Challenge, settings: ChallengeSettings): string {
  const params: Array<[string, string]> = [];
  if (challenge.error) params.push(['error', challenge.error]);
  if (challenge.description) params.push(['error_description', describe(challenge.description)]);
  if (challenge.scopes && challenge.scopes.length > 0) params.push(['scope', challenge.scopes.join(' ')]);
  params.push(['resource_metadata', settings.resourceMetadataUrl]);
  if (challenge.scheme === 'DPoP') params.push(['algs', settings.dpopAlgorithms.join(' ')]);
  return `${challenge.scheme} ${params.map(([name, value]) => `${name}="${value}"`).join(', ')}`;
}

const STATUS: Readonly<Record<OAuthErrorCode | 'none', number>> = {
  none: 401,
  invalid_request: 400,
  invalid_token: 401,
  invalid_dpop_proof: 401,
  insufficient_scope: 403,
};

/** The refusal for a challenge; the JSON-RPC message says the same in words (`explanation` when the challenge has no description). */
export function challengeRefusal(challenge: Challenge, settings: ChallengeSettings, explanation?: string): AuthorizationRefusal {
  const status = STATUS[challenge.error ?? 'none'];
  const what = status === 400 ? 'Bad request' : status === 403 ? 'Forbidden' : 'Unauthorized';
  const message = `${what}: ${challenge.description ?? explanation ?? 'this server needs an access token (see WWW-Authenticate)'}`;
  return { ok: false, status, headers: { 'www-authenticate': challengeHeader(challenge, settings) }, message };
}

/** The token cannot be checked now: 503, no challenge (signing in again would not help); come back in `retryAfterSeconds`. */
export function unavailableRefusal(retryAfterSeconds = 5): AuthorizationRefusal {
  return {
    ok: false,
    status: 503,
    headers: { 'retry-after': String(retryAfterSeconds) },
    message: 'Service unavailable: the access token cannot be checked right now; try again shortly',
  };
}
