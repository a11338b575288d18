/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) as an
 * extension of the server: `ctx.task(fn)` in tools that take part, the
 * `tasks/*` methods, the capability, and its -32021 gates. Tasks exist only
 * for 2026-07-28 requests that declared the extension.
 */

import { missingCapabilityError } from '../protocol/capabilities.js';
import { McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import { TASKS_EXTENSION } from '../protocol/meta.js';
import type { ResultByMethod } from '../protocol/method-types.js';
import { Method, TaskMethod } from '../protocol/methods.js';
import type { ClientCapabilities, ServerCapabilities } from '../protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { recordedFlow, type RequestContext } from '../server/context.js';
import type { ExtensionFactory, MethodHandler, ServerExtension, ServerHost } from '../server/extension.js';
import type { Operation } from '../server/operation.js';
import type { RequestMeta } from '../server/request-meta.js';
import { madeByExtension } from '../server/results.js';
import type { ToolCall, ToolHandOff } from '../server/tools.js';
import { MemoryTaskStore, type TaskCall, type TaskStore } from '../stores/task-store.js';
import { StatusCountingStore } from './status-counting-store.js';
import { TaskMethods } from './task-methods.js';
import { TaskResumption } from './task-resumption.js';
import { TaskRunner } from './task-runner.js';
import { inlineTask, isTaskWork, taskToolOf, taskWork, type TaskContext, type TaskOptions, type TaskReturn, type TaskWork } from './task-work.js';

export interface TasksOptions {
  /** How long a task's record lives after creation, in ms (default 1 hour). */
  ttlMs?: number;
  /** How often clients should poll, in ms (default 1000). */
  pollIntervalMs?: number;
  /** Most tasks held at once by the default store (default 10,000); beyond it new tasks are refused (HTTP 503). */
  maxTasks?: number;
  /** Most tasks one caller (principal) may hold at once, of any status (default 1,000); beyond it that caller's new tasks are refused (HTTP 429). */
  maxTasksPerPrincipal?: number;
  /** Where tasks are kept (default: this process's memory; `stores.tasks` of the server options sets it too). */
  store?: TaskStore;
  /**
   * How long the lease on a running task lasts without renewal, with a shared
   * store (default 15 s): a task whose instance died fails within it, or is
   * resumed by another instance when its tool is resumable.
   */
  leaseMs?: number;
  /** How many times one resumable task is resumed after its instance stopped before it fails instead (default 3). */
  maxResumptions?: number;
  /** Most bytes of step results (`task.once`, as JSON) one resumable task records (default 1 MiB); the step that would pass it fails. */
  maxCheckpointBytes?: number;
}

/** Whether a request's capabilities declare the Tasks extension. */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  return isObject(capabilities.extensions) && isObject(capabilities.extensions[TASKS_EXTENSION]);
}

const NEEDS_TASKS: ClientCapabilities = { extensions: { [TASKS_EXTENSION]: {} } };

/** Whether this request may have a task made for it. */
function mayHaveTasks(meta: Pick<RequestMeta, 'protocolVersion' | 'clientCapabilities'>): boolean {
  return MODERN_PROTOCOL_VERSIONS.includes(meta.protocolVersion) && declaresTasks(meta.clientCapabilities);
}

export function tasks(options: TasksOptions = {}): ExtensionFactory {
  return (host) => new TasksExtension(host, options);
}

class TasksExtension implements ServerExtension {
  readonly name = 'tasks';
  readonly methods: Readonly<Record<string, MethodHandler>>;
  readonly context = {
    task(this: RequestContext, fn: (task: TaskContext) => TaskReturn | Promise<TaskReturn>, options?: TaskOptions): TaskWork {
      // The Tasks extension covers tools/call only.
      if (this.method !== Method.ToolsCall) throw new TypeError(`ctx.task works only in tools/call handlers (this is ${this.method})`);
      return taskWork(fn, options);
    },
  };
  private readonly runner: TaskRunner;
  private readonly resumption: TaskResumption;
  private readonly taskMethods: TaskMethods;
  /** Whether a request came (and asked the resumption to start sweeping): asked once, not on every request. */
  private sweepingAsked = false;

