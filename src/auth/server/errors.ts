/**
 * Why a token was not accepted, as the resource server answers it: an
 * invalid token is the client's to fix (401 `invalid_token`, RFC 6750 §3.1),
 * a bad DPoP proof likewise (401 `invalid_dpop_proof`, RFC 9449 §7.1); a
 * token that cannot be checked right now (the authorization server or its
 * keys unreachable) is nobody's fault and no reason to sign in again (503).
 */

/** The token is not acceptable here. Custom verifiers throw it; its message becomes the challenge's `error_description`. */
export class InvalidTokenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidTokenError';
  }
}

/** The DPoP proof (RFC 9449) is missing or does not fit the request, the token or its key. */
export class InvalidDpopProofError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidDpopProofError';
  }
}

/** The token could not be checked now (metadata, keys or introspection unreachable or unusable). */
export class TokenCheckUnavailableError extends Error {
  /** When to try again, in seconds (the 503's Retry-After), when known: the rest of a back-off after a failed fetch. */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options);
    this.name = 'TokenCheckUnavailableError';
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}
