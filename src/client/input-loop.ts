/**
 * The multi round-trip loop: a request that may need input (`tools/call`,
 * `resources/read`, `prompts/get`) is answered `input_required` until the
 * client has given every answer; each retry is a new request with the same
 * params, the answers and the exact `requestState`. By hand (manual mode:
 * `begin`, `answer`, `resume`) or to the end (`run`), bounded by a round limit
 * and one deadline for the whole flow — which holds even against a handler
 * that never returns. A `tools/call` answered with a task is followed to its
 * result (task-flow.ts).
 */

import { context as contexts, type Context } from '@opentelemetry/api';
import { McpError } from '../protocol/errors.js';
import type { CreateTaskResult } from '../protocol/method-types.js';
import type { Implementation, InputResponses, Result } from '../protocol/types.js';
import { InputFlowError } from './errors.js';
import type { InputHandlers } from './handlers.js';
import { answerAll } from './input-answers.js';
import { PendingRound } from './pending-round.js';
import type { Requester, RequestOptions } from './requester.js';
import { readResult } from './result-checks.js';
import type { TaskFlow } from './task-flow.js';
import type { ClientCallSpan } from '../telemetry/client-telemetry.js';

export interface RoundInfo {
  method: string;
  params: Readonly<Record<string, unknown>>;
  /** 1 for the first input round. */
  round: number;
  pending: PendingRound;
}

/** Where a request stands: done, waiting for answers, or handed over to a task (Tasks extension, `tools/call` only). */
export type Step<R> =
  | { status: 'complete'; result: R }
  | { status: 'input_required'; pending: PendingRound }
  | { status: 'task'; task: CreateTaskResult };

export interface LoopOptions {
  /** Most input rounds one call may take (default 10). */
  maxRounds?: number;
  /** Longest a whole multi-round call may take, answers included, in ms (default 15 minutes). */
  flowTimeoutMs?: number;
  /** Watches each input round; returning false stops the flow with an InputFlowError. */
  onRound?: (round: RoundInfo) => void | boolean | Promise<void | boolean>;
}

export class InputLoop {
  constructor(
    private readonly requester: Requester,
    private readonly handlers: InputHandlers,
    private readonly options: LoopOptions,
    private readonly tasks: TaskFlow,
  ) {}

  /** Sends a request that may need input and returns its first step (manual mode). `parent`: the span context of the call it begins. */
  begin<R extends Result>(method: string, params: Record<string, unknown>, options: RequestOptions = {}, parent: Context = contexts.active()): Promise<Step<R>> {
    return this.step(method, params, 1, this.requester.request(method, params, options, { parent, round: 1 }));
  }

  /**
   * Retries a pending request with answers (manual mode): a new request id, the
   * same method and params, `inputResponses` and the exact `requestState`.
   */
  resume<R extends Result>(pending: PendingRound, inputResponses: InputResponses, options: RequestOptions = {}, parent: Context = contexts.active()): Promise<Step<R>> {
    const params: Record<string, unknown> = { ...pending.params };
    if (Object.keys(inputResponses).length > 0 || Object.keys(pending.inputRequests).length > 0) params.inputResponses = inputResponses;
    if (pending.hasRequestState) params.requestState = pending.requestState;
    const round = pending.round + 1;
    return this.step(pending.method, pending.params, round, this.requester.request(pending.method, params, options, { parent, round }));
  }

  private async step<R extends Result>(method: string, params: Record<string, unknown>, round: number, sent: Promise<Result>): Promise<Step<R>> {
    const read = readResult(method, await sent, this.requester.declaredFor(method, params));
    // A complete result of the method asked for: what the caller typed it as.
    if (read.kind === 'complete') return { status: 'complete', result: read.result as R };
    if (read.kind === 'task') return { status: 'task', task: read.result };
    const { _meta: _dropped, ...echoed } = params;
    const server: Implementation | undefined = this.requester.serverInfo;
    const { inputRequests } = read.result;
    return {
      status: 'input_required',
      pending: new PendingRound({
        v: 1,
        method,
        params: echoed,
        round,
        ...(server ? { server } : {}),
        ...(inputRequests ? { inputRequests } : {}),
        ...('requestState' in read.result ? { requestState: read.result.requestState } : {}),
      }),
    };
  }

