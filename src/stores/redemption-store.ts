/**
 * Single-use `requestState`: sealing bounds replay (expiry, binding) but cannot
 * stop a state from being presented twice. Where a flow must be redeemed at
 * most once (payments, one-time grants), each state's id is recorded in a
 * store that every instance shares; a second presentation is refused.
 *
 * A store that can lose its records (a process restart, a Redis restarted
 * empty) would accept a redeemed state again. So a store may have a
 * generation: made with its records, new whenever they are lost, sealed into
 * each state, and a redemption under any other generation is refused — the
 * store fails closed instead of forgetting.
 */

import type { Result } from '../protocol/types.js';
import { randomId } from '../platform/crypto.js';
import { ExpiringMap } from './expiring-map.js';

export interface RedemptionStore {
  /**
   * Records `id` as redeemed until `expiresAt` (ms since the epoch): true the
   * first time, false ever after. Atomic for every instance sharing the store
   * (e.g. Redis `SET id 1 NX PXAT expiresAt`). With a `generation` (what
   * `generation()` said when the state was sealed): false as well unless the
   * store is still at that generation, checked in the same atomic step.
   */
  redeemOnce(id: string, expiresAt: number, generation?: string): Promise<boolean>;
  /**
   * The generation of the store's records: made once (by whichever instance
   * asks first), kept as long as the records, and new whenever they were
   * lost, so that a state sealed before the loss can never be redeemed again
   * after it. Canonical base64url of 1–255 bytes, sealed as those bytes
   * (the stores here make 8 characters: 48 random bits; 12 on a Redis Cluster).
   * With `of` (what a state was sealed under): the current generation of the
   * records where that state is redeemed — `of` while they live. Without: the
   * generation to seal a new state under; a store whose records are spread
   * over several generations (a Redis Cluster's slots) may answer another one
   * each time. Optional: a store without it cannot tell a lost record from none.
   */
  generation?(of?: string): Promise<string>;
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

/** A new store generation: 48 random bits, 8 base64url characters. */
export function newGeneration(): string {
  return randomId(6);
}

/** For one process (or tests). Several instances need a shared store, e.g. Redis. */
export class MemoryRedemptionStore implements RedemptionStore {
  /** Redeemed ids, with the result their round answered once it is known (as JSON text: a copy the caller cannot change, made faster than structuredClone). */
  private readonly used: ExpiringMap<string, { result?: string }>;
  /** This store's generation: its records live and die with the process, so do they (made on first use). */
  private current: Promise<string> | undefined;
  private currentValue: string | undefined;

  constructor(clock: () => number = () => Date.now()) {
    this.used = new ExpiringMap({ clock });
  }

  generation(): Promise<string> {
    if (!this.current) {
      this.currentValue = newGeneration();
      this.current = Promise.resolve(this.currentValue);
    }
    return this.current;
  }

  redeemOnce(id: string, expiresAt: number, generation?: string): Promise<boolean> {
    // A state sealed under another generation (another process, or this one before a restart): unknown whether it was redeemed.
    if (generation !== undefined && generation !== this.currentValue) return Promise.resolve(false);
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
