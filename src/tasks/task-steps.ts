/**
 * The steps of one run of task work (`task.once`): each runs once per name and
 * its result is kept as JSON. In a resumable task each result is recorded in
 * the task store (`record`) before `once` returns, within the task's byte
 * budget, and the steps an earlier run recorded return their results without
 * running again.
 */

import { asJsonValue } from '../mrtr/replay.js';
import { McpError } from '../protocol/errors.js';
import type { JsonValue } from '../protocol/types.js';
import type { TaskStep } from './task-work.js';

/** Records one step's result in the store; throws when it cannot (the step then fails). */
export type RecordStep = (name: string, value: JsonValue) => Promise<void>;

const encoder = new TextEncoder();

export class TaskSteps {
  private readonly done: Map<string, JsonValue>;
  private readonly running = new Map<string, Promise<unknown>>();
  /** Bytes of JSON recorded so far (counting what earlier runs recorded). */
  private bytes = 0;

  constructor(
    private readonly taskId: string,
    recorded: Readonly<Record<string, JsonValue>>,
    /** Absent for a plain task: its steps are kept in this run only. */
    private readonly record: RecordStep | undefined,
    private readonly maxBytes: number,
  ) {
    this.done = new Map(Object.entries(recorded));
    for (const value of this.done.values()) this.bytes += encoder.encode(JSON.stringify(value)).byteLength;
  }

  once<T>(name: string, fn: (step: TaskStep) => T | Promise<T>): Promise<T> {
    if (this.done.has(name)) return Promise.resolve(this.done.get(name) as T);
    const running = this.running.get(name);
    if (running) return running as Promise<T>;
    const run = this.run(name, fn);
    const settled = (): void => void this.running.delete(name);
    void run.then(settled, settled);
    this.running.set(name, run);
    return run;
  }

  private async run<T>(name: string, fn: (step: TaskStep) => T | Promise<T>): Promise<T> {
    const value = await fn({ idempotencyKey: `${this.taskId}:${name}` });
    const json = asJsonValue(value, `task.once("${name}")`);
    if (this.record) {
      const size = encoder.encode(JSON.stringify(json)).byteLength;
      if (this.bytes + size > this.maxBytes) {
        throw McpError.internal(`task.once("${name}"): its result (${size} bytes) would take the task's recorded steps past tasks.maxCheckpointBytes (${this.maxBytes} bytes)`);
      }
      await this.record(name, json);
      this.bytes += size;
    }
    this.done.set(name, json);
    return value;
  }
}
