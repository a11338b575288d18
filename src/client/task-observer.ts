/**
 * Watching a task's status, `onRound`-style: the app's observers hear of the
 * task when it is created and whenever its status or status message changes
 * (not on every poll), and any of them may stop it by returning false.
 */

import type { TaskInfo } from '../protocol/method-types.js';

export interface TaskUpdate {
  /** The task as last seen: the `CreateTaskResult` first, then what `tasks/get` or a notification reported. */
  task: TaskInfo;
  /** The request the task stands for (`tools/call`), and its params (`{}` for a task resumed by its id alone). */
  method: string;
  params: Readonly<Record<string, unknown>>;
}

/** Hears of task status changes; returning false stops following the task (it is cancelled). */
export type TaskObserver = (update: TaskUpdate) => void | boolean | Promise<void | boolean>;

export class TaskWatch {
  private seen: string | undefined;

  constructor(
    private readonly observers: ReadonlyArray<TaskObserver | undefined>,
    private readonly method: string,
    private readonly params: Readonly<Record<string, unknown>>,
  ) {}

  /** Tells the observers when the task changed; false when one of them asks to stop. */
  async saw(task: TaskInfo): Promise<boolean> {
    const now = `${task.status}\u0000${task.statusMessage ?? ''}`;
    if (now === this.seen) return true;
    this.seen = now;
    let goOn = true;
    for (const observer of this.observers) {
      if (observer && (await observer({ task, method: this.method, params: this.params })) === false) goOn = false;
    }
    return goOn;
  }
}
