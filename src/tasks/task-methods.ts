/**
 * `tasks/get`, `tasks/update` and `tasks/cancel`, answered from the task store,
 * so any instance can answer them; only the task's creator sees or steers it.
 */

import { McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import type { DetailedTask, EmptyResult } from '../protocol/method-types.js';
import { LIVE_STATUSES, type TaskData, type TaskStore } from '../stores/task-store.js';

function unknownTask(taskId: unknown): McpError {
  return McpError.invalidParams(`Invalid params: unknown or expired task ${JSON.stringify(taskId)}`);
}

/** The task as `tasks/get` reports it (`DetailedTask`). */
export function detailedTask(task: TaskData): DetailedTask {
  const detailed: DetailedTask = {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) detailed.statusMessage = task.statusMessage;
  if (task.status === 'input_required') detailed.inputRequests = task.inputRequests ?? {};
  if (task.status === 'completed') detailed.result = task.result;
  if (task.status === 'failed') detailed.error = task.error;
  return detailed;
}

export class TaskMethods {
  constructor(
    private readonly store: TaskStore,
    /** Carries on a resumable task whose lease lapsed (in the background). */
    private readonly takeOver: (taskId: string) => Promise<void>,
  ) {}

  /**
   * The caller's own task; anyone else's is as unknown as one that never
   * existed. A live task whose lease lapsed (the instance running it died)
   * is resumed here when it is resumable (unless `resume` is false), and
   * failed otherwise, by whichever instance is asked first.
   */
  private async own(params: Record<string, unknown>, principal: string, resume = true): Promise<TaskData> {
    const task = typeof params.taskId === 'string' ? await this.store.get(params.taskId) : undefined;
    if (!task || task.principal !== principal) throw unknownTask(params.taskId);
    if (!LIVE_STATUSES.includes(task.status) || !this.store.leases || (await this.store.leases.held(task.taskId))) return task;
    if (task.call && this.store.checkpoints) {
      // Between owners: it reads as it was until the instance that claims it carries it on.
      if (resume) void this.takeOver(task.taskId);
      return task;
    }
    const failed = await this.store.transition(task.taskId, LIVE_STATUSES, {
      status: 'failed',
      statusMessage: 'The server instance running this task stopped before it finished (its lease lapsed)',
      error: McpError.internal('The task was lost with the server instance running it').toJSON(),
      inputRequests: undefined,
    });
    return failed ?? (await this.store.get(task.taskId)) ?? task;
  }

  async get(params: Record<string, unknown>, principal: string): Promise<Record<string, unknown>> {
    return detailedTask(await this.own(params, principal));
  }

  async update(params: Record<string, unknown>, principal: string): Promise<Record<string, unknown>> {
    const task = await this.own(params, principal);
    if (!isObject(params.inputResponses)) throw McpError.invalidParams('Invalid params: inputResponses must be an object');
    const answers = await this.recorded(task, params.inputResponses);
    if (Object.keys(answers).length > 0) await this.store.notify(task.taskId, { type: 'answers', answers });
    return {};
  }

  /**
   * A resumable task's answers are recorded before they are passed on (the
   * first for each key wins), so that whoever runs the task next gets them:
   * only those to questions it shows outstanding; those recorded go on.
   */
  private async recorded(task: TaskData, answers: Record<string, unknown>): Promise<Record<string, unknown>> {
    const checkpoints = this.store.checkpoints;
    if (!task.call || !checkpoints) return answers;
    const outstanding = Object.entries(answers).filter(([key]) => task.inputRequests !== undefined && Object.hasOwn(task.inputRequests, key));
    if (outstanding.length === 0) return {};
    return checkpoints.saveAnswers(task.taskId, Object.fromEntries(outstanding), task.createdAt + task.ttlMs);
  }

  async cancel(params: Record<string, unknown>, principal: string): Promise<Record<string, unknown>> {
    // A task between owners is cancelled in the store: whoever claims it next sees that and does not run it.
    const task = await this.own(params, principal, false);
    await this.stop(task.taskId, 'Cancelled by the client');
    return {};
  }

  /** A task whose creating request was cancelled before its id reached the client. */
  abandon(taskId: string): Promise<void> {
    return this.stop(taskId, 'Cancelled: the request that created it was cancelled before the task id reached the client');
  }

  private async stop(taskId: string, statusMessage: string): Promise<void> {
    const cancelled = await this.store.transition(taskId, LIVE_STATUSES, { status: 'cancelled', statusMessage, inputRequests: undefined });
    if (cancelled) await this.store.notify(taskId, { type: 'cancelled' });
  }
}
