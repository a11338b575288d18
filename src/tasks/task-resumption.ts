/**
 * Resumable tasks whose instance stopped, carried on here: the lease that
 * lapsed is claimed (of the instances that try, one wins), the tool's handler
 * runs again from the top with the call's arguments, caller and recorded flow
 * (answered questions and `ctx.once` results return at once), and the work it
 * hands over with `ctx.task` runs under the same task id, its recorded steps
 * and answers given back. A task is found when any instance is asked about it
 * (`tasks/get`, `tasks/update`), or by the sweep each instance with a
 * resumable tool runs once it has served a request.
 */

import { ReplayInteraction, STUCK, type Ledger } from '../mrtr/replay.js';
import type { RequestChannel } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import type { ClientCapabilities, RequestId } from '../protocol/types.js';
import { randomId } from '../platform/crypto.js';
import type { ServerHost } from '../server/extension.js';
import { readRequestMeta, type RequestMeta } from '../server/request-meta.js';
import { LIVE_STATUSES, type TaskData, type TaskStore } from '../stores/task-store.js';
import type { RunningTask, ShapeTaskResult, TaskRunner } from './task-runner.js';
import { taskToolOf, type TaskWork } from './task-work.js';

export interface ResumptionLimits {
  /** The lease's length: also how often the sweep looks for lapsed tasks. */
  leaseMs: number;
  /** How many times one task is resumed before it fails. */
  maxResumptions: number;
}

/** What a handler's run for a resumption handed over. */
interface Rerun {
  work?: TaskWork;
  shape?: ShapeTaskResult;
}

/** Lapsed tasks looked at per sweep. */
const SWEEP_BATCH = 100;

export class TaskResumption {
  /** Handler runs under way for tasks being taken over, by the request id they run under. */
  private readonly reruns = new Map<RequestId, Rerun>();
  /** Tasks this server is taking over now (one attempt at a time each). */
  private readonly taking = new Set<string>();
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private sweeping = false;
  private cursor = 0;
  /** Set when the server shuts down: it takes no task over any more. */
  private closed = false;

  constructor(
    private readonly host: ServerHost,
    private readonly store: TaskStore,
    private readonly runner: TaskRunner,
    private readonly limits: ResumptionLimits,
  ) {}

  /** Whether this server can resume tasks at all (a store shared with others, with checkpoints). */
  get possible(): boolean {
    return this.store.checkpoints !== undefined;
  }

  /**
   * A live resumable task whose lease lapsed: claims it and runs it here,
   * unless another instance is first. Failures are logged, never thrown: the
   * task stays as the store has it, and the next look tries again.
   */
  async takeOver(taskId: string): Promise<void> {
    if (!this.possible || this.closed || this.taking.has(taskId)) return;
    this.taking.add(taskId);
    try {
      await this.tryTakeOver(taskId);
    } catch (error) {
      this.host.logger.warn(`Could not resume task ${taskId}`, error);
    } finally {
      this.taking.delete(taskId);
    }
  }

  /** The work a handler's run for a resumption handed over: kept for that resumption (true), or not one (false). */
  takeRerun(requestId: RequestId, work: TaskWork, shape: ShapeTaskResult): boolean {
    const rerun = this.reruns.get(requestId);
    if (!rerun) return false;
    rerun.work = work;
    rerun.shape = shape;
    return true;
  }

