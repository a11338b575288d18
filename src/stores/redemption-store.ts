/**
 * Single-use `requestState`: sealing bounds replay (expiry, binding) but cannot
 * stop a state from being presented twice. Where a flow must be redeemed at
 * most once (payments, one-time grants), each state's id is recorded in a
 * store that every instance shares; a second presentation is refused.
 */

import type { Result } from '../protocol/types.js';
import { ExpiringMap } from './expiring-map.js';

export interface RedemptionStore {
  /**
   * Records `id` as redeemed until `expiresAt` (ms since the epoch): true the
   * first time, false ever after. Atomic for every instance sharing the store
   * (e.g. Redis `SET id 1 NX PXAT expiresAt`).
   */
  redeemOnce(id: string, expiresAt: number): Promise<boolean>;
  /**
   * Keeps what the round of a redeemed state answered, so a replay of that
   * round (a client re-sending after a broken stream) gets the same answer
   * without running its `ctx.once` steps again. Optional: without it such a
   * replay is refused.
   */
  saveResult?(id: string, result: Result, expiresAt: number): Promise<void>;
  /** What `saveResult` kept for `id`, if anything. */
  savedResult?(id: string): Promise<Result | undefined>;
}

/** For one process (or tests). Several instances need a shared store, e.g. Redis. */
export class MemoryRedemptionStore implements RedemptionStore {
  /** Redeemed ids, with the result their round answered once it is known (as JSON text: a copy the caller cannot change, made faster than structuredClone). */
  private readonly used: ExpiringMap<string, { result?: string }>;

  constructor(clock: () => number = () => Date.now()) {
    this.used = new ExpiringMap({ clock });
  }

  redeemOnce(id: string, expiresAt: number): Promise<boolean> {
    return Promise.resolve(this.used.setIfAbsent(id, {}, expiresAt));
  }

  saveResult(id: string, result: Result, expiresAt: number): Promise<void> {
    this.used.set(id, { result: JSON.stringify(result) }, expiresAt);
    return Promise.resolve();
  }

  savedResult(id: string): Promise<Result | undefined> {
    const saved = this.used.get(id)?.result;
    return Promise.resolve(saved === undefined ? undefined : (JSON.parse(saved) as Result));
  }

  get size(): number {
    return this.used.size;
  }
}
