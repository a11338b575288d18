/** What a handler sees of its request: who asked, with which capabilities, and how to report back. */

import type { RequestChannel } from '../protocol/channel.js';
import { notification } from '../protocol/jsonrpc.js';
import { Notification } from '../protocol/methods.js';
import {
  LOGGING_LEVELS,
  type ClientCapabilities,
  type Implementation,
  type InputRequiredResult,
  type JsonValue,
  type LoggingLevel,
  type RequestId,
} from '../protocol/types.js';
import { AUTHOR_STATE, type AnswersOf, type Interaction, type ManualInputRequired, type QuestionMap } from '../mrtr/interaction.js';
import type { Question } from '../mrtr/questions.js';
import type { RoundRunner } from '../mrtr/engine.js';
import type { RequestMeta } from './request-meta.js';
import { taskWork, type TaskContext, type TaskOptions, type TaskWork } from './task-work.js';
import type { TaskReturn } from './tools.js';
import type { CallToolResult } from '../protocol/types.js';

export interface ProgressUpdate {
  total?: number;
  message?: string;
}

export interface RequestContext {
  readonly method: string;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  /** The capabilities the client declared on this request (never inferred from earlier ones). */
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** The authenticated caller, or undefined when anonymous. */
  readonly principal: string | undefined;
  /** Aborted when the client cancels or disconnects. */
  readonly signal: AbortSignal;
  /** The request's whole `_meta`. */
  readonly meta: Readonly<Record<string, unknown>>;
  /**
   * Reports progress when the client asked for it (a `progressToken`); otherwise
   * does nothing. Values that do not increase are dropped, as the spec requires.
   */
  progress(progress: number, update?: ProgressUpdate): void;
  /**
   * Sends a log message when the request opted in with `logLevel` at or below
   * `level`; otherwise does nothing. (Logging is deprecated in 2026-07-28; prefer
   * stderr or OpenTelemetry for new work.)
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void;

  /**
   * Asks the client for input and waits for the answer: one question, or a map
   * of questions asked together. Only in `tools/call`, `resources/read` and
   * `prompts/get` handlers. Under MRTR the handler is replayed from the top on
   * every round, so code before an answered ask runs again: keep side effects
   * in `once`. Throws -32021 (an McpError) when the request did not declare the
   * capability the question needs; check with `canAsk` first to degrade instead.
   */
  ask<A>(question: Question<A>): Promise<A>;
  ask<M extends QuestionMap>(questions: M): Promise<AnswersOf<M>>;
  /** Whether this request's client capabilities allow the question. */
  canAsk(question: Question<unknown>): boolean;
  /**
   * Runs `fn` the first time it is reached in a flow and returns its result;
   * on later rounds returns the stored result (as JSON) without running it.
   */
  once<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /** What this flow's previous round kept with `inputRequired({ state })`; undefined on the first round. */
  readonly state: JsonValue | undefined;
  /** The answers this retry carried, by key, as sent (for hand-written flows). */
  readonly inputResponses: Readonly<Record<string, unknown>>;
  /**
   * Builds an input-required result by hand: questions to send (as embedded
   * requests) and/or state to keep. Return it from the handler; the state is
   * sealed like any other. State alone means "retry now".
   */
  inputRequired(options: ManualInputRequired): InputRequiredResult;
  /**
   * Hands the rest of a tool call over as a task (Tasks extension): when the
   * request declared it and the tool allows tasks, the client gets a task it
   * can poll while `fn` runs; otherwise `fn` runs now and its result is the
   * tool's result. Ask everything the call needs before this (input rounds
   * come first); inside, `task.ask` asks through the task.
   */
  task(fn: (task: TaskContext) => TaskReturn | Promise<TaskReturn>, options?: TaskOptions): TaskWork;
}

const NOT_INTERACTIVE =
  'ctx.ask, ctx.once and ctx.inputRequired work only in tools/call, resources/read and prompts/get handlers';

/** The server-side implementation of RequestContext; `finish()` stops notifications once the response is out. */
export class RequestExchange implements RequestContext {
  readonly method: string;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly principal: string | undefined;
  readonly meta: Readonly<Record<string, unknown>>;

