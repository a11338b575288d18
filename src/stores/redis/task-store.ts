/**
 * Tasks on Redis. Each task is a hash of JSON-encoded fields that expires with
 * the task; creation and status transitions are Lua scripts, so the limits
 * and compare-and-set hold across instances; events (answers, cancellation)
 * travel on the task's pub/sub channel to the instance running it, and that
 * instance holds a lease the others can see lapse when it dies.
 */

import type { TaskCreation, TaskData, TaskEvent, TaskPatch, TaskStatus, TaskStore } from '../task-store.js';
import type { RedisConnection } from './connection.js';
import { fromJsonHash } from './json-hash.js';

// KEYS: task hash, the principal's tasks, all tasks. ARGV: now, expiresAt, maxPerPrincipal, maxTasks (-1: none), taskId, then field/value pairs.
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then return 'store-full' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'principal-full' end
if tonumber(ARGV[4]) >= 0 and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 'store-full' end
for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[5])
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

const FIELDS = ['taskId', 'principal', 'status', 'statusMessage', 'createdAt', 'lastUpdatedAt', 'ttlMs', 'pollIntervalMs', 'result', 'error', 'inputRequests'] as const;

export interface RedisTaskStoreOptions {
  /** Most tasks held at once (default: no bound but Redis's own memory). */
  maxTasks?: number;
}

export class RedisTaskStore implements TaskStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisTaskStoreOptions = {},
  ) {}

  private key(taskId: string): string {
    return `${this.redis.prefix}task:${taskId}`;
  }

  async create(task: TaskData, maxPerPrincipal: number): Promise<TaskCreation> {
    const pairs = FIELDS.flatMap((field) => (task[field] === undefined ? [] : [field, JSON.stringify(task[field])]));
    return this.redis.script<TaskCreation>(
      CREATE,
      [this.key(task.taskId), `${this.redis.prefix}tasks-of:${task.principal}`, `${this.redis.prefix}tasks`],
      [Date.now(), task.createdAt + task.ttlMs, maxPerPrincipal, this.options.maxTasks ?? -1, task.taskId, ...pairs],
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

  async holdLease(taskId: string, ms: number): Promise<void> {
    await this.redis.command(['SET', `${this.key(taskId)}:lease`, '1', 'PX', Math.ceil(ms)]);
  }

  async releaseLease(taskId: string): Promise<void> {
    await this.redis.command(['DEL', `${this.key(taskId)}:lease`]);
  }

  async leaseHeld(taskId: string): Promise<boolean> {
    return (await this.redis.command<number>(['EXISTS', `${this.key(taskId)}:lease`])) === 1;
  }
}
