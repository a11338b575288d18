/**
 * DPoP proofs (RFC 9449 §4.3, §7.1) for DPoP-bound access tokens: a token
 * whose `cnf.jkt` names a key is only accepted with a fresh proof, signed by
 * that key, for this request (method and URL) and this token (`ath`), never
 * seen before (its `jti`, remembered in a redemption store that several
 * instances can share). Server-provided nonces (§9) are not used.
 */

import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { platformCrypto } from '../../platform/crypto.js';
import type { RedemptionStore } from '../../stores/redemption-store.js';
import { InvalidDpopProofError } from './errors.js';

export interface ProofCheck {
  /** The `DPoP` header, as received (undefined when absent). */
  proof: string | undefined;
  token: string;
  /** The thumbprint the token is bound to (`cnf.jkt`). */
  keyThumbprint: string;
  method: string;
  /** The URL the proof must name (`htu`): this endpoint's resource URL. */
  url: string;
  now: number;
}

export interface ProofRules {
  algorithms: readonly string[];
  /** How old a proof's `iat` may be, in seconds. */
  maxAgeSeconds: number;
  clockToleranceSeconds: number;
  replay: RedemptionStore;
}

/** `htu` compared without query and fragment, with the URL parser's normalisation (RFC 9449 §4.3 step 9). */
function sameTarget(htu: unknown, url: string): boolean {
  if (typeof htu !== 'string') return false;
  try {
    const named = new URL(htu);
    const expected = new URL(url);
    named.search = named.hash = expected.search = expected.hash = '';
    return named.href === expected.href;
  } catch {
    return false;
  }
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/** Resolves when the proof is good; throws InvalidDpopProofError saying what is wrong otherwise. */
export async function checkDpopProof(check: ProofCheck, rules: ProofRules): Promise<void> {
  const { proof } = check;
  if (proof === undefined || proof.trim() === '') throw new InvalidDpopProofError('A DPoP-bound token needs a DPoP proof header');
  // Two DPoP headers arrive joined with a comma, which no JWT contains (§4.3 step 1: exactly one).
  if (proof.includes(',')) throw new InvalidDpopProofError('Exactly one DPoP proof header is allowed');
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw new InvalidDpopProofError('The DPoP proof is not a JWT');
  }
  if (header.typ !== 'dpop+jwt') throw new InvalidDpopProofError('The DPoP proof has the wrong typ');
  if (typeof header.alg !== 'string' || !rules.algorithms.includes(header.alg)) throw new InvalidDpopProofError('The DPoP proof uses an algorithm this server does not accept');
  const jwk = header.jwk as JWK | undefined;
  if (!jwk || typeof jwk !== 'object' || PRIVATE_MEMBERS.some((member) => member in jwk)) throw new InvalidDpopProofError('The DPoP proof must carry a public key');

  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(proof, await importJWK(jwk, header.alg), {
      typ: 'dpop+jwt',
      algorithms: [header.alg],
      maxTokenAge: rules.maxAgeSeconds,
      clockTolerance: rules.clockToleranceSeconds,
      requiredClaims: ['jti', 'htm', 'htu', 'iat'],
      currentDate: new Date(check.now),
    }));
  } catch {
    throw new InvalidDpopProofError('The DPoP proof does not verify, or is too old');
  }
  if (typeof payload.iat === 'number' && payload.iat > check.now / 1000 + rules.clockToleranceSeconds) throw new InvalidDpopProofError('The DPoP proof is from the future');
  if (payload.htm !== check.method) throw new InvalidDpopProofError('The DPoP proof is for another HTTP method');
  if (!sameTarget(payload.htu, check.url)) throw new InvalidDpopProofError('The DPoP proof is for another URL');
  if (payload.ath !== (await platformCrypto().sha256Base64url(check.token))) throw new InvalidDpopProofError('The DPoP proof is for another access token');
  if ((await calculateJwkThumbprint(jwk)) !== check.keyThumbprint) throw new InvalidDpopProofError('The access token is bound to another key than the DPoP proof');
  if (typeof payload.jti !== 'string' || payload.jti === '') throw new InvalidDpopProofError('The DPoP proof has no jti');
  // Last: a proof that failed any check above must not use up its jti.
  const until = ((payload.iat as number) + rules.maxAgeSeconds + rules.clockToleranceSeconds) * 1000;
  if (!(await rules.replay.redeemOnce(`dpop:${check.keyThumbprint}:${payload.jti}`, until))) throw new InvalidDpopProofError('The DPoP proof was used before');
}
