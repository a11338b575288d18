/**
 * One question answered through the app's handlers, the same way whether it
 * came in an input round, from a task, or as a 2025-era server's request —
 * and checked before anything is sent: a form answer against its
 * `requestedSchema` (form-answer-check.ts), roots as `file://` URIs with no
 * `..` segments. The wait ends with the context's signal, so a handler that
 * never returns cannot hold a flow past its deadline.
 */

import { isObject } from '../protocol/guards.js';
import { InputMethod } from '../protocol/methods.js';
import type { InputRequest, InputRequests, InputResponses, Result, Root } from '../protocol/types.js';
import { untilAborted } from '../protocol/until-aborted.js';
import { InputFlowError } from './errors.js';
import { checkFormAnswer } from './form-answer-check.js';
import { samplingHandlerOf, type InputContext, type InputHandlers } from './handlers.js';

/**
 * Answers every input request of a round (or a task's questions), one after
 * another in order; stops at the first that cannot be answered.
 */
export async function answerAll(handlers: InputHandlers, inputRequests: Readonly<InputRequests>, context: Omit<InputContext, 'key'>): Promise<InputResponses> {
  const answers: InputResponses = {};
  for (const [key, request] of Object.entries(inputRequests)) {
    context.signal.throwIfAborted();
    const answer = await answerInput(handlers, request, { ...context, key });
    if (!answer) {
      throw new InputFlowError(`No handler answers ${request.method} (asked as ${JSON.stringify(key)})`, context.round, { reason: 'no-handler', key });
    }
    answers[key] = answer as InputResponses[string];
  }
  return answers;
}

/** The handler's answer, checked; undefined when no handler takes this kind of request. */
export async function answerInput(handlers: InputHandlers, request: InputRequest, context: InputContext): Promise<Result | undefined> {
  switch (request.method) {
    case InputMethod.Elicit: {
      const params = request.params;
      let answer: unknown;
      let problem: { message: string; field?: string | undefined } | undefined;
      if (params.mode === 'url') {
        const handler = handlers.elicitation?.url;
        if (!handler) return undefined;
        answer = await untilAborted(handler(params, context), context.signal);
        problem = checkUrlAnswer(answer);
      } else {
        const handler = handlers.elicitation?.form;
        if (!handler) return undefined;
        const form = { ...params, mode: 'form' as const };
        answer = await untilAborted(handler(form, context), context.signal);
        problem = checkFormAnswer(form.requestedSchema, answer);
      }
      if (problem) throw invalid(context, problem.message, problem.field);
      return answer as Result;
    }
    case InputMethod.CreateMessage: {
      const handler = samplingHandlerOf(handlers);
      if (!handler) return undefined;
      const answer: unknown = await untilAborted(handler(request.params, context), context.signal);
      if (!isObject(answer)) throw invalid(context, 'the sampling handler returned no result object');
      return answer;
    }
    case InputMethod.ListRoots: {
      const roots = handlers.roots;
      if (!roots) return undefined;
      const listed: unknown = typeof roots === 'function' ? await untilAborted(roots(context), context.signal) : roots;
      if (!Array.isArray(listed)) throw invalid(context, 'the roots handler returned no list');
      for (const root of listed) {
        const problem = rootProblem(root);
        if (problem) throw invalid(context, problem);
      }
      return { roots: listed as Root[] };
    }
  }
}

function invalid(context: InputContext, problem: string, field?: string): InputFlowError {
  return new InputFlowError(`The answer to ${JSON.stringify(context.key)} was not sent: ${problem}`, context.round, {
    reason: 'invalid-answer',
    key: context.key,
    ...(field === undefined ? {} : { field }),
  });
}

function checkUrlAnswer(answer: unknown): { message: string } | undefined {
  if (!isObject(answer) || !['accept', 'decline', 'cancel'].includes(String(answer.action))) {
    return { message: 'the answer must have action "accept", "decline" or "cancel"' };
  }
  // A URL-mode answer only says whether the person went; what they entered stays with the server.
  if (answer.content !== undefined) return { message: 'a URL-mode answer carries no content' };
  return undefined;
}

/** Why a root may not be sent: roots are `file://` URIs (spec §8.3), without `..` segments that climb out of them. */
export function rootProblem(root: unknown): string | undefined {
  if (!isObject(root) || typeof root.uri !== 'string') return 'every root needs a uri';
  if (root.name !== undefined && typeof root.name !== 'string') return `the name of root ${JSON.stringify(root.uri)} is not a string`;
  if (!root.uri.toLowerCase().startsWith('file://')) return `root ${JSON.stringify(root.uri)} is not a file:// URI`;
  try {
    new URL(root.uri);
  } catch {
    return `root ${JSON.stringify(root.uri)} is not a valid URI`;
  }
  const segments = root.uri.slice('file://'.length).split(/[/\\]/);
  if (segments.some((segment) => decodeSegment(segment) === '..')) return `root ${JSON.stringify(root.uri)} has a ".." segment`;
  return undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
