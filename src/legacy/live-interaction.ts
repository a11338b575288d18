/**
 * Asking on a 2025-11-25 session: the same handler code, but an ask becomes a
 * real server-initiated request (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`) on the request's own stream, and the handler goes on when the
 * answer arrives. A hand-made input-required result is fulfilled the same way
 * and the handler is run again with the answers and its state, in process.
 * Nothing of this ever reaches a 2025 client as `input_required`.
 */

import { askAll, judgeAnswer } from '../mrtr/ask-all.js';
import { AUTHOR_STATE, type Interaction, type QuestionMap } from '../mrtr/interaction.js';
import type { Question } from '../mrtr/questions.js';
import { missingFor, requireCapabilities } from '../protocol/capabilities.js';
import type { RequestChannel } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import { isInputRequest } from '../protocol/input-requests.js';
import { isObject } from '../protocol/guards.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, InputRequest, JsonValue, Result } from '../protocol/types.js';
import { randomUuid } from '../platform/crypto.js';
import type { LiveSession } from './live-session.js';
import { META_INPUT_KEY } from '../protocol/meta.js';
import { InputMethod } from '../protocol/methods.js';

export interface LiveOptions {
  /** How long to wait for each answer (default 10 minutes). */
  answerTimeoutMs: number;
  /** Most hand-made rounds one request may take (default 10). */
  maxRounds: number;
}

export class LiveInteraction implements Interaction {
  private readonly onceResults = new Map<string, Promise<unknown>>();
  state: JsonValue | undefined;
  inputResponses: Readonly<Record<string, unknown>> = {};

  constructor(
    private readonly session: LiveSession,
    private readonly capabilities: ClientCapabilities,
    private readonly channel: RequestChannel,
    private readonly options: LiveOptions,
  ) {}

  canAsk(question: Question<unknown>): boolean {
    return missingFor(question.request, this.capabilities) === undefined;
  }

  ask(input: Question<unknown> | QuestionMap): Promise<unknown> {
    // Questions asked together go out together; the client may answer them in any order.
    return askAll(input, this.capabilities, (question, key) => this.askOne(question, key ?? question.kind));
  }

  /** Asks until an answer fits (the one rule of mrtr/ask-all.ts: a form asked again saying what was wrong, a bounded number of times). */
  private async askOne(question: Question<unknown>, key: string): Promise<unknown> {
    let asked = question;
    for (let attempt = 1; ; attempt++) {
      const judged = await judgeAnswer(key, question, await this.send(asked.request, key), attempt);
      if ('value' in judged) return judged.value;
      asked = judged.again;
    }
  }

  /** Sends one input request to the client (once it is initialized) and returns its raw answer; `key` goes along in `_meta`. */
  async send(request: InputRequest, key: string): Promise<Result> {
    await this.session.whenInitialized(this.channel.signal, this.options.answerTimeoutMs);
    const meta = isObject(request.params?._meta) ? request.params._meta : {};
    const params: Record<string, unknown> = { ...request.params, _meta: { ...meta, [META_INPUT_KEY]: key } };
    // 2025-11-25 correlates URL-mode elicitations by an id the server picks.
    if (request.method === InputMethod.Elicit && params.mode === 'url') params.elicitationId = randomUuid();
    const deliver = (message: JsonRpcRequest): void => {
      if (this.channel.canNotify) this.channel.send(message);
      else if (!this.session.sendOnStream(message)) throw McpError.internal('The client accepts no stream, so the server cannot ask it anything');
    };
    return this.session.request(deliver, request.method, params, this.channel.signal, this.options.answerTimeoutMs);
  }

  once<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    let running = this.onceResults.get(name);
    if (!running) {
      running = Promise.resolve().then(fn);
      this.onceResults.set(name, running);
    }
    return running as Promise<T>;
  }

  /**
   * Runs a handler that may return hand-made input-required results: each
   * one's requests are sent as real requests, and the handler runs again with
   * the answers and the state it kept.
   */
  async fulfil(invoke: () => Promise<Result>): Promise<Result> {
    let result = await invoke();
    for (let round = 1; result.resultType === 'input_required'; round++) {
      if (round > this.options.maxRounds) throw new TypeError(`The handler still asked for input after ${this.options.maxRounds} rounds`);
      const requests = isObject(result.inputRequests) ? Object.entries(result.inputRequests) : [];
      const checked: Array<[string, InputRequest]> = [];
      for (const [key, entry] of requests) {
        if (!isInputRequest(entry)) throw new TypeError(`inputRequests.${key} must be an elicitation/create, sampling/createMessage or roots/list request`);
        checked.push([key, entry]);
      }
      requireCapabilities(
        checked.map(([, request]) => request),
        this.capabilities,
      );
      const answers = await Promise.all(checked.map(([key, request]) => this.send(request, key)));
      this.inputResponses = Object.fromEntries(checked.map(([key], i) => [key, answers[i]]));
      const marked = (result as { [AUTHOR_STATE]?: JsonValue })[AUTHOR_STATE];
      this.state = marked !== undefined ? marked : typeof result.requestState === 'string' ? result.requestState : undefined;
      result = await invoke();
    }
    return result;
  }
}