  /** Starts the sweep (once), when this server has a resumable tool to run. */
  startSweeping(): void {
    if (this.sweepTimer || !this.possible || this.closed) return;
    this.sweepTimer = setInterval(() => void this.sweep(), this.limits.leaseMs);
    (this.sweepTimer as { unref?: () => void }).unref?.();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.sweepTimer);
  }

  private async sweep(): Promise<void> {
    if (this.sweeping || !this.hasResumableTool()) return;
    this.sweeping = true;
    try {
      const { taskIds, cursor } = await this.store.checkpoints!.lapsed(this.cursor, SWEEP_BATCH);
      this.cursor = cursor;
      for (const taskId of taskIds) await this.takeOver(taskId);
    } catch (error) {
      this.host.logger.warn('Could not look for tasks to resume', error);
    } finally {
      this.sweeping = false;
    }
  }

  private hasResumableTool(): boolean {
    for (const definition of this.host.toolDefinitions()) if (taskToolOf(definition.task)?.resume) return true;
    return false;
  }

  private async tryTakeOver(taskId: string): Promise<void> {
    const seen = await this.store.get(taskId);
    if (!seen?.call || !LIVE_STATUSES.includes(seen.status)) return;
    const running = await this.runner.adopt(seen);
    if (!running) return;
    let resumed = false;
    try {
      resumed = await this.resumeAdopted(running);
    } finally {
      if (!resumed) await this.runner.abandon(running);
    }
  }

  /** Runs an adopted task here; false when it is not to be run (it ended, or could not be resumed: then it failed). */
  private async resumeAdopted(running: RunningTask): Promise<boolean> {
    const taskId = running.taskId;
    // Read again now that its events reach this server: a cancellation that came first shows in the status.
    const task = await this.store.get(taskId);
    if (!task?.call || !LIVE_STATUSES.includes(task.status)) return false;
    const resumptions = (task.resumptions ?? 0) + 1;
    if (resumptions > this.limits.maxResumptions) {
      const times = resumptions === 1 ? 'once' : `${resumptions} times`;
      await this.fail(taskId, `The server instance running this task stopped ${times}; it is not resumed again (tasks.maxResumptions is ${this.limits.maxResumptions})`);
      return false;
    }
    if (!(await this.store.transition(taskId, LIVE_STATUSES, { resumptions }))) return false;
    const checkpoint = await this.store.checkpoints!.read(taskId);
    const rerun = await this.rerun(task, running);
    if ('failure' in rerun) {
      await this.fail(taskId, `The task could not be resumed after its server instance stopped: ${rerun.failure}`);
      return false;
    }
    this.runner.resume(running, rerun.work, rerun.capabilities, rerun.shape, checkpoint);
    return true;
  }

  /** Runs the tool's handler again, as the call that made the task, up to the work it hands over. */
  private async rerun(task: TaskData, running: RunningTask): Promise<{ work: TaskWork; shape: ShapeTaskResult; capabilities: ClientCapabilities } | { failure: string }> {
    const call = task.call!;
    if (!this.host.toolDefinition(call.tool)) return { failure: `its tool "${call.tool}" is not on the instance that took it over` };
    let meta: RequestMeta;
    try {
      meta = readRequestMeta({ _meta: call.meta });
    } catch (error) {
      return { failure: `its request's _meta no longer reads (${(error as Error).message})` };
    }
    const id = `resume-${task.taskId}-${randomId(6)}`;
    const rerun: Rerun = {};
    this.reruns.set(id, rerun);
    const interaction = new ReplayInteraction((call.flow ?? {}) as Ledger, {}, meta.clientCapabilities);
    const channel: RequestChannel = { signal: running.controller.signal, canNotify: false, send: () => undefined, principal: task.principal || undefined, auth: call.auth };
    try {
      const request = { jsonrpc: '2.0' as const, id, method: 'tools/call', params: { name: call.tool, arguments: call.arguments, _meta: call.meta } };
      const outcome = await interaction.settle(this.host.invoke(request, channel, meta, interaction));
      if (outcome === STUCK) return { failure: 'its tool asked a question before ctx.task that its first run had not asked' };
      if (!rerun.work || !rerun.shape) return { failure: 'its tool did not hand its work over with ctx.task this time' };
      return { work: rerun.work, shape: rerun.shape, capabilities: meta.clientCapabilities };
    } catch (error) {
      return { failure: `its tool failed (${this.host.clientError(error, 'tools/call').message})` };
    } finally {
      this.reruns.delete(id);
    }
  }

  private async fail(taskId: string, statusMessage: string): Promise<void> {
    this.host.logger.warn(`task ${taskId}: ${statusMessage}`);
    await this.store.transition(taskId, LIVE_STATUSES, { status: 'failed', statusMessage, error: McpError.internal(statusMessage).toJSON(), inputRequests: undefined });
  }
}
