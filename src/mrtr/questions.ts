/**
 * The questions a handler can ask (`ctx.ask(...)`): form and URL elicitation,
 * sampling and roots. Each is the embedded request that goes into
 * `inputRequests`, plus how to read its answer; the answer type follows from
 * the question, so handlers get typed answers.
 */

import type { AskKind } from '../protocol/capabilities.js';
import { isObject } from '../protocol/guards.js';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { CreateMessageRequestParams, CreateMessageResult, InputRequest, Root } from '../protocol/types.js';
import type { JsonSchemaObject } from '../schema/resolve.js';
import { resolveForm } from './form-schema.js';
import { InputMethod } from '../protocol/methods.js';

export type QuestionKind = AskKind;

declare const answerBrand: unique symbol;

export interface Question<A> {
  readonly kind: QuestionKind;
  /** The embedded request sent to the client. */
  readonly request: InputRequest;
  /** The `inputRequests` key; when absent, one is derived from the question's digest. */
  readonly key: string | undefined;
  /** The canonical text the question's digest is taken of, when the builder has it cheaper than canonicalising `request`. */
  readonly digestSource?: string;
  /** Reads an answer; throws InvalidAnswer (saying what is wrong) when it does not fit the question. */
  parse(answer: unknown): A | Promise<A>;
  /**
   * The same question asked again after an answer whose content did not fit,
   * saying what was wrong (form questions; others cannot be answered wrongly
   * by a person, only malformed by a client).
   */
  again?(reason: string): Question<A>;
  /** Carries the answer type for inference; never set at run time. */
  readonly [answerBrand]?: A;
}

export type AnswerOf<Q> = Q extends Question<infer A> ? A : never;

/** A form answer: accepted with content that passed the schema, or declined, or cancelled. */
export type FormAnswer<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** A URL-mode answer: `accept` only means the user agreed to open the URL. */
export type UrlAnswer = { action: 'accept' | 'decline' | 'cancel' };

export interface QuestionOptions {
  /** The key this question travels under (default: derived from the question). */
  key?: string;
}

type FormOutput<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : Record<string, string | number | boolean | string[]>;

/**
 * An answer that does not fit its question: what is wrong. `person` marks
 * content a person filled in wrongly (the question can be asked again); any
 * other is a malformed answer from the client (a -32602).
 */
export class InvalidAnswer extends Error {
  constructor(
    readonly reason: string,
    readonly person = false,
  ) {
    super(reason);
    this.name = 'InvalidAnswer';
  }
}

function readAction(answer: unknown): 'accept' | 'decline' | 'cancel' {
  if (!isObject(answer)) throw new InvalidAnswer('the answer is not an object');
  const action = answer.action;
  if (action === 'accept' || action === 'decline' || action === 'cancel') return action;
  throw new InvalidAnswer(`action must be "accept", "decline" or "cancel", not ${JSON.stringify(action)}`);
}

/** Form content with `null` for an optional field read as the field left empty (some clients send that). */
function withoutNullOptionals(content: unknown, required: readonly string[]): unknown {
  if (!isObject(content)) return content;
  return Object.fromEntries(Object.entries(content).filter(([field, value]) => value !== null || required.includes(field)));
}

function form<S extends StandardSchemaV1 | JsonSchemaObject>(
  message: string,
  schema: S,
  options: QuestionOptions = {},
): Question<FormAnswer<FormOutput<S>>> {
  const resolved = resolveForm<FormOutput<S>>(schema, `Form question "${message}"`);
  const make = (shown: string): Question<FormAnswer<FormOutput<S>>> => ({
    kind: 'form',
    key: options.key,
    // Same digest for the same message and schema, without re-serialising the schema every round.
    digestSource: `elicitation/create form\n${shown}\n${resolved.canonical}`,
    request: { method: InputMethod.Elicit, params: { mode: 'form', message: shown, requestedSchema: resolved.schema } },
    async parse(answer) {
      const action = readAction(answer);
      if (action !== 'accept') return { action };
      const content = withoutNullOptionals((answer as Record<string, unknown>).content ?? {}, resolved.schema.required ?? []);
      if (!isObject(content)) throw new InvalidAnswer("content must be an object of the form's fields");
      const checked = await resolved.resolved.validate(content);
      if (!checked.ok) throw new InvalidAnswer(checked.message, true);
      return { action, content: checked.value };
    },
    again: (reason) => make(`${message}\n\nThe last answer was not accepted: ${reason}`),
  });
  return make(message);
}

