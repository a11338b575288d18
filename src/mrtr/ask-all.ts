/**
 * The one way questions are asked, whatever answers them (a replayed round, a
 * live 2025-11-25 session, a running task): one question, or a map of
 * questions asked together. Every capability is checked first — one -32021
 * names all that is missing, and nothing is asked — then every question is
 * asked at once, so they travel together.
 */

import { requireCapabilities } from '../protocol/capabilities.js';
import { McpError } from '../protocol/errors.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { isQuestion, type QuestionMap } from './interaction.js';
import { InvalidAnswer, type Question } from './questions.js';

/** Asks one question; `key` is the map key it was asked under, or the question's own. */
export type AskOne = (question: Question<unknown>, key: string | undefined) => Promise<unknown>;

export async function askAll(input: Question<unknown> | QuestionMap, declared: ClientCapabilities, askOne: AskOne): Promise<unknown> {
  // One question, the common case: no map to build and take apart again.
  if (isQuestion(input)) {
    requireCapabilities([input.request], declared);
    return askOne(input, input.key);
  }
  const entries = Object.entries(input);
  for (const [, question] of entries) {
    if (!isQuestion(question)) throw new TypeError('ctx.ask takes a question (see `ask.form`, `ask.url`, `ask.sampling`, `ask.roots`) or a map of them');
  }
  requireCapabilities(
    entries.map(([, question]) => question.request),
    declared,
  );
  const answers = await Promise.all(entries.map(([key, question]) => askOne(question, key)));
  return Object.fromEntries(entries.map(([key], i) => [key, answers[i]]));
}

/** How many times in all a question is put to a person whose answers do not fit it, before the request fails. */
export const ANSWER_ATTEMPTS = 3;

/** The -32602 for an answer that does not fit its question, naming its key and what was wrong. */
export function invalidAnswerError(key: string, question: Question<unknown>, reason: string): McpError {
  return McpError.invalidParams(`Invalid params: the answer to "${key}" (${question.request.method}) does not fit the question: ${reason}`, { key, reason });
}

/** What an answer comes to: its value, or the question to ask again (saying what was wrong). */
export type Judged<A> = { value: A } | { again: Question<A>; reason: string };

/**
 * The one rule for answers, in every era and in tasks. A malformed answer (not
 * an object, an unknown action, a broken sampling or roots result) is a -32602
 * naming the key; form content a person filled in wrongly is asked again, the
 * new question saying what was wrong, up to ANSWER_ATTEMPTS in all, then -32602.
 * `attempt` counts this answer (1 for the first).
 */
export async function judgeAnswer<A>(key: string, question: Question<A>, answer: unknown, attempt: number): Promise<Judged<A>> {
  try {
    return { value: await question.parse(answer) };
  } catch (error) {
    if (!(error instanceof InvalidAnswer)) throw error;
    if (!error.person || !question.again || attempt >= ANSWER_ATTEMPTS) throw invalidAnswerError(key, question, error.reason);
    return { again: question.again(error.reason), reason: error.reason };
  }
}
