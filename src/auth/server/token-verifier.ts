/**
 * The one job a verifier has: turn an access token into its verified claims,
 * or say why not. Three come with Tessera — JWT access tokens (RFC 9068,
 * jwt-verifier.ts), token introspection (RFC 7662, introspection-verifier.ts)
 * — and an app may supply its own. Whatever the verifier, the resource server
 * then checks the claims the same way (token-claims.ts): trusted issuer,
 * audience this resource, not expired, scopes, DPoP binding. A verifier that
 * caches should hand out the same (frozen) claims object for the same token:
 * the checks that cannot change are then made once for it.
 */

export interface VerifyContext {
  /** The canonical URL of this resource. */
  readonly resource: string;
  /** The `aud` values accepted (the resource, and any configured alias). */
  readonly audiences: readonly string[];
  /** The issuers trusted (the metadata's `authorization_servers`). */
  readonly issuers: readonly string[];
  /** Seconds of clock skew tolerated on `exp`, `nbf` and `iat`. */
  readonly clockToleranceSeconds: number;
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface TokenVerifier {
  /**
   * The verified claims of `token`. Throw `InvalidTokenError` when it is not
   * acceptable (401 `invalid_token`); any other error means it could not be
   * checked now (503, and the server log says why).
   */
  verify(token: string, context: VerifyContext): Promise<Readonly<Record<string, unknown>>>;
}
