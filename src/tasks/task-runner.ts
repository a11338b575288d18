/**
 * Runs task work on this instance: records the task in the store, runs the
 * work in the background, and writes what happens (questions asked during the
 * task, the result or error) back with compare-and-set transitions, so a
 * cancellation from any instance wins over a result that arrives after it.
 * Answers and cancellation reach the work through the store's task events.
 * With a shared store it holds the task's lease while the work runs; a
 * resumable task it also runs again for another instance that stopped
 * (`adopt`, then `resume`), its recorded steps and answers given back.
 */

import { askAll, judgeAnswer } from '../mrtr/ask-all.js';
import type { QuestionMap } from '../mrtr/interaction.js';
import type { Question } from '../mrtr/questions.js';
import { McpError, isReservedErrorCode } from '../protocol/errors.js';
import type { ClientCapabilities, InputRequest, Result } from '../protocol/types.js';
import { randomId } from '../platform/crypto.js';
import { LIVE_STATUSES, type TaskCall, type TaskCheckpoint, type TaskCreation, type TaskData, type TaskEvent, type TaskStore } from '../stores/task-store.js';
import type { ServerLogger } from '../server/options.js';
import { TaskSteps } from './task-steps.js';
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
  /** Most bytes of step results one resumable task records. */
  maxCheckpointBytes: number;
}

/** Turns what task work returns into the tool's result. */
export type ShapeTaskResult = (value: TaskReturn) => Promise<Result>;

/** A question waiting for `tasks/update`. */
interface Waiting {
  request: InputRequest;
  take(answer: unknown): void;
}

/** One task running here: its questions, its steps, and what stops it. */
export class RunningTask {
  readonly controller = new AbortController();
  readonly waiting = new Map<string, Waiting>();
  /** A resumable task's recorded answers, by key: its earlier runs', and those heard before this run asked again. */
  readonly answers = new Map<string, unknown>();
  /** Questions the store showed when this instance took the task over, until this run asks or answers them. */
  readonly inherited = new Set<string>();
  steps: TaskSteps | undefined;
  /** Set once this instance no longer holds the task (lease lost, handed over): the outcome is its next owner's to write. */
  released = false;
  stopListening: () => void = () => undefined;
  private readonly timers: Array<ReturnType<typeof setTimeout>> = [];
  private nextKey = 1;

  constructor(
    readonly taskId: string,
    /** When the task's record expires (ms since the epoch). */
    readonly expiresAt: number,
    readonly resumable: boolean,
  ) {}

  /** A key for a new question: its own name plus a counter, never reused within the task (and the same on every run of it). */
  newKey(base: string): string {
    return `${base}-${this.nextKey++}`;
  }

  inputRequests(): Record<string, InputRequest> {
    return Object.fromEntries([...this.waiting].map(([key, w]) => [key, w.request]));
  }

  addTimer(timer: ReturnType<typeof setTimeout>): void {
    (timer as { unref?: () => void }).unref?.();
    this.timers.push(timer);
  }

  clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }
}

export class TaskRunner {
  /** This server in the leases it holds. */
  readonly owner = `server-${randomId(9)}`;
  private readonly running = new Set<RunningTask>();
  /** Set once the server shuts down (stopAll): a task taken over meanwhile is let go instead of run. */
  private stopped = false;

