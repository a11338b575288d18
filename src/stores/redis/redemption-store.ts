/**
 * Single-use redemptions on Redis: one `SET … NX PXAT` each, atomic for every
 * instance; with the store's generation checked in the same script, so a
 * Redis that lost its data (restarted without persistence, flushed) refuses
 * every state sealed before, instead of redeeming it a second time.
 *
 * The generation is one key without expiry (`<prefix>generation`), made by
 * the first instance that needs it; remembered here while the connection it
 * was read over stays up (a restarted Redis always drops it) and until a
 * redemption finds another.
 */

import type { Result } from '../../protocol/types.js';
import { newGeneration, type RedemptionStore } from '../redemption-store.js';
import type { RedisConnection } from './connection.js';

// KEYS: the generation. ARGV: a new generation, kept only if there is none. Returns the generation.
const GENERATION = `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]`;

// KEYS: the redemption, the generation. ARGV: expiry (ms since the epoch), the state's generation.
// Returns 1 when redeemed now, 0 when redeemed before, and the current generation ('' for none) when it is another.
const REDEEM = `
local current = redis.call('GET', KEYS[2])
if current ~= ARGV[2] then return current or '' end
if redis.call('SET', KEYS[1], '1', 'NX', 'PXAT', ARGV[1]) then return 1 end
return 0`;

export class RedisRedemptionStore implements RedemptionStore {
  private known: { value: Promise<string>; epoch: number } | undefined;

  constructor(private readonly redis: RedisConnection) {}

  private key(id: string): string {
    return `${this.redis.prefix}redeemed:${id}`;
  }

  private get generationKey(): string {
    return `${this.redis.prefix}generation`;
  }

  generation(): Promise<string> {
    const known = this.known;
    // Read again over a new connection, or while there is none: the Redis behind it may have restarted empty.
    if (known && known.epoch === this.redis.epoch && this.redis.connected) return known.value;
    const value = this.redis.script<string>(GENERATION, [this.generationKey], [newGeneration()]);
    const entry = { value, epoch: this.redis.epoch };
    this.known = entry;
    value.then(
      () => (entry.epoch = this.redis.epoch), // the connection this was read over (made by the read itself, at first)
      () => this.known === entry && (this.known = undefined),
    );
    return value;
  }

  async redeemOnce(id: string, expiresAt: number, generation?: string): Promise<boolean> {
    if (generation === undefined) return (await this.redis.command<string | null>(['SET', this.key(id), '1', 'NX', 'PXAT', Math.ceil(expiresAt)])) === 'OK';
    const outcome = await this.redis.script<number | string>(REDEEM, [this.key(id), this.generationKey], [Math.ceil(expiresAt), generation]);
    if (typeof outcome === 'string') {
      // Another generation, or none: remember the current one (or make one on the next seal).
      this.known = outcome === '' ? undefined : { value: Promise.resolve(outcome), epoch: this.redis.epoch };
      return false;
    }
    return outcome === 1;
  }

  async saveResult(id: string, result: Result, expiresAt: number): Promise<void> {
    await this.redis.command(['SET', `${this.key(id)}:result`, JSON.stringify(result), 'PXAT', Math.ceil(expiresAt)]);
  }

  async savedResult(id: string): Promise<Result | undefined> {
    const json = await this.redis.command<string | null>(['GET', `${this.key(id)}:result`]);
    return json === null ? undefined : (JSON.parse(json) as Result);
  }
}
