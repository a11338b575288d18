/**
 * Reading what a server says about a task (Tasks extension): the task in a
 * `CreateTaskResult`, a `tasks/get` result or a `notifications/tasks`
 * notification, checked field by field, so the code that follows a task
 * never acts on a status, id or payload the extension does not define.
 */

import { isObject } from '../protocol/guards.js';
import type { DetailedTask, TaskInfo, TaskStatusName } from '../protocol/method-types.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { ProtocolViolationError } from './errors.js';
import { checkInputRequests } from './input-request-checks.js';

const STATUSES: ReadonlySet<string> = new Set<TaskStatusName>(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const TERMINAL: ReadonlySet<string> = new Set<TaskStatusName>(['completed', 'failed', 'cancelled']);

export function isTerminal(status: TaskStatusName): boolean {
  return TERMINAL.has(status);
}

/** The task fields of a result or notification (`what` names it in errors). */
export function readTaskInfo(value: unknown, what: string): TaskInfo {
  if (!isObject(value)) throw new ProtocolViolationError(`${what} is not an object`, value);
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = value;
  if (typeof taskId !== 'string' || taskId === '') throw new ProtocolViolationError(`${what} has no taskId`, value);
  if (typeof status !== 'string' || !STATUSES.has(status)) throw new ProtocolViolationError(`${what} has an unknown status ${JSON.stringify(status)}`, value);
  if (typeof createdAt !== 'string' || typeof lastUpdatedAt !== 'string') throw new ProtocolViolationError(`${what} lacks createdAt or lastUpdatedAt`, value);
  if (ttlMs !== null && !(typeof ttlMs === 'number' && ttlMs >= 0)) throw new ProtocolViolationError(`${what} has a ttlMs that is neither a number nor null`, value);
  if (pollIntervalMs !== undefined && !(typeof pollIntervalMs === 'number' && pollIntervalMs >= 0)) {
    throw new ProtocolViolationError(`${what} has a pollIntervalMs that is not a number`, value);
  }
  if (statusMessage !== undefined && typeof statusMessage !== 'string') throw new ProtocolViolationError(`${what} has a statusMessage that is not a string`, value);
  const info: TaskInfo = { taskId, status: status as TaskStatusName, createdAt, lastUpdatedAt, ttlMs };
  if (pollIntervalMs !== undefined) info.pollIntervalMs = pollIntervalMs;
  if (statusMessage !== undefined) info.statusMessage = statusMessage;
  return info;
}

/**
 * A task as `tasks/get` (or a notification) reports it: the task `taskId`
 * asked about, with what its status requires — well-formed questions while
 * `input_required` (with `declared`, also only for capabilities declared, as
 * the client that answers them requires), the result when `completed`, the
 * JSON-RPC error when `failed`.
 */
export function readDetailedTask(value: unknown, taskId: string, declared?: ClientCapabilities, what = `tasks/get for ${taskId}`): DetailedTask {
  const info = readTaskInfo(value, what);
  const detailed = value as DetailedTask;
  if (info.taskId !== taskId) throw new ProtocolViolationError(`${what} answered about another task (${JSON.stringify(info.taskId)})`, value);
  if (detailed.resultType !== undefined && detailed.resultType !== 'complete') {
    throw new ProtocolViolationError(`${what} has resultType ${JSON.stringify(detailed.resultType)}; it is always "complete"`, value);
  }
  switch (info.status) {
    case 'input_required':
      checkInputRequests(detailed.inputRequests, declared, value);
      break;
    case 'completed':
      if (!isObject(detailed.result)) throw new ProtocolViolationError(`${what} is completed without a result`, value);
      break;
    case 'failed': {
      const error = detailed.error;
      if (!isObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
        throw new ProtocolViolationError(`${what} failed without a JSON-RPC error`, value);
      }
      break;
    }
  }
  return detailed;
}
