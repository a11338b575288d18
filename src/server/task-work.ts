/**
 * Work a tool hands over with `ctx.task(fn)`: when the request declared the
 * Tasks extension (and the server offers it), `fn` runs in the background as
 * a task the client polls; otherwise it simply runs now and its result is the
 * tool's result. This file only describes the work; the tasks layer runs it.
 */

import type { AnswersOf, QuestionMap } from '../mrtr/interaction.js';
import type { Question } from '../mrtr/questions.js';
import type { CallToolResult } from '../protocol/types.js';
import type { RequestContext } from './context.js';

/** What the background work sees. */
export interface TaskContext {
  /** The task's id; empty when the work runs inline (no task was made). */
  readonly taskId: string;
  /** Aborted when the client cancels the task (tasks/cancel) or the request. */
  readonly signal: AbortSignal;
  /**
   * Asks the client during the task: the task shows `input_required` with the
   * question until the client answers with `tasks/update` (inline: the
   * request's own `ctx.ask`).
   */
  ask<A>(question: Question<A>): Promise<A>;
  ask<M extends QuestionMap>(questions: M): Promise<AnswersOf<M>>;
}

export interface TaskOptions {
  /** How long the task's record lives after it is created, in ms (default: the server's `tasks.ttlMs`). */
  ttlMs?: number;
  /** How often the client should poll, in ms (default: the server's `tasks.pollIntervalMs`). */
  pollIntervalMs?: number;
}

const TASK_WORK: unique symbol = Symbol('tessera.taskWork');

export interface TaskWork {
  readonly [TASK_WORK]: true;
  readonly options: TaskOptions;
  /** Runs the work and shapes what it returns into the tool's result. */
  run(context: TaskContext): Promise<CallToolResult>;
}

export function taskWork(run: (context: TaskContext) => Promise<CallToolResult>, options: TaskOptions = {}): TaskWork {
  return { [TASK_WORK]: true, options, run };
}

export function isTaskWork(value: unknown): value is TaskWork {
  return typeof value === 'object' && value !== null && (value as Partial<TaskWork>)[TASK_WORK] === true;
}

/** The context of task work that runs inside its request: the request's own signal and asks. */
export function inlineTask(ctx: RequestContext): TaskContext {
  return {
    taskId: '',
    get signal() {
      return ctx.signal;
    },
    ask: ((input: Question<unknown> | QuestionMap) => ctx.ask(input as QuestionMap)) as TaskContext['ask'],
  };
}
