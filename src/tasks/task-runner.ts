/**
 * Runs task work on this instance: records the task in the store, runs the
 * work in the background, and writes what happens (questions asked during the
 * task, the result or error) back with compare-and-set transitions, so a
 * cancellation from any instance wins over a result that arrives after it.
 * Answers and cancellation reach the work through the store's task events.
 */

import { askAll, judgeAnswer } from '../mrtr/ask-all.js';
import type { QuestionMap } from '../mrtr/interaction.js';
import type { Question } from '../mrtr/questions.js';
import { McpError, isReservedErrorCode } from '../protocol/errors.js';
import type { ClientCapabilities, InputRequest, Result } from '../protocol/types.js';
import { randomId } from '../platform/crypto.js';
import { LIVE_STATUSES, type TaskCreation, type TaskData, type TaskEvent, type TaskStore } from '../stores/task-store.js';
import type { ServerLogger } from '../server/options.js';
import type { TaskContext, TaskReturn, TaskWork } from './task-work.js';

export interface TaskDefaults {
  ttlMs: number;
  pollIntervalMs: number;
  /** Most tasks one principal may hold (any status). */
  maxTasksPerPrincipal: number;
  /** The store's own bound, for the refusal's message (undefined when the store is the app's). */
  maxTasks: number | undefined;
  /** How long a lease on a running task lasts without renewal (shared stores only). */
  leaseMs: number;
}

/** A question waiting for `tasks/update`. */
interface Waiting {
  request: InputRequest;
  take(answer: unknown): void;
}

/** One task running here: its questions, and what stops it. */
class RunningTask {
  readonly controller = new AbortController();
  readonly waiting = new Map<string, Waiting>();
  private nextKey = 1;

  constructor(readonly taskId: string) {}

  /** A key for a new question: its own name plus a counter, never reused within the task. */
  newKey(base: string): string {
    return `${base}-${this.nextKey++}`;
  }

  inputRequests(): Record<string, InputRequest> {
    return Object.fromEntries([...this.waiting].map(([key, w]) => [key, w.request]));
  }
}

export class TaskRunner {
  private readonly running = new Set<RunningTask>();

