/**
 * The task store the extension uses, counting each task that enters a status
 * (created as `working`, then every transition that took), for the task
 * metrics. Everything else goes straight to the store it wraps.
 */

import type { TaskCheckpoints, TaskCreation, TaskData, TaskEvent, TaskLeases, TaskPatch, TaskStatus, TaskStore } from '../stores/task-store.js';

export class StatusCountingStore implements TaskStore {
  readonly leases: TaskLeases | undefined;
  readonly checkpoints: TaskCheckpoints | undefined;

  /** `shared`: whether other servers may use the store too (else it needs no leases: its tasks live and die with this server). */
  constructor(
    private readonly store: TaskStore,
    private readonly count: (status: TaskStatus) => void,
    shared: boolean,
  ) {
    this.leases = shared ? store.leases : undefined;
    this.checkpoints = this.leases ? store.checkpoints : undefined;
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
