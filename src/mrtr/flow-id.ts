/**
 * Flow ids: one per multi round-trip call, made when its first state is
 * sealed and carried in every state after, so each round of the call — on
 * whichever instance — can say which call it belongs to (spans, the request
 * log). 72 random bits in 12 base64url characters: unique enough to correlate
 * by, short enough not to weigh on the state.
 */

import { platformCrypto } from '../platform/crypto.js';

const ID_BYTES = 9;
const POOL_IDS = 256;

/** Random bytes drawn 256 ids at a time: one call into the system RNG per id costs more than the id is worth. */
let pool: Uint8Array = new Uint8Array(0);
let offset = 0;

export function newFlowId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = platformCrypto().randomBytes(POOL_IDS * ID_BYTES);
    offset = 0;
  }
  const id = platformCrypto().base64urlEncode(pool.subarray(offset, offset + ID_BYTES));
  offset += ID_BYTES;
  return id;
}

/**
 * The flow id of a state sealed before flow ids existed: its own id (the IV,
 * unique per sealing), cut to the same length, names the flow from then on.
 */
export function flowIdOfOldState(stateId: string): string {
  return stateId.slice(0, 12);
}
