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
import type { Question } from './questions.js';

/** Asks one question; `key` is the map key it was asked under, or the question's own. */
export type AskOne = (question: Question<unknown>, key: string | undefined) => Promise<unknown>;

export async function askAll(input: Question<unknown> | QuestionMap, declared: ClientCapabilities, askOne: AskOne): Promise<unknown> {
  const single = isQuestion(input);
  const entries: Array<[string | undefined, Question<unknown>]> = single ? [[undefined, input]] : Object.entries(input);
  for (const [, question] of entries) {
    if (!isQuestion(question)) throw new TypeError('ctx.ask takes a question (see `ask.form`, `ask.url`, `ask.sampling`, `ask.roots`) or a map of them');
  }
  requireCapabilities(
    entries.map(([, question]) => question.request),
    declared,
  );
  const answers = await Promise.all(entries.map(([key, question]) => askOne(question, key ?? question.key)));
  return single ? answers[0] : Object.fromEntries(entries.map(([key], i) => [key, answers[i]]));
}

/** How many answers that fail their question a question gets before the request (or task) fails: the same everywhere. */
export const ANSWER_ATTEMPTS = 3;

export function tooManyInvalidAnswers(question: Question<unknown>): McpError {
  return McpError.invalidParams(
    `Invalid params: ${ANSWER_ATTEMPTS} answers to the ${question.request.method} question were not valid answers; giving up`,
  );
}
