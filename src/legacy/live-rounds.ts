/**
 * Asking on a 2025-11-25 session: the same handler code, but an ask becomes a
 * real server-initiated request (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`) on the request's own stream, and the handler goes on when the
 * answer arrives. A hand-made input-required result is fulfilled the same way
 * and the handler is run again with the answers and its state, in process.
 * Nothing of this ever reaches a 2025 client as `input_required`.
 */

import { randomUUID } from 'node:crypto';
import type { RequestChannel } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, InputRequest, InputRequests, JsonValue } from '../protocol/types.js';
import { mergeCapabilities, missingFor } from '../protocol/capabilities.js';
import type { RoundHost, RoundRunner } from '../mrtr/engine.js';
import { AUTHOR_STATE, isQuestion, type Interaction, type QuestionMap } from '../mrtr/interaction.js';
import type { Question } from '../mrtr/questions.js';
import type { LegacySession } from './session.js';

export interface LiveOptions {
  /** How long to wait for each answer (default 10 minutes). */
  answerTimeoutMs: number;
  /** Most hand-made rounds one request may take (default 10). */
  maxRounds: number;
}

/** Answers that fail their question are asked again this many times before the request fails. */
const ATTEMPTS = 3;

function requireCapabilities(requests: readonly InputRequest[], declared: ClientCapabilities): void {
  const missing = requests.map((r) => missingFor(r, declared)).filter((m): m is ClientCapabilities => m !== undefined);
  if (missing.length === 0) return;
  const required = mergeCapabilities(missing);
  throw McpError.missingCapability(
    `This request needs client capabilities the session did not declare in initialize: ${Object.keys(required).join(', ')}`,
    required,
  );
}

class LiveInteraction implements Interaction {
  private readonly onceResults = new Map<string, Promise<unknown>>();
  state: JsonValue | undefined;
  inputResponses: Readonly<Record<string, unknown>> = {};

  constructor(
    private readonly session: LegacySession,
    private readonly channel: RequestChannel,
    private readonly options: LiveOptions,
  ) {}

  canAsk(question: Question<unknown>): boolean {
    return missingFor(question.request, this.session.clientCapabilities) === undefined;
  }

  async ask(input: Question<unknown> | QuestionMap): Promise<unknown> {
    const single = isQuestion(input);
    const entries: Array<[string, Question<unknown>]> = single ? [['', input]] : Object.entries(input);
    requireCapabilities(
      entries.map(([, q]) => q.request),
      this.session.clientCapabilities,
    );
    // Questions asked together go out together; the client may answer them in any order.
    const answers = await Promise.all(entries.map(([, question]) => this.askOne(question)));
    return single ? answers[0] : Object.fromEntries(entries.map(([key], i) => [key, answers[i]]));
  }

  private async askOne(question: Question<unknown>): Promise<unknown> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const raw = await this.send(question.request);
      const value = await question.parse(raw);
      if (value !== undefined) return value;
    }
    throw McpError.invalidParams(`The client kept answering ${question.request.method} with something that is not a valid answer`);
  }

  /** Sends one input request to the client and returns its raw answer. */
  send(request: InputRequest): Promise<Record<string, unknown>> {
    const params: Record<string, unknown> = { ...(request.params ?? {}) };
    // 2025-11-25 correlates URL-mode elicitations by an id the server picks.
    if (request.method === 'elicitation/create' && params.mode === 'url') params.elicitationId = randomUUID();
    const deliver = (message: JsonRpcRequest): void => {
      if (this.channel.canNotify) this.channel.send(message);
      else if (this.session.stream) this.session.stream.send(message);
      else throw McpError.internal('The client accepts no stream, so the server cannot ask it anything');
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
}

export class LiveRounds implements RoundRunner {
  constructor(
    private readonly session: LegacySession,
    private readonly channel: RequestChannel,
    private readonly options: LiveOptions,
  ) {}

  async run(_request: JsonRpcRequest, host: RoundHost, invoke: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const interaction = new LiveInteraction(this.session, this.channel, this.options);
    host.attach(interaction);
    let result = await invoke();
    for (let round = 1; result.resultType === 'input_required'; round++) {
      if (round > this.options.maxRounds) {
        throw new TypeError(`The handler still asked for input after ${this.options.maxRounds} rounds`);
      }
      const requests = (result.inputRequests ?? {}) as InputRequests;
      requireCapabilities(Object.values(requests), this.session.clientCapabilities);
      const keys = Object.keys(requests);
      const answers = await Promise.all(keys.map((key) => interaction.send(requests[key]!)));
      interaction.inputResponses = Object.fromEntries(keys.map((key, i) => [key, answers[i]]));
      const marked = (result as { [AUTHOR_STATE]?: JsonValue })[AUTHOR_STATE];
      interaction.state = marked !== undefined ? marked : typeof result.requestState === 'string' ? result.requestState : undefined;
      result = await invoke();
    }
    return result;
  }
}
