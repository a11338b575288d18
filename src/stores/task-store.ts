/**
 * Tasks as plain data (Tasks extension): status, result or error, and the
 * questions a task waits on, in a store any instance can read. The work itself
 * runs on one instance (tasks/task-runner.ts), which hears answers and
 * cancellation for its tasks through the store's events, so `tasks/update` and
 * `tasks/cancel` work from whichever instance receives them. A shared store
 * also has leases (who runs a task) and the checkpoints of resumable tasks
 * (what another instance needs to carry one on).
 */

import type { AuthInfo } from '../protocol/authorization.js';
import type { JsonRpcErrorObject } from '../protocol/errors.js';
import type { InputRequest, JsonValue, Result } from '../protocol/types.js';
import { ExpiringMap } from './expiring-map.js';
import { MemoryTaskCheckpoints, MemoryTaskLeases, type TaskCheckpoints, type TaskLeases } from './task-checkpoints.js';

export type { TaskCheckpoint, TaskCheckpoints, TaskLeases } from './task-checkpoints.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The statuses a task can still leave (the rest are terminal: completed, failed, cancelled). */
export const LIVE_STATUSES: readonly TaskStatus[] = ['working', 'input_required'];

export interface TaskData {
  taskId: string;
  /** Who created it; nobody else may see or steer it. */
  principal: string;
  status: TaskStatus;
  statusMessage?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  lastUpdatedAt: number;
  /** The record lives this long after `createdAt`. */
  ttlMs: number;
  pollIntervalMs: number;
  /** The tool's result, once completed. */
  result?: Result;
  /** The JSON-RPC error, once failed. */
  error?: JsonRpcErrorObject;
  /** Questions waiting for `tasks/update`, by key, while `input_required`. */
  inputRequests?: Record<string, InputRequest>;
  /** The call that made a resumable task (absent for a plain one): what another instance runs again. */
  call?: TaskCall;
  /** How many times another instance took the task over after its instance stopped. */
  resumptions?: number;
}

/** The tool call a resumable task came from, as plain data. */
export interface TaskCall {
  tool: string;
  /** The arguments as the client sent them. */
  arguments: Record<string, unknown>;
  /** The request's `_meta` as sent (protocol version, client capabilities and info). */
  meta: Record<string, unknown>;
  /** The verified token's caller at creation (its claims; the token itself is never kept). */
  auth?: AuthInfo;
  /** What the request's flow had recorded when the tool handed the work over (answers of its input rounds, `ctx.once` results). */
  flow?: JsonValue;
}

export type TaskPatch = Partial<Pick<TaskData, 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'resumptions'>>;

/** What reaches the instance running a task. */
export type TaskEvent = { type: 'answers'; answers: Record<string, unknown> } | { type: 'cancelled' };

/** What came of creating a task: made, or refused for the store's limit or for its creator's share of it. */
export type TaskCreation = 'created' | 'store-full' | 'principal-full';

export interface TaskStore {
  /**
   * Adds a new task, unless the store is full or its principal already has
   * `maxPerPrincipal` tasks (of any status) in it; says which.
   */
  create(task: TaskData, maxPerPrincipal: number): Promise<TaskCreation>;
  /** The task, or undefined when unknown or expired. */
  get(taskId: string): Promise<TaskData | undefined>;
  /**
   * Compare-and-set: applies `patch` (and a new `lastUpdatedAt`) only while the
   * task's status is one of `from`; the updated task, or undefined when it was not.
   */
  transition(taskId: string, from: readonly TaskStatus[], patch: TaskPatch): Promise<TaskData | undefined>;
  /** Tells the instance running the task (answers arrived, the task was cancelled). */
  notify(taskId: string, event: TaskEvent): Promise<void>;
  /** Hears the events of a task this instance runs from when it resolves, until the function it resolves with is called. */
  listen(taskId: string, onEvent: (event: TaskEvent) => void): Promise<() => void>;
  /**
   * Leases, for stores shared by several instances: the instance running a
   * task holds its lease and renews it; when it lapses (the instance died),
   * any instance fails the task, or resumes it when it is resumable.
   */
  readonly leases?: TaskLeases;
  /** What resumable tasks record as they go (needs `leases`); without it no task is resumable. */
  readonly checkpoints?: TaskCheckpoints;
}

