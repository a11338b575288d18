/**
 * The experimental tasks of 2025-11-25, for `callTool`: a tool that declares
 * `execution.taskSupport` "required" or "optional", on a server whose
 * capabilities include `tasks.requests.tools.call`, is called with a `task`
 * param; the client polls `tasks/get` at the server's `pollInterval` (within
 * the client's bounds) and fetches the tool's result with `tasks/result` once
 * the task ends — or as soon as it needs input, since that era's task asks
 * its questions as requests on the `tasks/result` stream (answered by the
 * same handlers as any 2025 server request). The caller's signal, the
 * client's time limit or an observer returning false sends `tasks/cancel`.
 */

import { ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import type { TaskInfo } from '../protocol/method-types.js';
import { Method, TaskMethod } from '../protocol/methods.js';
import type { CallToolResult, Tool } from '../protocol/types.js';
import { ProtocolViolationError, RequestTimeoutError, TaskError } from './errors.js';
import { pause } from './pause.js';
import type { Requester, RequestOptions } from './requester.js';
import { cancelQuietly, isPassing, pollBounds, POLL_FAILURES, type TaskFlowOptions } from './task-flow.js';
import { readTaskInfo } from './task-checks.js';
import { TaskWatch } from './task-observer.js';

/** `tasks/result` of 2025-11-25: what the augmented request would have returned. */
const TASK_RESULT = 'tasks/result';

type TaskSupport = 'required' | 'optional' | 'forbidden';

/** A 2025-11-25 `Task` (`ttl`, `pollInterval`) read as the client's `TaskInfo` (`ttlMs`, `pollIntervalMs`); with `taskId`, it must be that task. */
function readSessionTask(value: unknown, what: string, taskId?: string): TaskInfo {
  if (!isObject(value)) return readTaskInfo(value, what);
  const { ttl, pollInterval, ...rest } = value;
  const task = readTaskInfo({ ...rest, ttlMs: ttl ?? null, pollIntervalMs: pollInterval }, what);
  if (taskId !== undefined && task.taskId !== taskId) throw new ProtocolViolationError(`${what} answered about another task (${JSON.stringify(task.taskId)})`, value);
  return task;
}

export class SessionTaskCalls {
  /** Each tool's `execution.taskSupport`, from the last `tools/list`. */
  private readonly support = new Map<string, TaskSupport>();

  constructor(
    private readonly requester: Requester,
    private readonly options: TaskFlowOptions,
    /** Lists the tools (which calls `learn` for each), for a tool called before any listing. */
    private readonly listTools: (options: RequestOptions) => Promise<unknown>,
  ) {}

  /** Remembers how a listed tool takes tasks. */
  learn(tool: Tool): void {
    const execution = (tool as { execution?: unknown }).execution;
    const support = isObject(execution) ? execution.taskSupport : undefined;
    this.support.set(tool.name, support === 'required' || support === 'optional' ? support : 'forbidden');
  }

  /** Whether a call of this tool goes as a task: the server takes tasks for tools/call, the tool takes them, the client has not turned tasks off. */
  async wanted(name: string, options: RequestOptions): Promise<boolean> {
    if (this.options.tasks?.declare === false) return false;
    const tasks = (this.requester.serverCapabilities as { tasks?: unknown } | undefined)?.tasks;
    const toolCalls = isObject(tasks) && isObject(tasks.requests) && isObject(tasks.requests.tools) ? tasks.requests.tools.call : undefined;
    if (!isObject(toolCalls)) return false;
    if (!this.support.has(name)) {
      // A listing that fails says nothing of the tool: it is called plainly, and the server decides.
      await this.listTools({ signal: options.signal }).catch(() => undefined);
      if (!this.support.has(name)) this.support.set(name, 'forbidden');
    }
    return this.support.get(name) !== 'forbidden';
  }

  /** Calls the tool as a task and returns its result, as the call would have returned it without one. */
  async call(name: string, args: Record<string, unknown>, options: RequestOptions = {}): Promise<CallToolResult> {
    const params = { name, arguments: args };
    const created = await this.requester.request(Method.ToolsCall, { ...params, task: {} }, options);
    const task = readSessionTask(created.task, `The task the server created for tools/call ${name}`);
    return this.follow(task, params, options);
  }

  private async follow(created: TaskInfo, params: Record<string, unknown>, options: RequestOptions): Promise<CallToolResult> {
    const { taskId } = created;
    const { minPoll, maxPoll, timeoutMs } = pollBounds(this.options.tasks);
    const started = Date.now();
    const left = (): number => Math.max(0, timeoutMs - (Date.now() - started));
    const watch = new TaskWatch([this.options.onTask, options.onTask], Method.ToolsCall, params);
    const signal = options.signal;
    const timedOut = (last: TaskInfo): TaskError => new TaskError(`Task ${taskId} did not finish within ${timeoutMs} ms (tasks.timeoutMs)`, taskId, 'timeout', last.status);
    let task = created;
    let settled = false;
    let failures = 0;
    try {
      for (;;) {
        if (!(await watch.saw(task))) throw new TaskError(`Task ${taskId} was stopped by onTask`, taskId, 'stopped', task.status);
        if (task.status === 'cancelled') {
          settled = true;
          throw new TaskError(`Task ${taskId} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}`, taskId, 'cancelled', task.status);
        }
        if (task.status !== 'working') {
          // Ended, or waiting for input: tasks/result asks the questions on its stream and answers once the task ends.
          try {
            const result = await this.requester.request(TASK_RESULT, { taskId }, { signal, timeoutMs: left() });
            settled = true;
            return result as CallToolResult;
          } catch (error) {
            // The tool's own JSON-RPC error, as the call would have thrown it: the task is over.
            if (error instanceof McpError && error.code !== ErrorCode.InvalidParams) settled = true;
            if (error instanceof RequestTimeoutError && left() === 0) throw timedOut(task);
            throw error;
          }
        }
        const interval = Math.min(maxPoll, Math.max(minPoll, task.pollIntervalMs ?? 1000));
        await pause(Math.min(interval, left()), signal);
        if (left() === 0) throw timedOut(task);
        try {
          task = readSessionTask(await this.requester.request(TaskMethod.Get, { taskId }, { signal }), `tasks/get for ${taskId}`, taskId);
          failures = 0;
        } catch (error) {
          // The server no longer knows the task (-32602: unknown or expired): it is gone, nothing to cancel.
          if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
            settled = true;
            throw new TaskError(`Task ${taskId} is gone: the server no longer knows it (${error.message})`, taskId, 'expired', task.status, { cause: error });
          }
          if (signal?.aborted || !isPassing(error) || ++failures >= POLL_FAILURES) throw error;
        }
      }
    } catch (error) {
      // Anything but the task's own end leaves it running on the server: cancel it (best effort).
      if (!settled) await cancelQuietly(this.requester, taskId);
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }
}
