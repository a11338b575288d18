/** The per-request `_meta` of 2026-07-28: read, checked, and typed before any handler runs. */

import { McpError } from '../protocol/errors.js';
import { isImplementation, isObject } from '../protocol/guards.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROGRESS_TOKEN,
  META_PROTOCOL_VERSION,
} from '../protocol/meta.js';
import {
  LOGGING_LEVELS,
  type ClientCapabilities,
  type Implementation,
  type LoggingLevel,
  type ProgressToken,
} from '../protocol/types.js';

export interface RequestMeta {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  logLevel: LoggingLevel | undefined;
  progressToken: ProgressToken | undefined;
  /** The whole `_meta` object as sent. */
  raw: Record<string, unknown>;
}

/**
 * Reads the required `_meta` fields. A request without them is malformed:
 * -32602 on HTTP status 400. `clientInfo` is optional (SHOULD), so it is never required.
 */
export function readRequestMeta(params: Record<string, unknown> | undefined): RequestMeta {
  const meta = params?._meta;
  if (!isObject(meta)) {
    throw McpError.malformed('Invalid params: _meta is required on every request');
  }
  const protocolVersion = meta[META_PROTOCOL_VERSION];
  if (typeof protocolVersion !== 'string') {
    throw McpError.malformed(`Invalid params: _meta["${META_PROTOCOL_VERSION}"] is required`);
  }
  const clientCapabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isObject(clientCapabilities)) {
    throw McpError.malformed(`Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] is required`);
  }
  const clientInfo = meta[META_CLIENT_INFO];
  const logLevel = meta[META_LOG_LEVEL];
  if (logLevel !== undefined && !LOGGING_LEVELS.includes(logLevel as LoggingLevel)) {
    throw McpError.invalidParams(`Invalid params: unknown log level ${JSON.stringify(logLevel)}`);
  }
  const progressToken = meta[META_PROGRESS_TOKEN];
  return {
    protocolVersion,
    clientCapabilities: clientCapabilities as ClientCapabilities,
    clientInfo: isImplementation(clientInfo) ? clientInfo : undefined,
    logLevel: logLevel as LoggingLevel | undefined,
    progressToken:
      typeof progressToken === 'string' || (typeof progressToken === 'number' && Number.isInteger(progressToken))
        ? progressToken
        : undefined,
    raw: meta,
  };
}

/** Whether params carry the 2026-era `_meta` version field at all (legacy requests do not). */
export function hasModernMeta(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  return isObject(meta) && META_PROTOCOL_VERSION in meta;
}