export interface MemoryTaskStoreOptions {
  /** Most tasks held at once (default 10,000); beyond it new tasks are refused. */
  maxTasks?: number;
  clock?: () => number;
}

/**
 * For one process (or tests). Several instances need a shared store, e.g.
 * Redis. Given to several servers of one process, its leases and
 * checkpoints let one server resume what another left.
 */
export class MemoryTaskStore implements TaskStore {
  readonly leases: TaskLeases;
  readonly checkpoints: TaskCheckpoints;
  /** The checkpoints as this store keeps them (it tells them of each resumable task it creates). */
  private readonly memoryCheckpoints: MemoryTaskCheckpoints;
  private readonly tasks: ExpiringMap<string, TaskData>;
  /** The ids of each principal's tasks (some may have expired; counting checks). */
  private readonly byPrincipal = new Map<string, Set<string>>();
  private readonly listeners = new Map<string, Set<(event: TaskEvent) => void>>();
  private readonly clock: () => number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.clock = options.clock ?? (() => Date.now());
    this.tasks = new ExpiringMap({ maxEntries: options.maxTasks ?? 10_000, clock: this.clock });
    const leases = new MemoryTaskLeases(this.clock);
    this.leases = leases;
    this.memoryCheckpoints = new MemoryTaskCheckpoints(this.clock, leases, (taskId) => {
      const task = this.tasks.get(taskId);
      return task !== undefined && LIVE_STATUSES.includes(task.status);
    });
    this.checkpoints = this.memoryCheckpoints;
  }

  get size(): number {
    return this.tasks.size;
  }

  create(task: TaskData, maxPerPrincipal: number): Promise<TaskCreation> {
    const mine = this.byPrincipal.get(task.principal) ?? new Set<string>();
    for (const id of mine) if (this.tasks.get(id) === undefined) mine.delete(id);
    if (mine.size >= maxPerPrincipal) return Promise.resolve('principal-full');
    if (!this.tasks.set(task.taskId, structuredClone(task), task.createdAt + task.ttlMs)) return Promise.resolve('store-full');
    mine.add(task.taskId);
    this.byPrincipal.set(task.principal, mine);
    if (task.call) this.memoryCheckpoints.track(task.taskId);
    return Promise.resolve('created');
  }

  get(taskId: string): Promise<TaskData | undefined> {
    const task = this.tasks.get(taskId);
    return Promise.resolve(task && structuredClone(task));
  }

  transition(taskId: string, from: readonly TaskStatus[], patch: TaskPatch): Promise<TaskData | undefined> {
    const task = this.tasks.get(taskId);
    if (!task || !from.includes(task.status)) return Promise.resolve(undefined);
    for (const [field, value] of Object.entries(patch) as Array<[keyof TaskPatch, unknown]>) {
      if (value === undefined) delete task[field];
      else Object.assign(task, { [field]: structuredClone(value) });
    }
    task.lastUpdatedAt = this.clock();
    return Promise.resolve(structuredClone(task));
  }

  notify(taskId: string, event: TaskEvent): Promise<void> {
    for (const listener of [...(this.listeners.get(taskId) ?? [])]) listener(event);
    return Promise.resolve();
  }

  listen(taskId: string, onEvent: (event: TaskEvent) => void): Promise<() => void> {
    let set = this.listeners.get(taskId);
    if (!set) this.listeners.set(taskId, (set = new Set()));
    set.add(onEvent);
    return Promise.resolve(() => {
      set.delete(onEvent);
      if (set.size === 0) this.listeners.delete(taskId);
    });
  }
}