  constructor(
    private readonly host: ServerHost,
    options: TasksOptions,
  ) {
    const maxTasks = options.store ? undefined : (options.maxTasks ?? 10_000);
    // Only a store the app gave may be shared with other servers: leases and resumption need one.
    const store = new StatusCountingStore(options.store ?? new MemoryTaskStore({ maxTasks }), (status) => host.taskStatus(status), options.store !== undefined);
    const leaseMs = options.leaseMs ?? 15_000;
    this.runner = new TaskRunner(
      store,
      {
        ttlMs: options.ttlMs ?? 60 * 60_000,
        pollIntervalMs: options.pollIntervalMs ?? 1000,
        maxTasksPerPrincipal: options.maxTasksPerPrincipal ?? 1000,
        maxTasks,
        leaseMs,
        maxCheckpointBytes: options.maxCheckpointBytes ?? 1024 * 1024,
      },
      host.logger,
    );
    this.resumption = new TaskResumption(host, store, this.runner, { leaseMs, maxResumptions: options.maxResumptions ?? 3 });
    this.taskMethods = new TaskMethods(store, (taskId) => this.resumption.takeOver(taskId));
    const methods = this.taskMethods;
    const gated =
      (answer: (params: Record<string, unknown>, principal: string) => Promise<Record<string, unknown>>): MethodHandler =>
      async ({ request, params }, ctx) => {
        // Tasks do not exist under 2025-11-25, whatever a session declared.
        if (!MODERN_PROTOCOL_VERSIONS.includes(ctx.protocolVersion)) throw McpError.methodNotFound(request.method);
        if (!declaresTasks(ctx.clientCapabilities)) throw missingCapabilityError([NEEDS_TASKS]);
        return answer(params, ctx.principal ?? '');
      };
    this.methods = {
      [TaskMethod.Get]: gated((params, principal) => methods.get(params, principal)),
      [TaskMethod.Update]: gated((params, principal) => methods.update(params, principal)),
      [TaskMethod.Cancel]: gated((params, principal) => methods.cancel(params, principal)),
    };
  }

  /** Whether any tool takes part. */
  private get inUse(): boolean {
    for (const definition of this.host.toolDefinitions()) if (definition.task) return true;
    return false;
  }

  capabilities(core: ServerCapabilities): ServerCapabilities {
    return this.inUse ? { ...core, extensions: { ...core.extensions, [TASKS_EXTENSION]: {} } } : core;
  }

  offersMethods(capabilities: ServerCapabilities): boolean {
    return capabilities.extensions?.[TASKS_EXTENSION] !== undefined;
  }

  admit({ request, params, meta, tool: called }: Operation): void {
    // Timers start with the first request, never at start-up (Workers refuse them at global scope).
    if (!this.sweepingAsked) {
      this.sweepingAsked = true;
      this.resumption.startSweeping();
    }
    if (request.method === Method.ToolsCall) {
      // A task-only tool needs a request that can have a task (a 2025 session never can).
      if (taskToolOf(called?.definition.task)?.mode === 'required' && !mayHaveTasks(meta)) throw missingCapabilityError([NEEDS_TASKS]);
    } else if (request.method === Method.SubscriptionsListen && this.inUse) {
      // Task notifications are not delivered on listen streams (a MAY); asking for them without the extension is still -32021.
      const filter = params.notifications;
      if (isObject(filter) && filter.taskIds !== undefined && !declaresTasks(meta.clientCapabilities)) throw missingCapabilityError([NEEDS_TASKS]);
    }
  }

  async takeHandOff(handOff: ToolHandOff, call: ToolCall): Promise<ResultByMethod['tools/call']> {
    if (!isTaskWork(handOff)) throw new TypeError(`Tool "${call.name}" returned a hand-off to tasks that is not ctx.task work`);
    const { ctx } = call;
    // The handler ran again to resume a task: its work goes on under that task (the result is nobody's).
    if (this.resumption.takeRerun(ctx.requestId, handOff, call.shape)) return { content: [] };
    const tool = taskToolOf(call.definition.task);
    if (!tool || !mayHaveTasks(ctx)) {
      // No task: the work runs inside this request, so its asks are this request's own.
      return call.shape(await handOff.run(inlineTask(ctx)));
    }
    const resumable = tool.resume && this.resumption.possible ? taskCall(call) : undefined;
    const task = await this.runner.start(handOff, ctx.principal ?? '', ctx.clientCapabilities, call.shape, resumable);
    // Cancelled while the task was being made (HTTP: the client went away): nobody will learn its id, so nobody could stop it.
    if (ctx.signal.aborted) {
      await this.taskMethods.abandon(task.taskId);
      throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('The request was cancelled');
    }
    const { taskId, status, ttlMs, pollIntervalMs } = task;
    const createdAt = new Date(task.createdAt).toISOString();
    // The core schema has no task results and checks a tools/call result as CallToolResult: an empty content keeps it valid.
    return madeByExtension({ resultType: 'task', taskId, status, createdAt, lastUpdatedAt: createdAt, ttlMs, pollIntervalMs, content: [] });
  }

  close(): void {
    this.resumption.close();
    this.runner.stopAll('The server is shutting down');
  }
}

/** What another instance needs to run a tool call again: its arguments, its request's `_meta`, its caller, and its flow so far. */
function taskCall(call: ToolCall): TaskCall {
  const made: TaskCall = { tool: call.name, arguments: { ...call.arguments }, meta: { ...call.ctx.meta } };
  if (call.ctx.auth) made.auth = call.ctx.auth;
  const flow = recordedFlow(call.ctx);
  if (flow && Object.keys(flow).length > 0) made.flow = flow as TaskCall['flow'];
  return made;
}
