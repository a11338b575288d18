/**
 * Following a task (Tasks extension) to its end, so that a call answered
 * with a task returns what the call would have returned without one: polls
 * `tasks/get` at the server's `pollIntervalMs` (kept within the client's
 * bounds); answers the task's questions through the same handlers as input
 * rounds, each key once, and sends them with `tasks/update`; listens for
 * `notifications/tasks` where the server agrees to send them, and reacts to
 * them at once. The caller's signal, the client's time limit or an observer
 * returning false sends `tasks/cancel`.
 */

import { ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { DetailedTask, TaskInfo } from '../protocol/method-types.js';
import { TaskMethod } from '../protocol/methods.js';
import type { ClientCapabilities, Implementation, Result } from '../protocol/types.js';
import { InputFlowError, ProtocolViolationError, RequestTimeoutError, ResponseTooLargeError, TaskError, TransportError } from './errors.js';
import type { InputHandlers } from './handlers.js';
import { answerAll } from './input-answers.js';
import { listen, type Subscription } from './listen.js';
import { PASSING_STATUSES } from './retry-after.js';
import type { Requester, RequestOptions } from './requester.js';
import { isTerminal, readDetailedTask } from './task-checks.js';
import { TaskWatch, type TaskObserver } from './task-observer.js';

export interface ClientTaskOptions {
  /**
   * Declare the Tasks extension on every request (default true): a server may
   * then answer `tools/call` with a task, which `callTool` follows to its
   * result. With false, no task is ever made for this client (a task-only
   * tool answers -32021); `getTask` and the other task methods still work.
   */
  declare?: boolean;
  /** The fastest the client polls, whatever the server asks, in ms (default 100). */
  minPollIntervalMs?: number;
  /** The slowest the client polls, whatever the server asks, in ms (default 30 s). */
  maxPollIntervalMs?: number;
  /** Longest the client follows one task before cancelling it, in ms (default 24 hours). */
  timeoutMs?: number;
  /** Most rounds of questions one task may ask (default 50). */
  maxInputRounds?: number;
  /** Ask for `notifications/tasks` on a listen stream while following a task (default true; polling goes on either way). */
  notifications?: boolean;
}

export interface TaskFlowOptions {
  tasks?: ClientTaskOptions;
  /** Hears of every followed task's status changes; false stops (and cancels) it. */
  onTask?: TaskObserver;
}

/** What a followed task stands for: the request that made it, for the handlers' context. */
export interface TaskOrigin {
  method: string;
  params: Readonly<Record<string, unknown>>;
}

const DEFAULT_POLL_MS = 1000;
const DEFAULT_TIMEOUT_MS = 24 * 60 * 60_000;
/** A poll that fails this many times in a row (network, timeout) ends the flow. */
export const POLL_FAILURES = 3;
/** How long the cancellation the client sends may take. */
const CANCEL_TIMEOUT_MS = 5000;

/** The bounds of following any task: the poll interval's floor and ceiling, and the longest a task is followed (ms). */
export function pollBounds(tasks: ClientTaskOptions = {}): { minPoll: number; maxPoll: number; timeoutMs: number } {
  const minPoll = tasks.minPollIntervalMs ?? 100;
  return { minPoll, maxPoll: Math.max(minPoll, tasks.maxPollIntervalMs ?? 30_000), timeoutMs: tasks.timeoutMs ?? DEFAULT_TIMEOUT_MS };
}

/** `tasks/cancel`, best effort: cancellation is cooperative, and the task's ttl ends it anyway. */
export async function cancelQuietly(requester: Requester, taskId: string): Promise<void> {
  try {
    await requester.request(TaskMethod.Cancel, { taskId }, { timeoutMs: CANCEL_TIMEOUT_MS });
  } catch {
    // Nothing more to do from here.
  }
}

export class TaskFlow {
  constructor(
    private readonly requester: Requester,
    private readonly handlers: InputHandlers,
    private readonly options: TaskFlowOptions,
  ) {}

  /**
   * `tasks/get`, checked: the task asked about, with what its status
   * requires; with `answerable`, only questions this client declared the
   * capabilities for (it is about to answer them).
   */
  async get(taskId: string, options: RequestOptions = {}, answerable = false): Promise<DetailedTask> {
    const result = await this.requester.request(TaskMethod.Get, { taskId }, options);
    return readDetailedTask(result, taskId, answerable ? this.requester.capabilities : undefined);
  }

  /**
   * Follows a task to its end and returns its result, as the call would have
   * without a task. A failed task throws its JSON-RPC error as McpError; a
   * cancelled, expired or abandoned one a TaskError. `seed` is the
   * CreateTaskResult, or just the id of a task made elsewhere (then the
   * first `tasks/get` goes out at once).
   */
  async follow<R extends Result = Result>(seed: TaskInfo | string, origin: TaskOrigin, options: RequestOptions = {}): Promise<R> {
    const taskId = typeof seed === 'string' ? seed : seed.taskId;
    const { minPoll, maxPoll, timeoutMs } = pollBounds(this.options.tasks);
    const maxInputRounds = this.options.tasks?.maxInputRounds ?? 50;
    const started = Date.now();
    const watch = new TaskWatch([this.options.onTask, options.onTask], origin.method, origin.params);
    // Ends the listen stream and any wait when the flow ends, however it ends.
    const done = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, done.signal]) : done.signal;
    const news = new TaskNews();
    const subscription = this.subscribe(taskId, news, signal);
    let latest: TaskInfo | undefined = typeof seed === 'string' ? undefined : seed;
    // The task's end as the client reckons it: the last ttlMs the server gave, from when the client first saw the task.
    const expiresAt = (task: TaskInfo | undefined): number | undefined => (task?.ttlMs == null ? undefined : started + task.ttlMs);
    const answered = new Set<string>();
    let rounds = 0;
    let failures = 0;
    let settled = false;
    const stop = (reason: 'stopped' | 'timeout' | 'expired', message: string): TaskError => {
      if (reason === 'expired') settled = true;
      return new TaskError(message, taskId, reason, latest?.status);
    };
    try {
      if (latest && !(await watch.saw(latest))) throw stop('stopped', `Task ${taskId} was stopped by onTask`);
      for (;;) {
        let next: DetailedTask | undefined = news.take();
        if (!next && latest) {
          const interval = Math.min(maxPoll, Math.max(minPoll, latest.pollIntervalMs ?? DEFAULT_POLL_MS));
          const left = timeoutMs - (Date.now() - started);
          await news.wait(Math.max(0, Math.min(interval, left)), signal);
          next = news.take();
        }
        if (Date.now() - started >= timeoutMs) throw stop('timeout', `Task ${taskId} did not finish within ${timeoutMs} ms (tasks.timeoutMs)`);
        if (!next) {
          try {
            next = await this.get(taskId, { signal }, true);
            failures = 0;
          } catch (error) {
            if (signal.aborted) throw error;
            // The server no longer knows the task (-32602: unknown or expired): it is gone, nothing to cancel.
            if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
              settled = true;
              throw new TaskError(`Task ${taskId} is gone: the server no longer knows it (${error.message})`, taskId, 'expired', latest?.status, { cause: error });
            }
            if (isPassing(error) && ++failures < POLL_FAILURES) {
              await news.wait(minPoll, signal);
              continue;
            }
            throw error;
          }
        }
        latest = next;
        if (!(await watch.saw(next))) throw stop('stopped', `Task ${taskId} was stopped by onTask`);
        if (isTerminal(next.status)) {
          settled = true;
          return outcome<R>(next, origin.method);
        }
        const ends = expiresAt(latest);
        if (ends !== undefined && Date.now() > ends + Math.max(minPoll, latest.pollIntervalMs ?? DEFAULT_POLL_MS)) {
          // A task past its ttlMs that never reached an end: the extension lets the client consider it unusable.
          throw stop('expired', `Task ${taskId} outlived its ttlMs (${latest.ttlMs} ms) without finishing`);
        }
        if (next.status === 'input_required' && next.inputRequests) {
          // The same questions come back on every poll until answered: each key is answered once.
          const outstanding = Object.fromEntries(Object.entries(next.inputRequests).filter(([key]) => !answered.has(key)));
          if (Object.keys(outstanding).length === 0) continue;
          if (++rounds > maxInputRounds) throw new InputFlowError(`Task ${taskId} was still asking after ${maxInputRounds} rounds of questions; giving up`, rounds - 1);
          const server: Implementation | undefined = this.requester.serverInfo;
          const answers = await answerAll(this.handlers, outstanding, {
            method: origin.method,
            params: origin.params,
            round: rounds,
            era: 'modern',
            server,
            signal,
            taskId,
          });
          await this.requester.request(TaskMethod.Update, { taskId, inputResponses: answers }, { signal });
          for (const key of Object.keys(answers)) answered.add(key);
        }
      }
    } catch (error) {
      // Anything but the task's own end leaves it running on the server: cancel it (best effort).
      if (!settled) await cancelQuietly(this.requester, taskId);
      if (options.signal?.aborted) throw options.signal.reason;
      throw error;
    } finally {
      done.abort();
      subscription?.close();
    }
  }

  /**
   * Asks for this task's notifications on a listen stream (2026-07-28 only);
   * kept only when the server's acknowledgement includes the task. A stream
   * that fails or sends a malformed notification changes nothing: polling
   * goes on.
   */
  private subscribe(taskId: string, news: TaskNews, signal: AbortSignal): Subscription | undefined {
    if (this.options.tasks?.notifications === false || this.requester.era !== 'modern') return undefined;
    const declared: ClientCapabilities = this.requester.capabilities;
    const onNotification = (note: JsonRpcNotification): void => {
      if (note.method !== TASK_NOTIFICATION || !isObject(note.params) || note.params.taskId !== taskId) return;
      try {
        news.push(readDetailedTask(note.params, taskId, declared, `notifications/tasks for ${taskId}`));
      } catch {
        // Not a task we can act on; the next poll reads the task properly.
      }
    };
    let subscription: Subscription;
    try {
      subscription = listen(this.requester, { taskIds: [taskId] }, onNotification, { signal });
    } catch {
      return undefined;
    }
    subscription.acknowledged.then(
      (agreed) => {
        if (!Array.isArray(agreed.taskIds) || !agreed.taskIds.includes(taskId)) subscription.close();
      },
      () => undefined,
    );
    subscription.closed.catch(() => undefined);
    return subscription;
  }
}

