/**
 * The task store the extension uses, counting each task that enters a status
 * (created as `working`, then every transition that took), for the task
 * metrics. Everything else goes straight to the store it wraps.
 */

import type { TaskCreation, TaskData, TaskEvent, TaskPatch, TaskStatus, TaskStore } from '../stores/task-store.js';

export class StatusCountingStore implements TaskStore {
  readonly holdLease?: (taskId: string, ms: number) => Promise<void>;
  readonly releaseLease?: (taskId: string) => Promise<void>;
  readonly leaseHeld?: (taskId: string) => Promise<boolean>;

  constructor(
    private readonly store: TaskStore,
    private readonly count: (status: TaskStatus) => void,
  ) {
    // Only the leases the store has: a store of one process has none, and the runner asks which it has.
    if (store.holdLease) this.holdLease = store.holdLease.bind(store);
    if (store.releaseLease) this.releaseLease = store.releaseLease.bind(store);
    if (store.leaseHeld) this.leaseHeld = store.leaseHeld.bind(store);
  }

  async create(task: TaskData, maxPerPrincipal: number): Promise<TaskCreation> {
    const created = await this.store.create(task, maxPerPrincipal);
    if (created === 'created') this.count(task.status);
    return created;
  }

  get(taskId: string): Promise<TaskData | undefined> {
    return this.store.get(taskId);
  }

  async transition(taskId: string, from: readonly TaskStatus[], patch: TaskPatch): Promise<TaskData | undefined> {
    const updated = await this.store.transition(taskId, from, patch);
    if (updated && patch.status !== undefined) this.count(patch.status);
    return updated;
  }

  notify(taskId: string, event: TaskEvent): Promise<void> {
    return this.store.notify(taskId, event);
  }

  listen(taskId: string, onEvent: (event: TaskEvent) => void): Promise<() => void> {
    return this.store.listen(taskId, onEvent);
  }
}
