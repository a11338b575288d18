/**
 * Tasks on Redis. Each task is a hash of JSON-encoded fields that expires with
 * the task; creation and status transitions are Lua scripts, so the limits
 * and compare-and-set hold across instances; events (answers, cancellation)
 * travel on the task's pub/sub channel to the instance running it, and that
 * instance holds a lease (a key naming it, with an expiry) the others can see
 * lapse when it dies. A resumable task's checkpoint is a second hash beside
 * it (`s:<step>`, `a:<question key>`), written only by the lease's holder.
 *
 * On a Redis Cluster a task's hash, lease and checkpoint share its hash slot
 * (`<prefix>task:{<id>}…`), so tasks spread over the shards; the bounds (the
 * principal's tasks, all tasks) are sets of their own, each reserved in one
 * atomic step, and every write a failover must not forget counts once a
 * replica holds it.
 */

import type { JsonValue } from '../../protocol/types.js';
import type { TaskCheckpoint, TaskCheckpoints, TaskCreation, TaskData, TaskEvent, TaskLeases, TaskPatch, TaskStatus, TaskStore } from '../task-store.js';
import type { RedisConnection } from './connection.js';
import { fromJsonHash, hashEntries, MAKE_HASH, type HashReply } from './json-hash.js';

// KEYS: task hash, the principal's tasks, all tasks, resumable tasks. ARGV: now, expiresAt, maxPerPrincipal, maxTasks (-1: none), taskId, resumable (1/0), then field/value pairs.
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then return 'store-full' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'principal-full' end
if tonumber(ARGV[4]) >= 0 and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 'store-full' end
for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[5])
if ARGV[6] == '1' then redis.call('ZADD', KEYS[4], ARGV[2], ARGV[5]) end
return 'created'`;

// KEYS: task hash. ARGV: the statuses it may be in (JSON, comma-separated), lastUpdatedAt (JSON), then field/value pairs ('' removes).
const TRANSITION = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return false end
local allowed = false
for s in string.gmatch(ARGV[1], '[^,]+') do if s == status then allowed = true end end
if not allowed then return false end
for i = 3, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('HSET', KEYS[1], 'lastUpdatedAt', ARGV[2])
return redis.call('HGETALL', KEYS[1])`;

const FIELDS = ['taskId', 'principal', 'status', 'statusMessage', 'createdAt', 'lastUpdatedAt', 'ttlMs', 'pollIntervalMs', 'result', 'error', 'inputRequests', 'call', 'resumptions'] as const;

// KEYS: the lease. ARGV: owner, ms.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

// KEYS: the lease. ARGV: owner.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

// KEYS: the lease, the checkpoint. ARGV: owner, field, value, expiresAt. Only the lease's holder records.
const SAVE_STEP = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
return 1`;

// KEYS: the checkpoint. ARGV: expiresAt, then field/value pairs. The first answer for a key stays; returns what each field now holds.
const SAVE_ANSWERS = `
local now = {}
for i = 2, #ARGV, 2 do
  redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
  table.insert(now, ARGV[i])
  table.insert(now, redis.call('HGET', KEYS[1], ARGV[i]))
end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return now`;

// KEYS: a set of task ids (a principal's, or all). ARGV: now, the bound (-1: none), taskId, expiresAt.
// Drops the ids that expired; adds the task unless the set is at its bound. Returns 1 when added.
const RESERVE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if tonumber(ARGV[2]) >= 0 and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
return 1`;

// KEYS: task hash, its lease. Returns the status (JSON) or false, and whether the lease is held.
const LIVENESS = `
return {redis.call('HGET', KEYS[1], 'status'), redis.call('EXISTS', KEYS[2])}`;

export interface RedisTaskStoreOptions {
  /** Most tasks held at once (default: no bound but Redis's own memory). */
  maxTasks?: number;
}

export class RedisTaskStore implements TaskStore {
  readonly leases: TaskLeases;
  readonly checkpoints: TaskCheckpoints;

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisTaskStoreOptions = {},
  ) {
    this.leases = new RedisTaskLeases(redis, (taskId) => this.key(taskId));
    this.checkpoints = new RedisTaskCheckpoints(redis, (taskId) => this.key(taskId));
  }

  private key(taskId: string): string {
    return `${this.redis.prefix}task:${this.redis.tag(taskId)}`;
  }

  async create(task: TaskData, maxPerPrincipal: number): Promise<TaskCreation> {
    const pairs = FIELDS.flatMap((field) => (task[field] === undefined ? [] : [field, JSON.stringify(task[field])]));
    const expiresAt = task.createdAt + task.ttlMs;
    const [own, all, resumable] = [`${this.redis.prefix}tasks-of:${task.principal}`, `${this.redis.prefix}tasks`, `${this.redis.prefix}resumable-tasks`];
    // One Redis: one atomic step.
    if (!this.redis.cluster) {
      return this.redis.script<TaskCreation>(CREATE, [this.key(task.taskId), own, all, resumable], [Date.now(), expiresAt, maxPerPrincipal, this.options.maxTasks ?? -1, task.taskId, task.call ? 1 : 0, ...pairs]);
    }
    // A cluster: the task, then its place in each bound (sets in slots of their own), undone when one is full.
    const key = this.key(task.taskId);
    if ((await this.redis.script<number>(MAKE_HASH, [key], ['PEXPIREAT', expiresAt, ...pairs], { durable: (made) => made === 1 })) === 0) return 'store-full';
    const reserve = (set: string, bound: number): Promise<number> => this.redis.script<number>(RESERVE, [set], [Date.now(), bound, task.taskId, expiresAt]);
    if ((await reserve(own, maxPerPrincipal)) === 0) {
      await this.redis.command(['DEL', key]);
      return 'principal-full';
    }
    if ((await reserve(all, this.options.maxTasks ?? -1)) === 0) {
      await this.redis.command(['ZREM', own, task.taskId]);
      await this.redis.command(['DEL', key]);
      return 'store-full';
    }
    if (task.call) await this.redis.command(['ZADD', resumable, expiresAt, task.taskId]);
    return 'created';
  }

  async get(taskId: string): Promise<TaskData | undefined> {
    return fromJsonHash<TaskData>(await this.redis.command<string[] | Record<string, string>>(['HGETALL', this.key(taskId)]));
  }

  async transition(taskId: string, from: readonly TaskStatus[], patch: TaskPatch): Promise<TaskData | undefined> {
    const pairs = Object.entries(patch).flatMap(([field, value]) => [field, value === undefined ? '' : JSON.stringify(value)]);
    const flat = await this.redis.script<string[] | null>(TRANSITION, [this.key(taskId)], [from.map((s) => JSON.stringify(s)).join(','), JSON.stringify(Date.now()), ...pairs], { durable: (flat) => flat !== null });
    return fromJsonHash<TaskData>(flat);
  }

  notify(taskId: string, event: TaskEvent): Promise<void> {
    return this.redis.publish(`task-events:${taskId}`, JSON.stringify(event));
  }

  async listen(taskId: string, onEvent: (event: TaskEvent) => void): Promise<() => void> {
    const { stop, subscribed } = this.redis.subscribe(`task-events:${taskId}`, (message) => onEvent(JSON.parse(message) as TaskEvent));
    try {
      await subscribed;
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }
}