  private readonly channel: RequestChannel;
  private readonly requestMeta: RequestMeta;
  private readonly loggingEnabled: boolean;
  private lastProgress = -Infinity;
  private finished = false;
  private interaction: Interaction | (() => Interaction) | undefined;
  /** Made on first use of `signal`, so requests that never look at it pay nothing. */
  private roundAbort: AbortController | undefined;

  constructor(
    method: string,
    requestId: RequestId,
    meta: RequestMeta,
    channel: RequestChannel,
    loggingEnabled: boolean,
    /** Serves this request's asks: replayed rounds (2026-07-28) or a live session (2025-era). */
    readonly rounds: RoundRunner,
  ) {
    this.method = method;
    this.requestId = requestId;
    this.protocolVersion = meta.protocolVersion;
    this.clientCapabilities = meta.clientCapabilities;
    this.clientInfo = meta.clientInfo;
    this.principal = channel.principal;
    this.meta = meta.raw;
    this.channel = channel;
    this.requestMeta = meta;
    this.loggingEnabled = loggingEnabled;
  }

  progress(progress: number, update?: ProgressUpdate): void {
    const token = this.requestMeta.progressToken;
    if (token === undefined || this.finished || !this.channel.canNotify) return;
    if (!Number.isFinite(progress) || progress <= this.lastProgress) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (update?.total !== undefined) params.total = update.total;
    if (update?.message !== undefined) params.message = update.message;
    this.channel.send(notification(Notification.Progress, params));
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.requestMeta.logLevel;
    if (!this.loggingEnabled || threshold === undefined || this.finished || !this.channel.canNotify) return;
    if (LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(threshold)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.channel.send(notification(Notification.Message, params));
  }

  /** Aborted when the client cancels or disconnects, or when this round ends waiting for input. */
  get signal(): AbortSignal {
    if (!this.roundAbort) {
      const controller = new AbortController();
      const upstream = this.channel.signal;
      if (upstream.aborted) controller.abort(upstream.reason);
      else upstream.addEventListener('abort', () => controller.abort(upstream.reason), { once: true });
      this.roundAbort = controller;
    }
    return this.roundAbort.signal;
  }

  /** Called once the response is decided: nothing more may be sent for this request. */
  finish(): void {
    this.finished = true;
  }

  attach(interaction: Interaction | (() => Interaction)): void {
    this.interaction = interaction;
  }

  /** The interaction, made now if it was attached as a factory; undefined outside interactive methods. */
  private get attached(): Interaction | undefined {
    if (typeof this.interaction === 'function') this.interaction = this.interaction();
    return this.interaction;
  }

  endRound(): void {
    this.finished = true;
    this.roundAbort?.abort(new Error('The round ended waiting for input'));
  }

  private get interactive(): Interaction {
    const interaction = this.attached;
    if (!interaction) throw new TypeError(`${NOT_INTERACTIVE} (this is ${this.method})`);
    return interaction;
  }

  ask<A>(question: Question<A>): Promise<A>;
  ask<M extends QuestionMap>(questions: M): Promise<AnswersOf<M>>;
  ask(input: Question<unknown> | QuestionMap): Promise<unknown> {
    return this.interactive.ask(input);
  }

  canAsk(question: Question<unknown>): boolean {
    return this.interactive.canAsk(question);
  }

  once<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    return this.interactive.once(name, fn);
  }

  get state(): JsonValue | undefined {
    return this.attached?.state;
  }

  get inputResponses(): Readonly<Record<string, unknown>> {
    return this.attached?.inputResponses ?? {};
  }

  task(fn: (task: TaskContext) => TaskReturn | Promise<TaskReturn>, options: TaskOptions = {}): TaskWork {
    // The Tasks extension covers tools/call only.
    if (this.method !== 'tools/call') throw new TypeError(`ctx.task works only in tools/call handlers (this is ${this.method})`);
    // The tool registry shapes what fn returns into a CallToolResult when it wraps this work.
    return taskWork(async (task) => (await fn(task)) as unknown as CallToolResult, options);
  }

  inputRequired(options: ManualInputRequired): InputRequiredResult {
    void this.interactive;
    const result: InputRequiredResult & { [AUTHOR_STATE]?: JsonValue } = { resultType: 'input_required' };
    if (options.inputRequests !== undefined) result.inputRequests = options.inputRequests;
    if (options.state !== undefined) result[AUTHOR_STATE] = options.state;
    return result;
  }
}