  constructor(
    private readonly store: TaskStore,
    private readonly defaults: TaskDefaults,
    private readonly logger: ServerLogger,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /**
   * Makes a task for `work` and starts it; with `call` (and a store that keeps
   * checkpoints) a resumable one. Resolves with the task as created (for the `CreateTaskResult`).
   */
  async start(work: TaskWork, principal: string, capabilities: ClientCapabilities, shape: ShapeTaskResult, call?: TaskCall): Promise<TaskData> {
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
    const resumable = call !== undefined && this.store.checkpoints !== undefined;
    if (resumable) task.call = call;
    // Lease and events come first: no instance may see the task live without its lease, and an
    // answer or a cancel the client sends as soon as it hears of the task is not missed.
    const running = new RunningTask(task.taskId, task.createdAt + task.ttlMs, resumable);
    const leases = this.store.leases;
    await leases?.claim(task.taskId, this.owner, this.defaults.leaseMs);
    let created: TaskCreation;
    try {
      running.stopListening = await this.store.listen(task.taskId, (event) => this.onEvent(running, event));
      created = await this.store.create(task, this.defaults.maxTasksPerPrincipal).catch((error: unknown) => {
        running.stopListening();
        throw error;
      });
    } catch (error) {
      await leases?.release(task.taskId, this.owner).catch(() => undefined);
      throw error;
    }
    if (created !== 'created') {
      running.stopListening();
      await leases?.release(task.taskId, this.owner).catch(() => undefined);
    }
    if (created === 'principal-full') {
      throw McpError.limitReached('tasks', { option: 'tasks.maxTasksPerPrincipal', max: this.defaults.maxTasksPerPrincipal, scope: 'caller', retryAfterSeconds: 60 });
    }
    if (created === 'store-full') {
      throw McpError.limitReached('tasks', { option: 'tasks.maxTasks', max: this.defaults.maxTasks ?? Number.NaN, scope: 'server', retryAfterSeconds: 30 });
    }
    this.hold(running);
    this.launch(running, work, capabilities, shape, { steps: {}, answers: {} });
    return task;
  }

  /**
   * Takes a resumable task whose lease lapsed for this server: its lease (of
   * concurrent claims, one wins; undefined when another instance won) and its
   * events. `resume` runs it; `abandon` lets it go again.
   */
  async adopt(task: TaskData): Promise<RunningTask | undefined> {
    const leases = this.store.leases;
    if (!leases || !this.store.checkpoints) return undefined;
    if (!(await leases.claim(task.taskId, this.owner, this.defaults.leaseMs))) return undefined;
    // A run of it still here lost its lease (this server stalled past it): it stops, and the task is resumed like any other.
    for (const stale of this.running) if (stale.taskId === task.taskId && !stale.released) this.handOver(stale, 'The task was resumed after its lease lapsed', false);
    const running = new RunningTask(task.taskId, task.createdAt + task.ttlMs, true);
    for (const key of Object.keys(task.inputRequests ?? {})) running.inherited.add(key);
    try {
      running.stopListening = await this.store.listen(task.taskId, (event) => this.onEvent(running, event));
    } catch (error) {
      await leases.release(task.taskId, this.owner).catch(() => undefined);
      throw error;
    }
    this.hold(running);
    return running;
  }

  /** Runs work again for an adopted task, with what its earlier runs recorded. */
  resume(running: RunningTask, work: TaskWork, capabilities: ClientCapabilities, shape: ShapeTaskResult, checkpoint: TaskCheckpoint): void {
    if (this.stopped || running.controller.signal.aborted) return void this.abandon(running);
    this.launch(running, work, capabilities, shape, checkpoint);
  }

  /** Lets an adopted task go without running it (it ended meanwhile, or cannot be resumed here). */
  async abandon(running: RunningTask): Promise<void> {
    await this.letGo(running);
  }

  /** Stops every task running here (server shutdown). A resumable one is handed over: another instance carries it on; the others fail or stay as the store has them. */
  stopAll(reason: string): void {
    this.stopped = true;
    for (const running of this.running) {
      if (running.resumable) this.handOver(running, `${reason}; another instance carries the task on`);
      else running.controller.abort(new Error(reason));
    }
  }

  /**
   * This server stops running a resumable task at once (its work is told
   * through the signal): no outcome, no more events, and (unless a new run here
   * holds it now) no lease.
   */
  private handOver(running: RunningTask, reason: string, releaseLease = true): void {
    running.released = true;
    running.controller.abort(new Error(reason));
    void this.letGo(running, releaseLease);
  }

  /** Holds the lease (renewed) and keeps the task until its record expires. */
  private hold(running: RunningTask): void {
    this.running.add(running);
    // The record expires after ttlMs: the work stops with it.
    running.addTimer(setTimeout(() => running.controller.abort(new Error('The task expired')), Math.max(0, running.expiresAt - this.clock())));
    if (this.store.leases) running.addTimer(setInterval(() => void this.renewLease(running), this.defaults.leaseMs / 3));
  }

  private launch(running: RunningTask, work: TaskWork, capabilities: ClientCapabilities, shape: ShapeTaskResult, checkpoint: TaskCheckpoint): void {
    for (const [key, answer] of Object.entries(checkpoint.answers)) if (!running.answers.has(key)) running.answers.set(key, answer);
    const checkpoints = running.resumable ? this.store.checkpoints : undefined;
    const record = checkpoints
      ? async (name: string, value: Parameters<typeof checkpoints.saveStep>[3]): Promise<void> => {
          if (!running.released && (await checkpoints.saveStep(running.taskId, this.owner, name, value, running.expiresAt))) return;
          this.handOver(running, 'Another instance took the task over');
          throw new Error(`task.once("${name}"): this instance no longer holds task ${running.taskId}; another instance carries it on`);
        }
      : undefined;
    running.steps = new TaskSteps(running.taskId, checkpoint.steps, record, this.defaults.maxCheckpointBytes);
    void this.run(running, work, capabilities, shape).finally(() => this.letGo(running));
  }

  /** Stops holding the task (idempotent). */
  private async letGo(running: RunningTask, releaseLease = true): Promise<void> {
    running.clearTimers();
    running.stopListening();
    const held = this.running.delete(running);
    if (releaseLease && held) await this.store.leases?.release(running.taskId, this.owner).catch(() => undefined);
  }

  private async renewLease(running: RunningTask): Promise<void> {
    const leases = this.store.leases!;
    try {
      if (await leases.renew(running.taskId, this.owner, this.defaults.leaseMs)) return;
      // Lapsed (this server stalled past it) or taken: a resumable run stops, and whoever claims the task next resumes it
      // from its checkpoint; a plain task (which nobody else ever takes) holds it again, as long as it is free.
      if (running.resumable) this.handOver(running, 'The task lost its lease; it is resumed from its checkpoint');
      else await leases.claim(running.taskId, this.owner, this.defaults.leaseMs);
    } catch (error) {
      this.logger.warn(`Could not renew the lease of task ${running.taskId}`, error);
    }
  }

  private onEvent(running: RunningTask, event: TaskEvent): void {
    if (event.type === 'cancelled') {
      running.waiting.clear();
      running.controller.abort(new Error('The task was cancelled'));
      return;
    }
    let taken = false;
    for (const [key, answer] of Object.entries(event.answers)) {
      const waiting = running.waiting.get(key);
      if (waiting) {
        running.waiting.delete(key);
        waiting.take(answer);
        taken = true;
      } else if (running.resumable && !running.answers.has(key)) {
        // Recorded for a question this run has not reached yet (it was asked before the task changed hands).
        running.answers.set(key, answer);
      }
      // A plain task ignores keys not waiting (never asked, answered, superseded).
    }
    // The status follows at once, so a tasks/get never shows input_required with nothing to answer.
    if (taken) void this.publishQuestions(running);
  }

  /** Writes the questions still waiting (or none) to the task's record. */
  private async publishQuestions(running: RunningTask): Promise<void> {
    // What this run waits on replaces what the store showed when the task changed hands.
    running.inherited.clear();
    const inputRequests = running.inputRequests();
    const asking = Object.keys(inputRequests).length > 0;
    try {
      await this.store.transition(running.taskId, LIVE_STATUSES, asking ? { status: 'input_required', inputRequests } : { status: 'working', inputRequests: undefined });
    } catch (error) {
      this.logger.warn(`Could not record the questions of task ${running.taskId}`, error);
    }
  }

  private async run(running: RunningTask, work: TaskWork, capabilities: ClientCapabilities, shape: ShapeTaskResult): Promise<void> {
    let outcome: { result: Result } | { error: McpError; message: string };
    try {
      outcome = { result: await shape(await work.run(this.contextFor(running, capabilities))) };
    } catch (error) {
      if (running.released) return;
      if (error instanceof McpError && !isReservedErrorCode(error.code)) {
        outcome = { error, message: error.message };
      } else {
        this.logger.error(`task ${running.taskId} failed`, error);
        outcome = { error: McpError.internal(), message: 'Internal error' };
      }
    }
    // Another instance carries the task on: the outcome is its to write.
    if (running.released) return;
    // Compare-and-set: a task cancelled (or expired) meanwhile keeps that status.
    const patch =
      'result' in outcome
        ? { status: 'completed' as const, result: { resultType: 'complete', ...outcome.result }, inputRequests: undefined }
        : { status: 'failed' as const, statusMessage: outcome.message, error: outcome.error.toJSON(), inputRequests: undefined };
    try {
      await this.store.transition(running.taskId, LIVE_STATUSES, patch);
    } catch (error) {
      // The store is unreachable: a resumable task is carried on once its lease lapses; a plain one reads failed then.
      this.logger.warn(`Could not record the outcome of task ${running.taskId}`, error);
    }
  }

  /** Asks during a task: the task shows input_required with the question until tasks/update answers it. */
  private contextFor(running: RunningTask, capabilities: ClientCapabilities): TaskContext {
    const signal = running.controller.signal;
    const askOne = async (question: Question<unknown>): Promise<unknown> => {
      // Every attempt goes out under a new key: an answer to an earlier attempt is never taken for this one.
      let asked = question;
      for (let attempt = 1; ; attempt++) {
        const key = running.newKey(question.key ?? question.kind);
        const answer = running.answers.has(key) ? this.recordedAnswer(running, key) : await this.waitForAnswer(running, key, asked.request);
        const judged = await judgeAnswer(key, question, answer, attempt);
        if ('value' in judged) return judged.value;
        asked = judged.again;
      }
    };
    const ask = (input: Question<unknown> | QuestionMap): Promise<unknown> => askAll(input, capabilities, askOne);
    const steps = running.steps!;
    return { taskId: running.taskId, signal, ask: ask as TaskContext['ask'], once: (name, fn) => steps.once(name, fn) };
  }

  /** An answer recorded before this run asked (a resumed task); once no question the store showed is left unanswered, the status says so. */
  private recordedAnswer(running: RunningTask, key: string): unknown {
    if (running.inherited.delete(key) && running.inherited.size === 0 && running.waiting.size === 0) void this.publishQuestions(running);
    return running.answers.get(key);
  }

  private waitForAnswer(running: RunningTask, key: string, request: InputRequest): Promise<unknown> {
    const signal = running.controller.signal;
    return new Promise<unknown>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      running.waiting.set(key, {
        request,
        take: (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
      });
      void this.publishQuestions(running);
    });
  }
}
