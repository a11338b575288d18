/** DPoP (RFC 9449) for tests: a key pair, and proofs for the token endpoint or a resource request, made with jose. */

import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { createHash, randomUUID } from 'node:crypto';

export interface DpopKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  thumbprint: string;
}

export async function makeDpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, thumbprint: await calculateJwkThumbprint(publicJwk) };
}

export interface ProofOverrides {
  /** Header overrides (`typ`, `alg`, `jwk`). */
  header?: Record<string, unknown>;
  /** Claim overrides (`iat`, `jti`, `htm`, `htu`, `ath`); `undefined` removes one. */
  claims?: Record<string, unknown>;
}

/** A proof for `method url`, bound to `accessToken` (`ath`) when given. */
export async function dpopProof(key: DpopKey, method: string, url: string, accessToken?: string, overrides: ProofOverrides = {}): Promise<string> {
  const claims: Record<string, unknown> = { jti: randomUUID(), htm: method, htu: url, iat: Math.floor(Date.now() / 1000) };
  if (accessToken !== undefined) claims.ath = createHash('sha256').update(accessToken).digest('base64url');
  for (const [name, value] of Object.entries(overrides.claims ?? {})) {
    if (value === undefined) delete claims[name];
    else claims[name] = value;
  }
  return new SignJWT(claims).setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk, ...overrides.header } as never).sign(key.privateKey);
}
