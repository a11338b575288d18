/**
 * Tasks on Redis. Each task is a hash of JSON-encoded fields that expires with
 * the task; creation and status transitions are Lua scripts, so the limits
 * and compare-and-set hold across instances; events (answers, cancellation)
 * travel on the task's pub/sub channel to the instance running it, and that
 * instance holds a lease (a key naming it, with an expiry) the others can see
 * lapse when it dies. A resumable task's checkpoint is a second hash beside
 * it (`s:<step>`, `a:<question key>`), written only by the lease's holder.
 */

import type { JsonValue } from '../../protocol/types.js';
import type { TaskCheckpoint, TaskCheckpoints, TaskCreation, TaskData, TaskEvent, TaskLeases, TaskPatch, TaskStatus, TaskStore } from '../task-store.js';
import type { RedisConnection } from './connection.js';
import { fromJsonHash, hashEntries, type HashReply } from './json-hash.js';

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

// KEYS: resumable tasks. ARGV: now, cursor, count, the prefix of task keys. Reads task hashes and leases by
// name (keys not declared: fine on one Redis, not on a Redis Cluster); drops what ended or expired.
const LAPSED = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local start = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
local ids = redis.call('ZRANGE', KEYS[1], start, start + count - 1)
local lapsed = {}
local dropped = 0
for _, id in ipairs(ids) do
  local key = ARGV[4] .. id
  local status = redis.call('HGET', key, 'status')
  if status ~= '"working"' and status ~= '"input_required"' then
    redis.call('ZREM', KEYS[1], id)
    dropped = dropped + 1
  elseif redis.call('EXISTS', key .. ':lease') == 0 then
    table.insert(lapsed, id)
  end
end
local nextCursor = 0
if #ids == count then nextCursor = start + #ids - dropped end
return {nextCursor, lapsed}`;

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
    return `${this.redis.prefix}task:${taskId}`;
  }

  async create(task: TaskData, maxPerPrincipal: number): Promise<TaskCreation> {
    const pairs = FIELDS.flatMap((field) => (task[field] === undefined ? [] : [field, JSON.stringify(task[field])]));
    return this.redis.script<TaskCreation>(
      CREATE,
      [this.key(task.taskId), `${this.redis.prefix}tasks-of:${task.principal}`, `${this.redis.prefix}tasks`, `${this.redis.prefix}resumable-tasks`],
      [Date.now(), task.createdAt + task.ttlMs, maxPerPrincipal, this.options.maxTasks ?? -1, task.taskId, task.call ? 1 : 0, ...pairs],
    );
  }

  async get(taskId: string): Promise<TaskData | undefined> {
    return fromJsonHash<TaskData>(await this.redis.command<string[] | Record<string, string>>(['HGETALL', this.key(taskId)]));
  }

  async transition(taskId: string, from: readonly TaskStatus[], patch: TaskPatch): Promise<TaskData | undefined> {
    const pairs = Object.entries(patch).flatMap(([field, value]) => [field, value === undefined ? '' : JSON.stringify(value)]);
    const flat = await this.redis.script<string[] | null>(TRANSITION, [this.key(taskId)], [from.map((s) => JSON.stringify(s)).join(','), JSON.stringify(Date.now()), ...pairs]);
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
    return (await this.redis.command<string | null>(['SET', `${this.taskKey(taskId)}:lease`, owner, 'NX', 'PX', Math.ceil(ms)])) === 'OK';
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
    return (await this.redis.script<number>(SAVE_STEP, [`${key}:lease`, `${key}:checkpoint`], [owner, STEP + name, JSON.stringify(value), expiresAt])) === 1;
  }

  async saveAnswers(taskId: string, answers: Record<string, unknown>, expiresAt: number): Promise<Record<string, unknown>> {
    const pairs = Object.entries(answers).flatMap(([key, answer]) => [ANSWER + key, JSON.stringify(answer)]);
    const flat = await this.redis.script<string[]>(SAVE_ANSWERS, [`${this.taskKey(taskId)}:checkpoint`], [expiresAt, ...pairs]);
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

  async lapsed(cursor: number, count: number): Promise<{ taskIds: string[]; cursor: number }> {
    const [next, taskIds] = await this.redis.script<[number, string[]]>(LAPSED, [`${this.redis.prefix}resumable-tasks`], [Date.now(), cursor, count, this.taskKey('')]);
    return { taskIds, cursor: next };
  }
}
