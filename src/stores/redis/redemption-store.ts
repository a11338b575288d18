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
 *
 * On a Redis Cluster a redemption and its generation must share a hash slot,
 * and one slot for them all would put every redemption on one shard. So there
 * are BUCKETS generations, each with its redemptions in its own slot
 * (`<prefix>generation:{r007}`, `<prefix>redeemed:{r007}:<id>`): a state is
 * sealed under a bucket picked at random, named in its generation
 * (`c007` + 8 random characters), so it is redeemed in that bucket; a shard
 * that loses its data loses its buckets' generations with their redemptions,
 * and refuses what was sealed under them. A redemption counts once a replica
 * holds it (a durable command): a promoted replica never lacks one.
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

/** Generations on a cluster, each in its own hash slot (one on one Redis). */
const BUCKETS = 64;
/** A cluster generation: its bucket (`c` and three digits), then the random part. */
const BUCKETED = /^c(\d{3})[A-Za-z0-9_-]{8}$/;

/** Which bucket: undefined on one Redis (its one generation); on a cluster, the bucket named in the generation, or -1 for one named in none (never redeemed). */
type Bucket = number | undefined;

export class RedisRedemptionStore implements RedemptionStore {
  /** What each bucket's generation was, as read over the connection of `epoch` (key '' on one Redis). */
  private readonly known = new Map<string, { value: Promise<string>; epoch: number }>();

  constructor(private readonly redis: RedisConnection) {}

  private key(id: string, bucket?: Bucket): string {
    return bucket === undefined ? `${this.redis.prefix}redeemed:${id}` : `${this.redis.prefix}redeemed:{r${label(bucket)}}:${id}`;
  }

  private generationKey(bucket: Bucket): string {
    return bucket === undefined ? `${this.redis.prefix}generation` : `${this.redis.prefix}generation:{r${label(bucket)}}`;
  }

  /** Without `of`, on a cluster: the generation of a bucket picked at random (so new states spread); with it, that of the bucket `of` names. */
  generation(of?: string): Promise<string> {
    const named = of === undefined ? -1 : this.bucketOf(of);
    const bucket = this.redis.cluster ? (named === -1 ? Math.floor(Math.random() * BUCKETS) : named) : undefined;
    const name = bucket === undefined ? '' : label(bucket);
    const known = this.known.get(name);
    // Read again over a new connection, or while there is none: the Redis behind it may have restarted empty.
    if (known && known.epoch === this.redis.epoch && this.redis.connected) return known.value;
    const fresh = bucket === undefined ? newGeneration() : `c${name}${newGeneration()}`;
    const value = this.redis.script<string>(GENERATION, [this.generationKey(bucket)], [fresh]);
    const entry = { value, epoch: this.redis.epoch };
    this.known.set(name, entry);
    value.then(
      () => (entry.epoch = this.redis.epoch), // the connection this was read over (made by the read itself, at first)
      () => this.known.get(name) === entry && this.known.delete(name),
    );
    return value;
  }

  async redeemOnce(id: string, expiresAt: number, generation?: string): Promise<boolean> {
    if (generation === undefined) {
      const key = this.key(id);
      return (await this.redis.command<string | null>(['SET', key, '1', 'NX', 'PXAT', Math.ceil(expiresAt)], { durable: (reply) => reply === 'OK' })) === 'OK';
    }
    const bucket = this.bucketOf(generation);
    // Sealed under no bucket (on one Redis, before the cluster): whether it was redeemed is unknown.
    if (bucket === -1) return false;
    const key = this.key(id, bucket);
    const outcome = await this.redis.script<number | string>(REDEEM, [key, this.generationKey(bucket)], [Math.ceil(expiresAt), generation], { durable: (outcome) => outcome === 1 });
    if (typeof outcome === 'string') {
      // Another generation, or none: remember the current one (or make one on the next seal).
      const name = bucket === undefined ? '' : label(bucket);
      if (outcome === '') this.known.delete(name);
      else this.known.set(name, { value: Promise.resolve(outcome), epoch: this.redis.epoch });
      return false;
    }
    return outcome === 1;
  }

  private bucketOf(generation: string): Bucket {
    if (!this.redis.cluster) return undefined;
    const match = BUCKETED.exec(generation);
    const bucket = match ? Number(match[1]) : -1;
    return bucket < BUCKETS ? bucket : -1;
  }

  async saveResult(id: string, result: Result, expiresAt: number): Promise<void> {
    await this.redis.command(['SET', `${this.key(id)}:result`, JSON.stringify(result), 'PXAT', Math.ceil(expiresAt)]);
  }

  async savedResult(id: string): Promise<Result | undefined> {
    const json = await this.redis.command<string | null>(['GET', `${this.key(id)}:result`]);
    return json === null ? undefined : (JSON.parse(json) as Result);
  }
}

/** A bucket's number as three digits (`007`), in its hash tag and its generations. */
function label(bucket: number): string {
  return String(bucket).padStart(3, '0');
}
