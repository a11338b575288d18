/**
 * Scripted answers, by question key: what the kit sends back when a round
 * asks. A value is the answer as it goes on the wire (`accept(…)`,
 * `decline()`, `cancel()`, `sampled(…)`, `roots(…)`, or anything raw); a
 * function answers from the question; a list answers the first time the key
 * is asked with its first entry, the next time with the next (answers that
 * the tool asks again for, say after a wrong one).
 */

import type { InputRequest } from '../protocol/types.js';

export interface AnswerContext {
  key: string;
  /** The round whose result asked (1 for the first request's). */
  round: number;
  /** How many times this key was asked before in the flow. */
  asked: number;
}

export type AnswerFunction = (question: InputRequest, context: AnswerContext) => unknown;
export type ScriptedAnswer = AnswerFunction | object;
export type Script = Readonly<Record<string, ScriptedAnswer | readonly ScriptedAnswer[]>>;

/** An elicitation accepted, with the form's content (none for a URL elicitation). */
export function accept(content?: Record<string, unknown>): { action: 'accept'; content?: Record<string, unknown> } {
  return content === undefined ? { action: 'accept' } : { action: 'accept', content };
}

export function decline(): { action: 'decline' } {
  return { action: 'decline' };
}

export function cancel(): { action: 'cancel' } {
  return { action: 'cancel' };
}

/** A sampling answer: the model's text. */
export function sampled(text: string, model = 'test-model'): Record<string, unknown> {
  return { role: 'assistant', content: { type: 'text', text }, model, stopReason: 'endTurn' };
}

/** A roots/list answer. */
export function roots(...uris: string[]): { roots: Array<{ uri: string }> } {
  return { roots: uris.map((uri) => ({ uri })) };
}

/** The script had no answer for a question a round asked. */
export class UnscriptedQuestionError extends Error {
  constructor(
    readonly key: string,
    readonly question: InputRequest,
    readonly round: number,
  ) {
    super(`Round ${round} asked "${key}" (${describe(question)}), which the script does not answer`);
    this.name = 'UnscriptedQuestionError';
  }
}

function describe(question: InputRequest): string {
  const params = question.params as Record<string, unknown> | undefined;
  const message = typeof params?.message === 'string' ? `: "${params.message}"` : '';
  return `${question.method}${message}`;
}

/** Counts, per key, how often a flow was asked; answers each round's questions from the script. */
export class Answerer {
  private readonly asked = new Map<string, number>();

  constructor(private readonly script: Script) {}

  async answer(questions: Readonly<Record<string, InputRequest>>, round: number): Promise<Record<string, unknown>> {
    const answers: Record<string, unknown> = {};
    for (const [key, question] of Object.entries(questions)) {
      const times = this.asked.get(key) ?? 0;
      this.asked.set(key, times + 1);
      const scripted = this.script[key];
      if (scripted === undefined) throw new UnscriptedQuestionError(key, question, round);
      const entry = Array.isArray(scripted) ? (scripted as readonly ScriptedAnswer[])[Math.min(times, scripted.length - 1)] : (scripted as ScriptedAnswer);
      if (entry === undefined) throw new UnscriptedQuestionError(key, question, round);
      answers[key] = typeof entry === 'function' ? await (entry as AnswerFunction)(question, { key, round, asked: times }) : entry;
    }
    return answers;
  }
}