function url(message: string, target: string, options: QuestionOptions = {}): Question<UrlAnswer> {
  let parsed: URL;
  try {
    parsed = new URL(target);
  } catch {
    throw new TypeError(`URL question "${message}": ${JSON.stringify(target)} is not an absolute URL`);
  }
  return {
    kind: 'url',
    key: options.key,
    request: { method: InputMethod.Elicit, params: { mode: 'url', message, url: parsed.href } },
    parse(answer) {
      return { action: readAction(answer) };
    },
  };
}

type Block = { type?: unknown; id?: unknown; toolUseId?: unknown };

function blocksOf(message: { content: unknown }): Block[] {
  return (Array.isArray(message.content) ? message.content : [message.content]) as Block[];
}

/**
 * The tool-use rules of sampling: a user message holding tool results holds
 * only tool results, and every assistant tool_use is answered, in the very next
 * (user) message, by a tool_result with the same id.
 */
function toolTurnProblem(messages: CreateMessageRequestParams['messages']): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const blocks = blocksOf(message);
    const results = blocks.filter((b) => b?.type === 'tool_result');
    if (results.length > 0 && (message.role !== 'user' || results.length !== blocks.length)) {
      return `message ${i} mixes tool_result blocks with other content (a user message holding tool results holds only tool results)`;
    }
    const uses = message.role === 'assistant' ? blocks.filter((b) => b?.type === 'tool_use').map((b) => b.id) : [];
    if (uses.length === 0) continue;
    const next = messages[i + 1];
    const answered = next && next.role === 'user' ? blocksOf(next).map((b) => (b?.type === 'tool_result' ? b.toolUseId : undefined)) : [];
    const missing = uses.filter((id) => !answered.includes(id));
    if (missing.length > 0) return `the tool_use ${missing.map((id) => JSON.stringify(id)).join(', ')} of message ${i} is not answered by a tool_result in the next user message`;
  }
  return undefined;
}

function sampling(params: CreateMessageRequestParams, options: QuestionOptions = {}): Question<CreateMessageResult> {
  if (!Array.isArray(params.messages) || !Number.isInteger(params.maxTokens)) {
    throw new TypeError('Sampling question: messages (an array) and maxTokens (an integer) are required');
  }
  const problem = toolTurnProblem(params.messages);
  if (problem) throw new TypeError(`Sampling question: ${problem}`);
  return {
    kind: 'sampling',
    key: options.key,
    request: { method: InputMethod.CreateMessage, params },
    parse(answer) {
      if (!isObject(answer)) throw new InvalidAnswer('the answer is not an object');
      const { role, content, model } = answer;
      if (role !== 'user' && role !== 'assistant') throw new InvalidAnswer('role must be "user" or "assistant"');
      if (typeof model !== 'string') throw new InvalidAnswer('model must be a string');
      if (typeof content !== 'object' || content === null) throw new InvalidAnswer('content must be a content block or a list of them');
      return answer as CreateMessageResult;
    },
  };
}

function roots(options: QuestionOptions = {}): Question<Root[]> {
  return {
    kind: 'roots',
    key: options.key,
    request: { method: InputMethod.ListRoots },
    parse(answer) {
      if (!isObject(answer) || !Array.isArray(answer.roots)) throw new InvalidAnswer('roots must be a list');
      const list: unknown[] = answer.roots;
      const bad = list.findIndex((r) => !isObject(r) || typeof r.uri !== 'string');
      if (bad >= 0) throw new InvalidAnswer(`roots[${bad}] has no uri`);
      return list as Root[];
    },
  };
}

/**
 * Question builders for `ctx.ask`:
 *
 * ```ts
 * const answer = await ctx.ask(ask.form('Deploy api to prod?', z.object({ approve: z.boolean() })));
 * if (answer.action === 'accept' && answer.content.approve) { … }
 * ```
 */
export const ask = { form, url, sampling, roots } as const;
