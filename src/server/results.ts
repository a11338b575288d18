/** The last step of every 2026-07-28 request: the result as sent, or the error a client may see. */

import { McpError, isReservedErrorCode } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import { INPUT_REQUIRED_METHODS } from '../protocol/methods.js';
import type { Result } from '../protocol/types.js';
import type { ServerLogger } from './options.js';

/**
 * Marks a result of a type only an extension may make (a task's CreateTaskResult):
 * a handler that writes `resultType: "task"` by hand does not get it on the wire.
 */
const MADE_BY_EXTENSION: unique symbol = Symbol('tessera.madeByExtension');

/** Marks `result` as made by an extension (the mark survives the spreads of finishing; JSON never sees it). */
export function madeByExtension<R extends Result>(result: R): R {
  Object.defineProperty(result, MADE_BY_EXTENSION, { value: true, enumerable: true });
  return result;
}

/**
 * Adds `resultType` and the server's identity. Only `complete`, `input_required`
 * (on the three methods that may ask) and `task` (made by the Tasks extension)
 * go out; anything else a handler wrote is a programming error (-32603, logged).
 */
export function finishResult(method: string, result: Result, identity: Record<string, unknown> | undefined): Result {
  const resultType = result.resultType;
  const allowed =
    resultType === undefined ||
    resultType === 'complete' ||
    (resultType === 'input_required' && INPUT_REQUIRED_METHODS.has(method)) ||
    (resultType === 'task' && (result as { [MADE_BY_EXTENSION]?: true })[MADE_BY_EXTENSION] === true);
  if (!allowed) {
    throw new TypeError(`${method} answered with resultType ${JSON.stringify(resultType)}; only complete, input_required (tools/call, resources/read, prompts/get) and task (made by ctx.task) may be sent`);
  }
  const meta = identity ? (isObject(result._meta) ? { ...result._meta, ...identity } : identity) : result._meta;
  const finished: Result = { resultType: resultType ?? 'complete', ...result };
  if (meta !== undefined) finished._meta = meta;
  return finished;
}

/**
 * The error a client may see for what a handler threw: its own McpError, unless
 * it uses a code 2026-07-28 reserves; anything else is -32603, with the detail
 * in the server log only.
 */
export function clientError(error: unknown, method: string, logger: ServerLogger): McpError {
  if (error instanceof McpError) {
    if (!isReservedErrorCode(error.code)) return error;
    logger.error(`${method} threw error code ${error.code}, which 2026-07-28 reserves or removed; sent -32603 instead`, error);
    return McpError.internal();
  }
  logger.error(`${method} failed`, error);
  return McpError.internal();
}