  /**
   * Answers every input request of a pending round through the registered
   * handlers, one after another; each answer is checked before it is
   * returned (an invalid one is an InputFlowError naming the field).
   */
  answer(pending: PendingRound, signal: AbortSignal = new AbortController().signal): Promise<InputResponses> {
    return answerAll(this.handlers, pending.inputRequests, {
      method: pending.method,
      params: pending.params as Record<string, unknown>,
      round: pending.round,
      era: 'modern',
      server: pending.server,
      signal,
    });
  }

  /**
   * Sends a request and runs its input rounds to the end: answers each round
   * through the handlers and retries, bounded by `maxRounds` and
   * `flowTimeoutMs`; follows a task to its result.
   */
  async run<R extends Result>(method: string, params: Record<string, unknown>, options: RequestOptions = {}): Promise<R> {
    // One span over the whole call, the parent of each round's (and of a task's requests).
    const call = this.requester.telemetry?.call(method, params);
    if (!call) return this.runRounds<R>(method, params, options, undefined);
    try {
      // A call span that changed nothing in the context (no SDK) needs no switch to it.
      const rounds = (): Promise<R> => this.runRounds<R>(method, params, options, call);
      const result = await (call.context === contexts.active() ? rounds() : contexts.with(call.context, rounds));
      call.end();
      return result;
    } catch (error) {
      call.end(error);
      throw error;
    }
  }

  private async runRounds<R extends Result>(method: string, params: Record<string, unknown>, options: RequestOptions, call: ClientCallSpan | undefined): Promise<R> {
    const started = Date.now();
    const parent = call?.context ?? contexts.active();
    let step: Step<R> = await this.begin<R>(method, params, options, parent);
    if (step.status === 'complete') return step.result;
    if (step.status === 'task') return this.tasks.follow<R>(step.task, { method, params }, options);
    // Input rounds follow: from here the whole flow, answers included, runs against one deadline.
    const flowMs = this.options.flowTimeoutMs ?? 15 * 60_000;
    const flow = new AbortController();
    const timer = setTimeout(
      () => flow.abort(new InputFlowError(`${method} did not finish within ${flowMs} ms (flowTimeoutMs)`, step.status === 'input_required' ? step.pending.round : 0, { reason: 'timeout' })),
      Math.max(0, flowMs - (Date.now() - started)),
    );
    const signal = options.signal ? AbortSignal.any([options.signal, flow.signal]) : flow.signal;
    const perRequest = { ...options, signal };
    const maxRounds = this.options.maxRounds ?? 10;
    try {
      while (step.status === 'input_required') {
        const pending: PendingRound = step.pending;
        if (pending.round > maxRounds) {
          throw new InputFlowError(`${method} still needed input after ${maxRounds} rounds; giving up`, pending.round - 1, { reason: 'rounds' });
        }
        if ((await this.options.onRound?.({ method, params: pending.params, round: pending.round, pending })) === false) {
          throw new InputFlowError(`${method} was stopped by onRound at round ${pending.round}`, pending.round, { reason: 'stopped' });
        }
        const answers = await this.answer(pending, signal);
        call?.nextRound();
        step = await this.resume<R>(pending, answers, perRequest, parent);
      }
    } catch (error) {
      // The flow's deadline passed: that is the failure, whatever the interrupted step made of it.
      if (flow.signal.aborted && !options.signal?.aborted && !(error instanceof McpError)) throw flow.signal.reason;
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (step.status === 'complete') return step.result;
    // Rounds first, then a task (spec §7.9): the task is bounded by the task options, not the flow's deadline.
    return this.tasks.follow<R>(step.task, { method, params }, options);
  }
}
