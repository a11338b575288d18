/** Argument completion (`completion/complete`) for prompt arguments and resource-template variables. */

import { McpError } from '../protocol/errors.js';
import type { CompleteResult } from '../protocol/types.js';
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
  params: Record<string, unknown>,
  ctx: RequestContext,
  lookup: CompleterLookup,
): Promise<CompleteResult> {
  const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
  const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
  if (typeof ref !== 'object' || ref === null || (ref.type !== 'ref/prompt' && ref.type !== 'ref/resource')) {
    throw McpError.invalidParams('Invalid params: ref must be a ref/prompt or ref/resource reference');
  }
  if (typeof argument !== 'object' || argument === null || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw McpError.invalidParams('Invalid params: argument needs a string name and value');
  }
  const context = params.context as { arguments?: unknown } | undefined;
  const resolved: Record<string, string> = {};
  if (typeof context?.arguments === 'object' && context.arguments !== null) {
    for (const [k, v] of Object.entries(context.arguments)) if (typeof v === 'string') resolved[k] = v;
  }
  const completer = lookup(ref as { type: string }, argument.name);
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
