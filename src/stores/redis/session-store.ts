/**
 * 2025-11-25 sessions on Redis: a hash of JSON-encoded fields per session,
 * whose expiry is the idle timeout, moved forward by every read (a Lua script
 * reads and refreshes in one step). Any instance can take any request of a
 * session; the live part (a GET stream, answers awaited) reaches the right
 * instance through the session bus.
 */

import type { SessionCreation, SessionData, SessionPatch, SessionStore } from '../session-store.js';
import type { RedisConnection } from './connection.js';
import { fromJsonHash, MAKE_HASH } from './json-hash.js';

const READ = `
local flat = redis.call('HGETALL', KEYS[1])
if #flat > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return flat`;

// ARGV: idle ms, then field/value pairs ('' removes).
const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return redis.call('HGETALL', KEYS[1])`;

// KEYS: the session hash, its principal's set of session ids ('' when anonymous).
// ARGV: idle ms, maxPerPrincipal, the session key prefix, the id, then field/value pairs.
// The principal's set drops the ids whose session is gone (idle, ended) before it is counted;
// those keys are derived here from the prefix: on one Redis only (a cluster takes the steps one by one).
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'store-full' end
if KEYS[2] ~= '' then
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    if redis.call('EXISTS', ARGV[3] .. id) == 0 then redis.call('SREM', KEYS[2], id) end
  end
  if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'principal-full' end
  redis.call('SADD', KEYS[2], ARGV[4])
end
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 'created'`;

// KEYS: a principal's set of session ids. ARGV: maxPerPrincipal, the id. Returns 1 when added, 0 when full.
const RESERVE = `
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[2])
return 1`;

function pairsOf(data: Partial<SessionData>): string[] {
  return Object.entries(data).flatMap(([field, value]) => [field, value === undefined ? '' : JSON.stringify(value)]);
}

export interface RedisSessionStoreOptions {
  /** A session unused this long ends (default 30 minutes). */
  idleTimeoutMs?: number;
}

export class RedisSessionStore implements SessionStore {
  private readonly idleMs: number;

  constructor(
    private readonly redis: RedisConnection,
    options: RedisSessionStoreOptions = {},
  ) {
    this.idleMs = options.idleTimeoutMs ?? 30 * 60_000;
  }

  private key(id: string): string {
    return `${this.redis.prefix}session:${id}`;
  }

  /** A principal's share is counted here; anonymous sessions are bounded by Redis's memory only (no eviction on Redis). */
  async create(session: SessionData, maxPerPrincipal: number): Promise<SessionCreation> {
    const pairs = Object.entries(session).flatMap(([field, value]) => (value === undefined ? [] : [field, JSON.stringify(value)]));
    const owner = session.principal === undefined ? '' : `${this.redis.prefix}sessions-of:${session.principal}`;
    if (!this.redis.cluster) return this.redis.script<SessionCreation>(CREATE, [this.key(session.id), owner], [this.idleMs, maxPerPrincipal, this.key(''), session.id, ...pairs]);
    // A cluster: the session, then its place in the principal's set (a slot of its own, pruned of sessions gone), undone when full.
    const key = this.key(session.id);
    if ((await this.redis.script<number>(MAKE_HASH, [key], ['PEXPIRE', this.idleMs, ...pairs])) === 0) return 'store-full';
    if (owner === '') return 'created';
    const ids = await this.redis.command<string[]>(['SMEMBERS', owner]);
    const alive = await Promise.all(ids.map((id) => this.redis.command<number>(['EXISTS', this.key(id)])));
    const gone = ids.filter((_, i) => alive[i] === 0);
    if (gone.length > 0) await this.redis.command(['SREM', owner, ...gone]);
    if ((await this.redis.script<number>(RESERVE, [owner], [maxPerPrincipal, session.id])) === 1) return 'created';
    await this.redis.command(['DEL', key]);
    return 'principal-full';
  }

  async get(id: string): Promise<SessionData | undefined> {
    return fromJsonHash<SessionData>(await this.redis.script<string[]>(READ, [this.key(id)], [this.idleMs]));
  }

  async update(id: string, patch: SessionPatch): Promise<SessionData | undefined> {
    return fromJsonHash<SessionData>(await this.redis.script<string[] | null>(UPDATE, [this.key(id)], [this.idleMs, ...pairsOf(patch)]));
  }

  async delete(id: string): Promise<boolean> {
    return (await this.redis.command<number>(['DEL', this.key(id)])) === 1;
  }
}
