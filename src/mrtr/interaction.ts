/**
 * The asking side of a request context. A modern (2026-07-28) request gets a
 * replay interaction (answers come from the retry and the sealed ledger); a
 * legacy session can plug in one that asks over a live connection instead, so
 * handler code never branches on the era.
 */

import type { InputRequests, JsonValue } from '../protocol/types.js';
import type { AnswerOf, Question } from './questions.js';

export type QuestionMap = Record<string, Question<unknown>>;
export type AnswersOf<M extends QuestionMap> = { [K in keyof M]: AnswerOf<M[K]> };

export interface Interaction {
  ask(input: Question<unknown> | QuestionMap): Promise<unknown>;
  canAsk(question: Question<unknown>): boolean;
  once<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  readonly state: JsonValue | undefined;
  readonly inputResponses: Readonly<Record<string, unknown>>;
}

/** Hand-made input-required results carry the author's state under this key until it is sealed. */
export const AUTHOR_STATE: unique symbol = Symbol('tessera.authorState');

/** An input-required result built by hand; `State` is what the handler keeps (JSON), typed as its context's `state`. */
export interface ManualInputRequired<State = JsonValue> {
  inputRequests?: InputRequests;
  /** Any JSON value; sealed into requestState and given back as `ctx.state` on the retry. */
  state?: State;
}

export function isQuestion(value: unknown): value is Question<unknown> {
  return typeof value === 'object' && value !== null && 'request' in value && 'parse' in value && 'kind' in value;
}
