/** What a sealed requestState is bound to, and what opening one gives (shared by both state formats). */

/** What a state is bound to: the request it was issued for and who made it. */
export interface StateClaims {
  method: string;
  /** Tool name, prompt name or resource URI. */
  target: string;
  /** Digest of the request's arguments. */
  args: string;
  /** The authenticated principal; '' when anonymous. */
  principal: string;
  /** The server (or cluster) the state was issued by. */
  audience: string;
}

export interface OpenedState<D> {
  data: D;
  /** Unique per sealing (the IV), for single-use redemption. */
  id: string;
  expiresAt: number;
  /** The redemption store's generation when it was sealed (none in states sealed before generations, or without a store that has them). */
  generation?: string;
}

/**
 * Why a state was refused, in one word (for metrics and the request log; the
 * client never sees it): not a state of ours at all, too large, under a key
 * this server does not hold, failing authentication, expired, bound to
 * another server, principal, method, target or arguments, already redeemed,
 * or to be redeemed under another generation of the redemption store (sealed
 * before it lost its records, so whether it was redeemed is unknown).
 */
export type StateRejection =
  | 'malformed'
  | 'too_large'
  | 'unknown_key'
  | 'forged'
  | 'expired'
  | 'audience'
  | 'principal'
  | 'method'
  | 'target'
  | 'arguments'
  | 'redeemed'
  | 'generation';

export type OpenResult<D> = { ok: true; state: OpenedState<D> } | { ok: false; reason: string; rejection: StateRejection };
