/**
 * The questions a handler can ask (`ctx.ask(...)`): form and URL elicitation,
 * sampling and roots. Each is the embedded request that goes into
 * `inputRequests`, plus how to read its answer; the answer type follows from
 * the question, so handlers get typed answers.
 */

import { isObject } from '../protocol/guards.js';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { CreateMessageRequestParams, CreateMessageResult, InputRequest, Root } from '../protocol/types.js';
import type { JsonSchemaObject } from '../schema/resolve.js';
import { resolveForm } from './form-schema.js';
import { InputMethod } from '../protocol/methods.js';

export type QuestionKind = 'form' | 'url' | 'sampling' | 'roots';

declare const answerBrand: unique symbol;

export interface Question<A> {
  readonly kind: QuestionKind;
  /** The embedded request sent to the client. */
  readonly request: InputRequest;
  /** The `inputRequests` key; when absent, one is derived from the question's digest. */
  readonly key: string | undefined;
  /** The canonical text the question's digest is taken of, when the builder has it cheaper than canonicalising `request`. */
  readonly digestSource?: string;
  /** Reads an answer, or returns undefined when it is not a valid answer to this question (it is then asked again). */
  parse(answer: unknown): A | undefined | Promise<A | undefined>;
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

function readAction(answer: unknown): 'accept' | 'decline' | 'cancel' | undefined {
  if (!isObject(answer)) return undefined;
  const action = answer.action;
  return action === 'accept' || action === 'decline' || action === 'cancel' ? action : undefined;
}

function form<S extends StandardSchemaV1 | JsonSchemaObject>(
  message: string,
  schema: S,
  options: QuestionOptions = {},
): Question<FormAnswer<FormOutput<S>>> {
  const resolved = resolveForm<FormOutput<S>>(schema, `Form question "${message}"`);
  return {
    kind: 'form',
    key: options.key,
    // Same digest for the same message and schema, without re-serialising the schema every round.
    digestSource: `elicitation/create form\n${message}\n${resolved.canonical}`,
    request: { method: InputMethod.Elicit, params: { mode: 'form', message, requestedSchema: resolved.schema } },
    async parse(answer) {
      const action = readAction(answer);
      if (action !== 'accept') return action === undefined ? undefined : { action };
      const content = (answer as Record<string, unknown>).content ?? {};
      const checked = await resolved.resolved.validate(content);
      return checked.ok ? { action, content: checked.value } : undefined;
    },
  };
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
      const action = readAction(answer);
      return action === undefined ? undefined : { action };
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
      if (!isObject(answer)) return undefined;
      const { role, content, model } = answer;
      if ((role !== 'user' && role !== 'assistant') || typeof model !== 'string' || typeof content !== 'object' || content === null) {
        return undefined;
      }
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
      if (!isObject(answer) || !Array.isArray(answer.roots)) return undefined;
      const list = answer.roots as unknown[];
      return list.every((r) => isObject(r) && typeof r.uri === 'string') ? (list as Root[]) : undefined;
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
