/**
 * DPoP (RFC 9449): tokens bound to a key pair only this client holds, so a
 * stolen token is useless. Used when the authorization server advertises an
 * algorithm this client signs with; the key pair is kept with the tokens
 * (they are worthless without it) and proofs are made by the library, which
 * also remembers each server's nonce (§8, §9).
 */

import * as oauth from 'oauth4webapi';
import type { StoredAuthorization } from './token-store.js';

const ALGORITHM = 'ES256';
const KEY_PARAMS: EcKeyImportParams = { name: 'ECDSA', namedCurve: 'P-256' };

export function advertisesDpop(as: oauth.AuthorizationServer): boolean {
  const algs = as.dpop_signing_alg_values_supported;
  return Array.isArray(algs) && algs.includes(ALGORITHM);
}

async function importPair(stored: NonNullable<StoredAuthorization['dpopKey']>): Promise<CryptoKeyPair> {
  const [publicKey, privateKey] = await Promise.all([
    crypto.subtle.importKey('jwk', stored.publicKey, KEY_PARAMS, true, ['verify']),
    crypto.subtle.importKey('jwk', stored.privateKey, KEY_PARAMS, false, ['sign']),
  ]);
  return { publicKey, privateKey };
}

/** The record's key pair, made (and written into the record) on first use. */
export async function dpopKeyPair(record: StoredAuthorization): Promise<CryptoKeyPair> {
  if (record.dpopKey) return importPair(record.dpopKey);
  const pair = await oauth.generateKeyPair(ALGORITHM, { extractable: true });
  const [publicKey, privateKey] = await Promise.all([crypto.subtle.exportKey('jwk', pair.publicKey), crypto.subtle.exportKey('jwk', pair.privateKey)]);
  record.dpopKey = { publicKey, privateKey };
  return importPair(record.dpopKey);
}

/** A proof-making handle for a key pair (one per key, so nonces are remembered across requests). */
export function dpopHandle(pair: CryptoKeyPair): oauth.DPoPHandle {
  return oauth.DPoP({}, pair);
}
