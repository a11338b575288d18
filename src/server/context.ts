/** What a handler sees of its request: who asked, with which capabilities, and how to report back. */

import type { AuthInfo } from '../protocol/authorization.js';
import type { RequestChannel } from '../protocol/channel.js';
import { notification, type JsonRpcRequest } from '../protocol/jsonrpc.js';
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
import { ReplayInteraction, type Ledger } from '../mrtr/replay.js';
import type { RequestMeta } from './request-meta.js';

export interface ProgressUpdate {
  total?: number;
  message?: string;
}

/**
 * What every handler context has, whatever extensions the server has.
 * `State` types what the handler keeps between rounds (`inputRequired({ state })`
 * and `ctx.state`): a handler declares it on its `ctx` parameter,
 * `(args, ctx: RequestContext<WizardState>) => …`. It must be JSON.
 */
export interface CoreContext<State = JsonValue> {
  readonly method: string;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  /** The capabilities the client declared on this request (never inferred from earlier ones). */
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /**
   * Who calls, as bound into this flow's sealed state and tasks: with a
   * protected HTTP endpoint, the verified token's issuer, subject and client;
   * with an `authenticate` hook, what it returned; undefined when anonymous.
   */
  readonly principal: string | undefined;
  /**
   * The verified access token's caller (`subject`, `clientId`, `scopes`,
   * `issuer`, `claims`) when the HTTP endpoint is a protected resource;
   * undefined otherwise (stdio, anonymous, no `auth`).
   */
  readonly auth: AuthInfo | undefined;
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
  /**
   * What this flow's previous round kept with `inputRequired({ state })`;
   * undefined on the first round. Sealed: only this server could have written
   * it, for this handler, so it has the type the handler gave it.
   */
  readonly state: State | undefined;
  /** The answers this retry carried, by key, as sent (for hand-written flows). */
  readonly inputResponses: Readonly<Record<string, unknown>>;
  /**
   * Builds an input-required result by hand: questions to send (as embedded
   * requests) and/or state to keep. Return it from the handler; the state is
   * sealed like any other. State alone means "retry now".
   */
  inputRequired(options: ManualInputRequired<State>): InputRequiredResult;
}

/**
 * Members extensions add to every handler context, declared by each extension
 * through module augmentation (the Tasks extension adds `task`) and defined by
 * the server's context class (context-class.ts).
 */
export interface ContextExtensions {}

/** What a handler sees of its request: the core's context and every extension's members. */
export interface RequestContext<State = JsonValue> extends CoreContext<State>, ContextExtensions {}

const NOT_INTERACTIVE =
  'ctx.ask, ctx.once and ctx.inputRequired work only in tools/call, resources/read and prompts/get handlers';

/**
 * The server-side implementation of RequestContext. The interaction handlers
 * ask through is given at construction: a replay (2026-07-28), a live session
 * (2025-11-25), or none for methods that may not ask. `finish()` stops
 * notifications once the response is decided.
 */
export class RequestExchange implements CoreContext {
  readonly method: string;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly principal: string | undefined;
  readonly auth: AuthInfo | undefined;
  readonly meta: Readonly<Record<string, unknown>>;

  private readonly channel: RequestChannel;
  private readonly requestMeta: RequestMeta;
  private readonly loggingEnabled: boolean;
  private readonly interaction: Interaction | undefined;
  private lastProgress = -Infinity;
  private finished = false;
  /** Made on first use of `signal`, so requests that never look at it pay nothing. */
  private roundAbort: AbortController | undefined;
  private roundSignal: AbortSignal | undefined;

  constructor(request: JsonRpcRequest, meta: RequestMeta, channel: RequestChannel, loggingEnabled: boolean, interaction: Interaction | undefined) {
    this.method = request.method;
    this.requestId = request.id;
    this.protocolVersion = meta.protocolVersion;
    this.clientCapabilities = meta.clientCapabilities;
    this.clientInfo = meta.clientInfo;
    this.principal = channel.principal;
    this.auth = channel.auth;
    this.meta = meta.raw;
    this.channel = channel;
    this.requestMeta = meta;
    this.loggingEnabled = loggingEnabled;
    this.interaction = interaction;
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
    if (!this.roundSignal) {
      this.roundAbort = new AbortController();
      this.roundSignal = AbortSignal.any([this.channel.signal, this.roundAbort.signal]);
    }
    return this.roundSignal;
  }

  /** Called once the response is decided: nothing more may be sent for this request. */
  finish(): void {
    this.finished = true;
  }

  /** The round ended without the handler (it waits for input): nothing more is sent, and its signal aborts so pending work stops. */
  end(reason: string): void {
    this.finished = true;
    this.roundAbort?.abort(new Error(reason));
  }

  private get interactive(): Interaction {
    if (!this.interaction) throw new TypeError(`${NOT_INTERACTIVE} (this is ${this.method})`);
    return this.interaction;
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
    return this.interaction?.state;
  }

  /** What this request's flow has recorded so far (2026-07-28 replays only). */
  recordedFlow(): Ledger | undefined {
    return this.interaction instanceof ReplayInteraction ? this.interaction.recorded() : undefined;
  }

  get inputResponses(): Readonly<Record<string, unknown>> {
    return this.interaction?.inputResponses ?? {};
  }

  inputRequired(options: ManualInputRequired): InputRequiredResult {
    void this.interactive;
    const result: InputRequiredResult & { [AUTHOR_STATE]?: JsonValue } = { resultType: 'input_required' };
    if (options.inputRequests !== undefined) result.inputRequests = options.inputRequests;
    if (options.state !== undefined) result[AUTHOR_STATE] = options.state;
    return result;
  }
}

/**
 * What the flow of the request `ctx` belongs to has recorded so far (answers of
 * its input rounds, `ctx.once` results), for an extension that runs the
 * handler again later with the same answers (a resumed task); undefined when
 * the request is not a 2026-07-28 replay.
 */
export function recordedFlow(ctx: CoreContext): Ledger | undefined {
  return ctx instanceof RequestExchange ? ctx.recordedFlow() : undefined;
}

/** A context as the server makes it: the core's class with the extensions' members on its prototype. */
export type ServerContext = RequestExchange & ContextExtensions;
