/**
 * Single-use `requestState`: sealing bounds replay (expiry, binding) but cannot
 * stop a state from being presented twice. Where a flow must be redeemed at
 * most once (payments, one-time grants), each state's id is recorded in a
 * store that every instance shares; a second presentation is refused.
 */

import { ExpiringMap } from './expiring-map.js';

export interface RedemptionStore {
  /**
   * Records `id` as redeemed until `expiresAt` (ms since the epoch): true the
   * first time, false ever after. Atomic for every instance sharing the store
   * (e.g. Redis `SET id 1 NX PXAT expiresAt`).
   */
  redeemOnce(id: string, expiresAt: number): Promise<boolean>;
}

/** For one process (or tests). Several instances need a shared store, e.g. Redis. */
export class MemoryRedemptionStore implements RedemptionStore {
  private readonly used: ExpiringMap<string, true>;

  constructor(clock: () => number = () => Date.now()) {
    this.used = new ExpiringMap({ clock });
  }

  redeemOnce(id: string, expiresAt: number): Promise<boolean> {
    return Promise.resolve(this.used.setIfAbsent(id, true, expiresAt));
  }

  get size(): number {
    return this.used.size;
  }
}
