/**
 * Single-use `requestState`: sealing bounds replay (expiry, binding) but cannot
 * stop a state from being presented twice. Where a flow must be redeemed at most
 * once (payments, one-time grants), each state's id is recorded in a store that
 * every instance shares; a second presentation is refused.
 */

export interface RedemptionStore {
  /** Records `id` as used until `expiresAt` (ms since epoch); false when it was already used. */
  redeem(id: string, expiresAt: number): boolean | Promise<boolean>;
}

/** For one process (or tests). Several instances need a shared store, e.g. Redis. */
export class MemoryRedemptionStore implements RedemptionStore {
  private readonly used = new Map<string, number>();
  private lastSweep = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  redeem(id: string, expiresAt: number): boolean {
    const now = this.clock();
    if (now - this.lastSweep > 60_000) this.sweep(now);
    const until = this.used.get(id);
    if (until !== undefined && until > now) return false;
    this.used.set(id, expiresAt);
    return true;
  }

  get size(): number {
    return this.used.size;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [id, until] of this.used) if (until <= now) this.used.delete(id);
  }
}
