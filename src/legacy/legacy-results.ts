/**
 * 2025-11-25 result shapes: no `resultType`, no caching hints, no `_meta`
 * server identity (that revision reports identity in `initialize`), and
 * resource-not-found as -32002. Empty results stay exactly `{}`.
 */

import { McpError } from '../protocol/errors.js';
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import { META_SERVER_INFO } from '../protocol/meta.js';
import { ResourceNotFoundError } from '../server/resources.js';

export function legacyResult(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, _meta, ...rest } = result;
  if (_meta && typeof _meta === 'object') {
    const { [META_SERVER_INFO]: _info, ...meta } = _meta as Record<string, unknown>;
    if (Object.keys(meta).length > 0) rest._meta = meta;
  }
  return rest;
}

export function legacyResponse(message: JsonRpcResponse): JsonRpcResponse {
  return 'result' in message ? { ...message, result: legacyResult(message.result) } : message;
}

/** Errors as 2025-11-25 has them: resource not found is -32002 there. */
export function legacyError(error: McpError): McpError {
  return error instanceof ResourceNotFoundError ? new McpError(-32002, error.message, { uri: error.uri }) : error;
}