/** The lease of a task is a key beside its hash whose value names the owner. */
class RedisTaskLeases implements TaskLeases {
  constructor(
    private readonly redis: RedisConnection,
    private readonly taskKey: (taskId: string) => string,
  ) {}

  async claim(taskId: string, owner: string, ms: number): Promise<boolean> {
    return (await this.redis.command<string | null>(['SET', `${this.taskKey(taskId)}:lease`, owner, 'NX', 'PX', Math.ceil(ms)], { durable: (reply) => reply === 'OK' })) === 'OK';
  }

  async renew(taskId: string, owner: string, ms: number): Promise<boolean> {
    return (await this.redis.script<number>(RENEW, [`${this.taskKey(taskId)}:lease`], [owner, Math.ceil(ms)])) === 1;
  }

  async release(taskId: string, owner: string): Promise<void> {
    await this.redis.script(RELEASE, [`${this.taskKey(taskId)}:lease`], [owner]);
  }

  async held(taskId: string): Promise<boolean> {
    return (await this.redis.command<number>(['EXISTS', `${this.taskKey(taskId)}:lease`])) === 1;
  }
}

const STEP = 's:';
const ANSWER = 'a:';

class RedisTaskCheckpoints implements TaskCheckpoints {
  constructor(
    private readonly redis: RedisConnection,
    private readonly taskKey: (taskId: string) => string,
  ) {}

  async saveStep(taskId: string, owner: string, name: string, value: JsonValue, expiresAt: number): Promise<boolean> {
    const key = this.taskKey(taskId);
    return (await this.redis.script<number>(SAVE_STEP, [`${key}:lease`, `${key}:checkpoint`], [owner, STEP + name, JSON.stringify(value), expiresAt], { durable: (saved) => saved === 1 })) === 1;
  }

  async saveAnswers(taskId: string, answers: Record<string, unknown>, expiresAt: number): Promise<Record<string, unknown>> {
    const pairs = Object.entries(answers).flatMap(([key, answer]) => [ANSWER + key, JSON.stringify(answer)]);
    const flat = await this.redis.script<string[]>(SAVE_ANSWERS, [`${this.taskKey(taskId)}:checkpoint`], [expiresAt, ...pairs], { durable: () => true });
    return Object.fromEntries(hashEntries(flat).map(([field, json]) => [field.slice(ANSWER.length), JSON.parse(json)]));
  }

  async read(taskId: string): Promise<TaskCheckpoint> {
    const fields = await this.redis.command<HashReply>(['HGETALL', `${this.taskKey(taskId)}:checkpoint`]);
    const checkpoint: TaskCheckpoint = { steps: {}, answers: {} };
    for (const [field, json] of hashEntries(fields)) {
      if (field.startsWith(STEP)) checkpoint.steps[field.slice(STEP.length)] = JSON.parse(json) as JsonValue;
      else if (field.startsWith(ANSWER)) checkpoint.answers[field.slice(ANSWER.length)] = JSON.parse(json);
    }
    return checkpoint;
  }

  /** The set of resumable tasks, then each task's status and lease (in the task's own slot), asked together; what ended or expired leaves the set. */
  async lapsed(cursor: number, count: number): Promise<{ taskIds: string[]; cursor: number }> {
    const resumable = `${this.redis.prefix}resumable-tasks`;
    await this.redis.command(['ZREMRANGEBYSCORE', resumable, '-inf', Date.now()]);
    const ids = await this.redis.command<string[]>(['ZRANGE', resumable, cursor, cursor + count - 1]);
    const states = await Promise.all(ids.map((id) => this.redis.script<[string | null, number]>(LIVENESS, [this.taskKey(id), `${this.taskKey(id)}:lease`], [])));
    const taskIds: string[] = [];
    const ended: string[] = [];
    ids.forEach((id, i) => {
      const [status, leased] = states[i]!;
      if (status !== '"working"' && status !== '"input_required"') ended.push(id);
      else if (leased === 0) taskIds.push(id);
    });
    if (ended.length > 0) await this.redis.command(['ZREM', resumable, ...ended]);
    return { taskIds, cursor: ids.length === count ? cursor + ids.length - ended.length : 0 };
  }
}