  constructor(
    private readonly store: TaskStore,
    private readonly defaults: TaskDefaults,
    private readonly logger: ServerLogger,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /**
   * Makes a task for `work` and starts it. `shape` turns what the work returns
   * into the tool's result. Resolves with the task as created (for the `CreateTaskResult`).
   */
  async start(
    work: TaskWork,
    principal: string,
    capabilities: ClientCapabilities,
    shape: (value: TaskReturn) => Promise<Result>,
  ): Promise<TaskData> {
    const now = this.clock();
    const task: TaskData = {
      taskId: `task-${randomId(16)}`,
      principal,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: work.options.ttlMs ?? this.defaults.ttlMs,
      pollIntervalMs: work.options.pollIntervalMs ?? this.defaults.pollIntervalMs,
    };
    // Lease and events come first: no instance may see the task live without its lease, and an
    // answer or a cancel the client sends as soon as it hears of the task is not missed.
    const running = new RunningTask(task.taskId);
    await this.store.holdLease?.(task.taskId, this.defaults.leaseMs);
    let stopListening: () => void;
    let created: TaskCreation;
    try {
      stopListening = await this.store.listen(task.taskId, (event) => this.onEvent(running, event));
      created = await this.store.create(task, this.defaults.maxTasksPerPrincipal).catch((error: unknown) => {
        stopListening();
        throw error;
      });
    } catch (error) {
      await this.store.releaseLease?.(task.taskId).catch(() => undefined);
      throw error;
    }
    if (created !== 'created') {
      stopListening();
      await this.store.releaseLease?.(task.taskId).catch(() => undefined);
    }
    if (created === 'principal-full') {
      throw McpError.limitReached('tasks', { option: 'tasks.maxTasksPerPrincipal', max: this.defaults.maxTasksPerPrincipal, scope: 'caller', retryAfterSeconds: 60 });
    }
    if (created === 'store-full') {
      throw McpError.limitReached('tasks', { option: 'tasks.maxTasks', max: this.defaults.maxTasks ?? Number.NaN, scope: 'server', retryAfterSeconds: 30 });
    }
    this.running.add(running);
    // The record expires after ttlMs: the work stops with it.
    const expiry = setTimeout(() => running.controller.abort(new Error('The task expired')), task.ttlMs);
    (expiry as { unref?: () => void }).unref?.();
    const renewal = this.store.holdLease ? setInterval(() => this.renewLease(task.taskId), this.defaults.leaseMs / 3) : undefined;
    (renewal as { unref?: () => void } | undefined)?.unref?.();
    void this.run(running, work, capabilities, shape).finally(() => {
      clearTimeout(expiry);
      clearInterval(renewal);
      stopListening();
      this.running.delete(running);
      void this.store.releaseLease?.(task.taskId).catch(() => undefined);
    });
    return task;
  }

  private renewLease(taskId: string): void {
    this.store.holdLease!(taskId, this.defaults.leaseMs).catch((error: unknown) => this.logger.warn(`Could not renew the lease of task ${taskId}`, error));
  }

  /** Stops every task running here (server shutdown); their records fail or stay as the store has them. */
  stopAll(reason: string): void {
    for (const running of this.running) running.controller.abort(new Error(reason));
  }

  private onEvent(running: RunningTask, event: TaskEvent): void {
    if (event.type === 'cancelled') {
      running.waiting.clear();
      running.controller.abort(new Error('The task was cancelled'));
      return;
    }
    // Keys not waiting (never asked, answered, superseded) are ignored.
    const taken = Object.entries(event.answers).filter(([key]) => running.waiting.has(key));
    if (taken.length === 0) return;
    for (const [key, answer] of taken) {
      const waiting = running.waiting.get(key)!;
      running.waiting.delete(key);
      waiting.take(answer);
    }
    // The status follows at once, so a tasks/get never shows input_required with nothing to answer.
    void this.publishQuestions(running);
  }

  /** Writes the questions still waiting (or none) to the task's record. */
  private async publishQuestions(running: RunningTask): Promise<void> {
    const inputRequests = running.inputRequests();
    const asking = Object.keys(inputRequests).length > 0;
    await this.store.transition(running.taskId, LIVE_STATUSES, asking ? { status: 'input_required', inputRequests } : { status: 'working', inputRequests: undefined });
  }

  private async run(
    running: RunningTask,
    work: TaskWork,
    capabilities: ClientCapabilities,
    shape: (value: TaskReturn) => Promise<Result>,
  ): Promise<void> {
    let outcome: { result: Result } | { error: McpError; message: string };
    try {
      outcome = { result: await shape(await work.run(this.contextFor(running, capabilities))) };
    } catch (error) {
      if (error instanceof McpError && !isReservedErrorCode(error.code)) {
        outcome = { error, message: error.message };
      } else {
        this.logger.error(`task ${running.taskId} failed`, error);
        outcome = { error: McpError.internal(), message: 'Internal error' };
      }
    }
    // Compare-and-set: a task cancelled (or expired) meanwhile keeps that status.
    const patch =
      'result' in outcome
        ? { status: 'completed' as const, result: { resultType: 'complete', ...outcome.result }, inputRequests: undefined }
        : { status: 'failed' as const, statusMessage: outcome.message, error: outcome.error.toJSON(), inputRequests: undefined };
    await this.store.transition(running.taskId, LIVE_STATUSES, patch);
  }

  /** Asks during a task: the task shows input_required with the question until tasks/update answers it. */
  private contextFor(running: RunningTask, capabilities: ClientCapabilities): TaskContext {
    const signal = running.controller.signal;
    const askOne = async (question: Question<unknown>): Promise<unknown> => {
      // Every attempt goes out under a new key: an answer to an earlier attempt is never taken for this one.
      let asked = question;
      for (let attempt = 1; ; attempt++) {
        const key = running.newKey(question.key ?? question.kind);
        const answer = await new Promise<unknown>((resolve, reject) => {
          if (signal.aborted) return reject(signal.reason);
          const onAbort = (): void => reject(signal.reason);
          signal.addEventListener('abort', onAbort, { once: true });
          running.waiting.set(key, {
            request: asked.request,
            take: (value) => {
              signal.removeEventListener('abort', onAbort);
              resolve(value);
            },
          });
          void this.publishQuestions(running);
        });
        const judged = await judgeAnswer(key, question, answer, attempt);
        if ('value' in judged) return judged.value;
        asked = judged.again;
      }
    };
    const ask = (input: Question<unknown> | QuestionMap): Promise<unknown> => askAll(input, capabilities, askOne);
    return { taskId: running.taskId, signal, ask: ask as TaskContext['ask'] };
  }
}
