/**
 * The claims check of a t1 requestState (JSON payload, claims by name), the
 * format before t2. Still opened so that flows in flight across an upgrade
 * finish; t1 states live at most `ttlMs` (10 minutes by default), so a later
 * release can stop reading them. Nothing seals t1 any more.
 */

import type { OpenResult, StateClaims } from './state-claims.js';

interface PayloadV1 {
  v: 1;
  iat: number;
  exp: number;
  mth: string;
  tgt: string;
  arg: string;
  sub: string;
  aud: string;
  d: unknown;
}

export function checkV1Payload<D>(plain: string, claims: StateClaims, now: number, id: string): OpenResult<D> {
  let payload: PayloadV1;
  try {
    payload = JSON.parse(plain) as PayloadV1;
  } catch {
    return { ok: false, reason: 'requestState payload is not JSON', rejection: 'malformed' };
  }
  if (payload.v !== 1) return { ok: false, reason: `requestState payload version ${String(payload.v)} is unknown`, rejection: 'malformed' };
  if (!(now < payload.exp)) return { ok: false, reason: `requestState expired ${now - payload.exp} ms ago`, rejection: 'expired' };
  if (payload.aud !== claims.audience) return { ok: false, reason: `requestState was issued by server "${payload.aud}", not "${claims.audience}"`, rejection: 'audience' };
  if (payload.sub !== claims.principal) return { ok: false, reason: 'requestState was issued to another principal', rejection: 'principal' };
  if (payload.mth !== claims.method) return { ok: false, reason: `requestState was issued for ${payload.mth}, not ${claims.method}`, rejection: 'method' };
  if (payload.tgt !== claims.target) return { ok: false, reason: `requestState was issued for "${payload.tgt}", not "${claims.target}"`, rejection: 'target' };
  if (payload.arg !== claims.args) return { ok: false, reason: 'requestState was issued for other arguments', rejection: 'arguments' };
  return { ok: true, state: { data: payload.d as D, id, expiresAt: payload.exp } };
}
