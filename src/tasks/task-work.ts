/**
 * Work a tool hands over with `ctx.task(fn)` (Tasks extension): when the
 * request declared the extension (and the tool takes part in it), `fn` runs in
 * the background as a task the client polls; otherwise it simply runs now and
 * its result is the tool's result. This file describes the work and adds
 * `ctx.task` and the tool definition's `task` to the server's types.
 */

import type { AnswersOf, QuestionMap } from '../mrtr/interaction.js';
import type { Question } from '../mrtr/questions.js';
import { randomId } from '../platform/crypto.js';
import type { CoreContext } from '../server/context.js';
import type { SchemaInput } from '../schema/resolve.js';
import type { ToolDefinition, ToolHandOff, ToolResult } from '../server/tools.js';

/** What the background work sees. */
export interface TaskContext {
  /** The task's id; empty when the work runs inline (no task was made). */
  readonly taskId: string;
  /** Aborted when the client cancels the task (tasks/cancel), the request, or the task expires. */
  readonly signal: AbortSignal;
  /**
   * Asks the client during the task: the task shows `input_required` with the
   * question until the client answers with `tasks/update` (inline: the
   * request's own `ctx.ask`).
   */
  ask<A>(question: Question<A>): Promise<A>;
  ask<M extends QuestionMap>(questions: M): Promise<AnswersOf<M>>;
  /**
   * A step: runs `fn` the first time the work reaches `name` and returns its
   * result (a JSON value); reached again — the same name later in this run, or
   * when a resumable task runs again on another instance — returns that result
   * without running `fn`. In a resumable task the result is in the task store
   * before `once` returns, so the next step never starts before this one is
   * recorded; `fn` is given the step's idempotency key.
   */
  once<T>(name: string, fn: (step: TaskStep) => T | Promise<T>): Promise<T>;
}

/** What a step (`task.once`) is given. */
export interface TaskStep {
  /**
   * `<task id>:<step name>`, the same each time this step runs. A step runs
   * twice only when its instance stopped while it ran and another instance
   * resumed the task: pass the key to what the step calls (a payment API's
   * idempotency key, a unique column) so that the second run has no second
   * effect. Inline (no task made) it is new for each run.
   */
  readonly idempotencyKey: string;
}

export interface TaskOptions {
  /** How long the task's record lives after it is created, in ms (default: the server's `tasks.ttlMs`). */
  ttlMs?: number;
  /** How often the client should poll, in ms (default: the server's `tasks.pollIntervalMs`). */
  pollIntervalMs?: number;
}

/** What task work may return: text or a result (shaped like a tool's). */
export type TaskReturn = string | ToolResult;

export const TASKS_HAND_OFF = 'tasks';

export interface TaskWork extends ToolHandOff {
  readonly handOffTo: typeof TASKS_HAND_OFF;
  readonly options: TaskOptions;
  run(context: TaskContext): Promise<TaskReturn>;
}

export function taskWork(run: (context: TaskContext) => TaskReturn | Promise<TaskReturn>, options: TaskOptions = {}): TaskWork {
  return { handOffTo: TASKS_HAND_OFF, options, run: async (context) => run(context) };
}

export function isTaskWork(value: ToolHandOff): value is TaskWork {
  return value.handOffTo === TASKS_HAND_OFF && typeof (value as Partial<TaskWork>).run === 'function';
}

/** The context of task work that runs inside its request: the request's own signal and asks. */
export function inlineTask(ctx: CoreContext): TaskContext {
  return new InlineTask(ctx);
}

/** A class, not an object literal with a `signal` getter (V8 makes those in old space; see transport/http/node-request.ts). */
class InlineTask implements TaskContext {
  readonly taskId = '';
  readonly ask: TaskContext['ask'];

  constructor(private readonly ctx: CoreContext) {
    this.ask = ctx.ask.bind(ctx);
  }

  get signal(): AbortSignal {
    return this.ctx.signal;
  }

  /** The request's own `ctx.once`: a step of its flow, run once however many rounds it takes. */
  once<T>(name: string, fn: (step: TaskStep) => T | Promise<T>): Promise<T> {
    return this.ctx.once(name, () => fn({ idempotencyKey: `inline-${randomId(12)}:${name}` }));
  }
}

/** How a tool takes part in tasks (its definition's `task`), or undefined when it does not. */
export function taskToolOf(task: ToolDefinition<SchemaInput | undefined>['task']): Required<TaskTool> | undefined {
  if (task === undefined) return undefined;
  if (typeof task === 'string') return { mode: task, resume: false };
  return { mode: task.mode ?? 'optional', resume: task.resume ?? false };
}

/** A tool definition's `task` in its long form. */
export interface TaskTool {
  /** As the short forms: `optional` (the default) or `required`. */
  mode?: 'optional' | 'required';
  /**
   * Resume the task on another instance when the one running it stops
   * (docs/tasks.md, "Tasks that outlive their instance"): with a shared
   * task store, steps (`task.once`) done are not done again.
   */
  resume?: boolean;
}

declare module '../server/context.js' {
  interface ContextExtensions {
    /**
     * Hands the rest of a tool call over as a task (Tasks extension): when the
     * request declared it and the tool allows tasks, the client gets a task it
     * can poll while `fn` runs; otherwise `fn` runs now and its result is the
     * tool's result. Ask everything the call needs before this (input rounds
     * come first); inside, `task.ask` asks through the task.
     */
    task(fn: (task: TaskContext) => TaskReturn | Promise<TaskReturn>, options?: TaskOptions): TaskWork;
  }
}

declare module '../server/tools.js' {
  interface ToolDefinition<S extends SchemaInput | undefined = undefined> {
    /**
     * Tasks extension: `optional` — `ctx.task(fn)` becomes a task when the
     * request declared the extension, and runs inline otherwise; `required` — a
     * request that did not declare it gets -32021; `{ resume: true }` (and
     * `mode`) — a task another instance resumes when its own stops. Without
     * this, `ctx.task` always runs inline.
     */
    task?: 'optional' | 'required' | TaskTool;
  }
}
