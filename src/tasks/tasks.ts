/**
 * Running tool work as tasks and the `tasks/*` methods (Tasks extension,
 * SEP-2663): the work runs in the background; the client polls `tasks/get`,
 * answers questions asked during the task with `tasks/update`, and may
 * `tasks/cancel`. Tasks are only for requests that declared the extension,
 * and only under 2026-07-28.
 */

import { McpError, isReservedErrorCode } from '../protocol/errors.js';
import { TASKS_EXTENSION } from '../protocol/meta.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { mergeCapabilities, missingFor } from '../protocol/capabilities.js';
import { isQuestion, type QuestionMap } from '../mrtr/interaction.js';
import type { Question } from '../mrtr/questions.js';
import type { TaskContext, TaskWork } from '../server/task-work.js';
import { TaskRecord, TaskStore, type TaskStoreOptions } from './task-store.js';

export const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;

/** Whether a request's capabilities declare the Tasks extension. */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  return typeof extensions?.[TASKS_EXTENSION] === 'object' && extensions[TASKS_EXTENSION] !== null;
}

/** -32021 for a request that uses tasks without declaring the extension. */
export function tasksNotDeclared(what: string): McpError {
  return McpError.missingCapability(`${what} needs the ${TASKS_EXTENSION} extension declared in clientCapabilities`, {
    extensions: { [TASKS_EXTENSION]: {} },
  });
}

function unknownTask(taskId: unknown): McpError {
  return McpError.invalidParams(`Invalid params: unknown or expired task ${JSON.stringify(taskId)}`);
}

export class TaskManager {
  readonly store: TaskStore;

  constructor(
    options: TaskStoreOptions,
    private readonly log: (message: string, detail?: unknown) => void,
  ) {
    this.store = new TaskStore(options);
  }

  /** Makes a task for `work` and starts it; the `CreateTaskResult` to answer with. */
  start(work: TaskWork, principal: string, capabilities: ClientCapabilities): Record<string, unknown> {
    const task = new TaskRecord(principal, work.options.ttlMs ?? this.store.ttlMs, work.options.pollIntervalMs ?? this.store.pollIntervalMs);
    if (!this.store.add(task)) throw McpError.internal('Too many tasks: try again later');
    void this.run(task, work, capabilities);
    const { taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = task.detailed();
    // The core schema has no task results and checks a tools/call result as CallToolResult: an empty content keeps it valid.
    return { resultType: 'task', taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs, content: [] };
  }

  private async run(task: TaskRecord, work: TaskWork, capabilities: ClientCapabilities): Promise<void> {
    try {
      const result = await work.run(this.contextFor(task, capabilities));
      if (task.terminal) return;
      task.result = { resultType: 'complete', ...(result as unknown as Record<string, unknown>) };
      task.set('completed');
    } catch (error) {
      if (task.terminal) return;
      if (error instanceof McpError && !isReservedErrorCode(error.code)) {
        task.error = error.toJSON();
        task.set('failed', error.message);
      } else {
        this.log(`task ${task.taskId} failed`, error);
        task.error = McpError.internal().toJSON();
        task.set('failed', 'Internal error');
      }
    }
  }

  /** Asks during a task: the task shows input_required with the question until tasks/update answers it. */
  private contextFor(task: TaskRecord, capabilities: ClientCapabilities): TaskContext {
    const askOne = (question: Question<unknown>): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const post = (): void => {
          const key = task.newKey(question.key ?? question.kind);
          task.outstanding.set(key, {
            request: question.request,
            deliver: (answer) => {
              // The status follows at once, so a tasks/get never shows input_required with nothing to answer.
              task.outstanding.delete(key);
              if (task.outstanding.size === 0) task.set('working');
              void Promise.resolve(question.parse(answer)).then((value) => {
                if (value === undefined) return post(); // not a valid answer: ask again, under a new key
                resolve(value);
              }, reject);
            },
          });
          task.set('input_required');
        };
        if (task.controller.signal.aborted) return reject(task.controller.signal.reason);
        task.controller.signal.addEventListener('abort', () => reject(task.controller.signal.reason), { once: true });
        post();
      });
    const ask = async (input: Question<unknown> | QuestionMap): Promise<unknown> => {
      const single = isQuestion(input);
      const entries: Array<[string, Question<unknown>]> = single ? [['', input]] : Object.entries(input);
      const missing = entries.map(([, q]) => missingFor(q.request, capabilities)).filter((m): m is ClientCapabilities => m !== undefined);
      if (missing.length > 0) {
        throw McpError.missingCapability('This task needs client capabilities the request did not declare', mergeCapabilities(missing));
      }
      const answers = await Promise.all(entries.map(([, q]) => askOne(q)));
      return single ? answers[0] : Object.fromEntries(entries.map(([key], i) => [key, answers[i]]));
    };
    return { taskId: task.taskId, signal: task.controller.signal, ask: ask as TaskContext['ask'] };
  }

  get(params: Record<string, unknown>, principal: string): Record<string, unknown> {
    const task = this.store.get(params.taskId, principal);
    if (!task) throw unknownTask(params.taskId);
    return task.detailed();
  }

  update(params: Record<string, unknown>, principal: string): Record<string, unknown> {
    const task = this.store.get(params.taskId, principal);
    if (!task) throw unknownTask(params.taskId);
    const responses = params.inputResponses;
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
      throw McpError.invalidParams('Invalid params: inputResponses must be an object');
    }
    // Keys not outstanding (never asked, answered, superseded) are ignored.
    for (const [key, answer] of Object.entries(responses)) task.outstanding.get(key)?.deliver(answer);
    return {};
  }

  cancel(params: Record<string, unknown>, principal: string): Record<string, unknown> {
    const task = this.store.get(params.taskId, principal);
    if (!task) throw unknownTask(params.taskId);
    if (!task.terminal) {
      task.outstanding.clear();
      task.set('cancelled', 'Cancelled by the client');
      task.controller.abort(new Error('The task was cancelled'));
    }
    return {};
  }
}

