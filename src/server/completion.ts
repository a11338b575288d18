/** Argument completion (`completion/complete`) for prompt arguments and resource-template variables. */

import { McpError } from '../protocol/errors.js';
import type { CompleteResult } from '../protocol/types.js';
import type { CheckedParams } from './method-params.js';
import type { RequestContext } from './context.js';

export interface CompletionRequest {
  /** The partial value typed so far. */
  value: string;
  /** Arguments the client already resolved (`context.arguments`). */
  arguments: Record<string, string>;
}

export type CompletionAnswer = string[] | CompleteResult['completion'];

export type Completer = (request: CompletionRequest, ctx: RequestContext) => CompletionAnswer | Promise<CompletionAnswer>;

const MAX_VALUES = 100;

/** Finds the completer a reference points at; `null` = the referenced prompt or template does not exist. */
export type CompleterLookup = (
  ref: { type: string; name?: unknown; uri?: unknown },
  argument: string,
) => Completer | undefined | null;

export async function complete(
  params: CheckedParams<'completion/complete'>,
  ctx: RequestContext,
  lookup: CompleterLookup,
): Promise<CompleteResult> {
  const { ref, argument } = params;
  // Values of context.arguments that are not strings are left out (the schema has them all strings).
  const given: unknown = params.context?.arguments;
  const resolved: Record<string, string> = {};
  if (typeof given === 'object' && given !== null) {
    for (const [k, v] of Object.entries(given)) if (typeof v === 'string') resolved[k] = v;
  }
  const completer = lookup(ref, argument.name);
  if (completer === null) {
    const what = ref.type === 'ref/prompt' ? `prompt ${String(ref.name)}` : `resource template ${String(ref.uri)}`;
    throw McpError.invalidParams(`Invalid params: unknown ${what}`);
  }
  if (!completer) return { completion: { values: [], total: 0, hasMore: false } };
  const answer = await completer({ value: argument.value, arguments: resolved }, ctx);
  const completion = Array.isArray(answer) ? { values: answer } : answer;
  const values = completion.values.slice(0, MAX_VALUES);
  const total = completion.total ?? completion.values.length;
  // Values cut here are more the client has not seen, whatever the completer claimed.
  const hasMore = completion.values.length > values.length || (completion.hasMore ?? total > values.length);
  return { completion: { values, total, hasMore } };
}
