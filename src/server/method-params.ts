/**
 * The params of each core method, checked once in the gates into the shape
 * its handler reads (`ParamsByMethod[M]`): every later step (the extensions'
 * admission, opening state, the handler) reads typed params instead of
 * checking `Record<string, unknown>` again. Only the shape is checked here;
 * what depends on what is registered (an unknown tool, a prompt's arguments
 * against its schema) stays with the registry that knows it.
 */

import { McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import type { CallerParams, CoreMethod } from '../protocol/method-types.js';
import { Method } from '../protocol/methods.js';

/** A core method's params as the gates passed them. `_meta` is read on its own (request-meta.ts), and a 2025-11-25 request has none. */
export type CheckedParams<M extends CoreMethod> = CallerParams<M>;

type Raw = Record<string, unknown>;
type Checker<M extends CoreMethod> = (params: Raw) => CheckedParams<M>;

function invalid(message: string): McpError {
  return McpError.invalidParams(`Invalid params: ${message}`);
}

function paginated(params: Raw): CheckedParams<'tools/list'> {
  if (params.cursor !== undefined && typeof params.cursor !== 'string') throw invalid('cursor must be a string');
  return params as CheckedParams<'tools/list'>;
}

/** A tool's or prompt's params: its name, its arguments, and what a retry of an input-required round adds. */
function named<M extends 'tools/call' | 'prompts/get'>(params: Raw): CheckedParams<M> {
  if (typeof params.name !== 'string') throw invalid('name must be a string');
  if (params.arguments !== undefined && !isObject(params.arguments)) throw invalid('arguments must be an object');
  retryParams(params);
  return params as CheckedParams<M>;
}

/** What a retry of an input-required round adds (the three methods that may ask). */
function retryParams(params: Raw): void {
  if (params.inputResponses !== undefined && !isObject(params.inputResponses)) throw invalid('inputResponses must be an object');
  if (params.requestState !== undefined && typeof params.requestState !== 'string') throw invalid('requestState must be a string');
}

const CHECKERS: { readonly [M in CoreMethod]: Checker<M> } = {
  [Method.Discover]: (params) => params,
  [Method.ToolsList]: paginated,
  [Method.PromptsList]: paginated,
  [Method.ResourcesList]: paginated,
  [Method.ResourceTemplatesList]: paginated,
  [Method.ToolsCall]: named,
  [Method.PromptsGet]: named,
  [Method.ResourcesRead]: (params) => {
    if (typeof params.uri !== 'string') throw invalid('uri must be a string');
    retryParams(params);
    return params as CheckedParams<'resources/read'>;
  },
  [Method.Complete]: (params) => {
    const { ref, argument } = params;
    if (!isObject(ref) || (ref.type !== 'ref/prompt' && ref.type !== 'ref/resource')) throw invalid('ref must be a ref/prompt or ref/resource reference');
    if (!isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') throw invalid('argument needs a string name and value');
    return params as CheckedParams<'completion/complete'>;
  },
  [Method.SubscriptionsListen]: (params) => {
    if (!isObject(params.notifications)) throw invalid('notifications must be a subscription filter object');
    return params as CheckedParams<'subscriptions/listen'>;
  },
};

/** Each core method's params checker; a method an extension adds has none here (it checks its own). */
export const PARAMS_CHECKERS: ReadonlyMap<string, (params: Raw) => Raw> = new Map(Object.entries(CHECKERS));