/** The server's push of a task's state (Tasks extension), on a listen stream that asked for its id. */
export const TASK_NOTIFICATION = 'notifications/tasks';

/** What a finished task comes to: its result, its JSON-RPC error, or a TaskError for a cancelled one. */
function outcome<R extends Result>(task: DetailedTask, method: string): R {
  switch (task.status) {
    case 'completed': {
      const result = task.result!;
      const resultType = result.resultType;
      if (resultType !== undefined && resultType !== 'complete') {
        throw new ProtocolViolationError(`Task ${task.taskId} completed with a ${JSON.stringify(resultType)} result; a task's result is the final result of ${method}`, task);
      }
      // The result of the call, as the call would have returned it.
      return result as R;
    }
    case 'failed': {
      const error = task.error!;
      throw new McpError(error.code, error.message, error.data);
    }
    default:
      throw new TaskError(
        `Task ${task.taskId} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}`,
        task.taskId,
        'cancelled',
        task.status,
      );
  }
}

/**
 * Failures worth another poll: the network, a busy server (a 503 or 429 the
 * transport already waited out by its Retry-After included), or one poll's
 * time running out (not a limit or a broken reply).
 */
export function isPassing(error: unknown): boolean {
  if (error instanceof ResponseTooLargeError) return false;
  if (error instanceof RequestTimeoutError) return true;
  return error instanceof TransportError && (error.status === undefined || PASSING_STATUSES.has(error.status));
}

/** The latest task state a notification brought, and a wait it cuts short. */
class TaskNews {
  private latest: DetailedTask | undefined;
  private wake: (() => void) | undefined;

  push(task: DetailedTask): void {
    this.latest = task;
    this.wake?.();
  }

  take(): DetailedTask | undefined {
    const task = this.latest;
    this.latest = undefined;
    return task;
  }

  /** Waits `ms`, or until news arrives; rejects with the signal's reason when it aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.latest) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wake = undefined;
      };
      const onAbort = (): void => {
        finish();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        finish();
        resolve();
      }, ms);
      this.wake = () => {
        finish();
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

