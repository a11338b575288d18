/** Single-use redemptions on Redis: one `SET … NX PXAT` each, atomic for every instance. */

import type { Result } from '../../protocol/types.js';
import type { RedemptionStore } from '../redemption-store.js';
import type { RedisConnection } from './connection.js';

export class RedisRedemptionStore implements RedemptionStore {
  constructor(private readonly redis: RedisConnection) {}

  private key(id: string): string {
    return `${this.redis.prefix}redeemed:${id}`;
  }

  async redeemOnce(id: string, expiresAt: number): Promise<boolean> {
    return (await this.redis.command<string | null>(['SET', this.key(id), '1', 'NX', 'PXAT', Math.ceil(expiresAt)])) === 'OK';
  }

  async saveResult(id: string, result: Result, expiresAt: number): Promise<void> {
    await this.redis.command(['SET', `${this.key(id)}:result`, JSON.stringify(result), 'PXAT', Math.ceil(expiresAt)]);
  }

  async savedResult(id: string): Promise<Result | undefined> {
    const json = await this.redis.command<string | null>(['GET', `${this.key(id)}:result`]);
    return json === null ? undefined : (JSON.parse(json) as Result);
  }
}
