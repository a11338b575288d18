/** The last step of every 2026-07-28 request: the result as sent, or the error a client may see. */

import { McpError, isReservedErrorCode } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import { INPUT_REQUIRED_METHODS } from '../protocol/methods.js';
import type { Result } from '../protocol/types.js';
import type { ServerLogger } from './options.js';

/** Adds `resultType` and the server's identity; refuses `input_required` where the spec forbids it. */
export function finishResult(method: string, result: Result, identity: Record<string, unknown> | undefined): Result {
  const resultType = result.resultType;
  if (resultType === 'input_required' && !INPUT_REQUIRED_METHODS.has(method)) throw McpError.internal();
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
