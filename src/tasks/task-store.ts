/**
 * The tasks this instance runs (Tasks extension, `io.modelcontextprotocol/tasks`):
 * their status, result or error, and the questions they are waiting on. A
 * task's record lives `ttlMs` after it is created, then it is gone (-32602).
 */

import { randomBytes } from 'node:crypto';
import type { JsonRpcErrorObject } from '../protocol/errors.js';
import type { InputRequest } from '../protocol/types.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export interface Outstanding {
  request: InputRequest;
  /** Takes the client's answer; false when it is not a valid answer (the question stays open). */
  deliver: (answer: unknown) => void;
}

export class TaskRecord {
  readonly taskId = `task-${randomBytes(16).toString('base64url')}`;
  readonly createdAt = Date.now();
  lastUpdatedAt = this.createdAt;
  status: TaskStatus = 'working';
  statusMessage: string | undefined;
  result: Record<string, unknown> | undefined;
  error: JsonRpcErrorObject | undefined;
  /** Questions waiting for `tasks/update`, by key (keys are never reused within a task). */
  readonly outstanding = new Map<string, Outstanding>();
  readonly controller = new AbortController();
  private nextKey = 1;

  constructor(
    /** Who created it; nobody else may see or steer it. */
    readonly principal: string,
    readonly ttlMs: number,
    readonly pollIntervalMs: number,
  ) {}

  get terminal(): boolean {
    return TERMINAL.has(this.status);
  }

  /** A key for a new question: the question's own name plus a counter, unique for the task's lifetime. */
  newKey(base: string): string {
    return `${base}-${this.nextKey++}`;
  }

  set(status: TaskStatus, message?: string): void {
    if (this.terminal) return;
    this.status = status;
    this.statusMessage = message;
    this.lastUpdatedAt = Date.now();
  }

  /** The task as `tasks/get` reports it (`DetailedTask`). */
  detailed(): Record<string, unknown> {
    const task: Record<string, unknown> = {
      taskId: this.taskId,
      status: this.status,
      createdAt: new Date(this.createdAt).toISOString(),
      lastUpdatedAt: new Date(this.lastUpdatedAt).toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
    if (this.statusMessage !== undefined) task.statusMessage = this.statusMessage;
    if (this.status === 'input_required') task.inputRequests = Object.fromEntries([...this.outstanding].map(([key, o]) => [key, o.request]));
    if (this.status === 'completed') task.result = this.result;
    if (this.status === 'failed') task.error = this.error;
    return task;
  }
}

export interface TaskStoreOptions {
  /** How long a task's record lives after creation, in ms (default 1 hour). */
  ttlMs?: number;
  /** How often clients should poll, in ms (default 1000). */
  pollIntervalMs?: number;
  /** Most tasks held at once (default 10,000); beyond it new tasks are refused. */
  maxTasks?: number;
}

export class TaskStore {
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  private readonly maxTasks: number;
  private readonly tasks = new Map<string, TaskRecord>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: TaskStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? 60 * 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.maxTasks = options.maxTasks ?? 10_000;
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Adds a task; false when the store is full. */
  add(task: TaskRecord): boolean {
    this.sweep();
    if (this.tasks.size >= this.maxTasks) return false;
    this.tasks.set(task.taskId, task);
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1000, this.ttlMs / 4)));
      this.sweeper.unref?.();
    }
    return true;
  }

  /** The task with this id created by this principal, or undefined (unknown, expired, or someone else's). */
  get(taskId: unknown, principal: string): TaskRecord | undefined {
    if (typeof taskId !== 'string') return undefined;
    const task = this.tasks.get(taskId);
    if (!task || task.principal !== principal) return undefined;
    if (Date.now() >= task.createdAt + task.ttlMs) {
      this.drop(task);
      return undefined;
    }
    return task;
  }

  private drop(task: TaskRecord): void {
    this.tasks.delete(task.taskId);
    task.controller.abort(new Error('The task expired'));
  }

  private sweep(): void {
    const now = Date.now();
    for (const task of this.tasks.values()) if (now >= task.createdAt + task.ttlMs) this.drop(task);
    if (this.tasks.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** Cancels and forgets every task (server shutdown). */
  clear(): void {
    for (const task of [...this.tasks.values()]) this.drop(task);
  }
}
