/**
 * 2025-11-25 result shapes: no `resultType`, no caching hints, no `_meta`
 * server identity (that revision reports identity in `initialize`), and
 * resource-not-found as -32002. Empty results stay exactly `{}`.
 */

import { ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import { META_SERVER_INFO } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import type { Result } from '../protocol/types.js';
import { ResourceNotFoundError } from '../server/resources.js';

export function legacyResult(result: Result): Result {
  const { resultType, ttlMs: _ttl, cacheScope: _scope, _meta, ...rest } = result;
  // Input rounds were fulfilled live and tasks never exist here: anything but a complete result is a programming error.
  if (resultType !== undefined && resultType !== 'complete') throw new TypeError(`A 2025-11-25 request was answered with resultType ${JSON.stringify(resultType)}`);
  if (isObject(_meta)) {
    const { [META_SERVER_INFO]: _info, ...meta } = _meta;
    if (Object.keys(meta).length > 0) rest._meta = meta;
  }
  return rest;
}

/** Errors as 2025-11-25 has them: resource not found is -32002 there; -32021 does not exist there (see below). */
export function legacyError(error: McpError): McpError {
  if (error instanceof ResourceNotFoundError) return new McpError(ErrorCode.ResourceNotFound, error.message, { uri: error.uri });
  if (error.code === ErrorCode.MissingRequiredClientCapability) return new McpError(ErrorCode.InternalError, error.message, error.data);
  return error;
}

/**
 * A tool that needs a client capability the session's client did not
 * declare (it asks, and the client cannot answer): 2025-11-25 has no -32021,
 * so it is a tool error there, which the model (and the person) can read.
 */
export function legacyToolRefusal(method: string, error: McpError): Result | undefined {
  if (method !== Method.ToolsCall || error.code !== ErrorCode.MissingRequiredClientCapability) return undefined;
  return { content: [{ type: 'text', text: `${error.message}; a client that declares them can run this tool.` }], isError: true };
}
