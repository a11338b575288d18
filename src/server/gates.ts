/**
 * The gates every 2026-07-28 request passes before its method runs, in the
 * order that gives each failure its mandated error: `_meta` (-32602, HTTP
 * 400), version header (-32020), version (-32022), method (-32601, HTTP 404),
 * routing and mirrored-argument headers (-32020).
 */

import { McpError } from '../protocol/errors.js';
import type { RequestChannel } from '../protocol/channel.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { LegacyMethod, Method } from '../protocol/methods.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { MethodHandler } from './extension.js';
import { checkParamHeaders, checkRoutingHeaders, checkVersionHeader } from './header-gate.js';
import type { Operation } from './operation.js';
import { hasModernMeta, readRequestMeta } from './request-meta.js';
import type { RegisteredTool } from './tools.js';

export interface GateLookups {
  /** The handler of a method the server offers now, or undefined. */
  method(name: string): MethodHandler | undefined;
  /** The registered tool of this name, or undefined. */
  tool(name: unknown): RegisteredTool | undefined;
}

/** What passed the gates: the operation (its target looked up here, once, for every later step) and its method's handler. */
export interface Admitted extends Operation {
  readonly handler: MethodHandler;
}

export function passGates(request: JsonRpcRequest, channel: RequestChannel, lookups: GateLookups): Admitted {
  const header = channel.header?.bind(channel);
  if (request.method === LegacyMethod.Initialize && !hasModernMeta(request.params)) {
    // A 2025-era handshake: name the versions served here, since such a client cannot fall forward by itself.
    const requested = request.params?.protocolVersion;
    throw McpError.unsupportedVersion(typeof requested === 'string' ? requested : 'unknown', MODERN_PROTOCOL_VERSIONS);
  }
  const meta = readRequestMeta(request.params);
  if (header) checkVersionHeader(header, meta.protocolVersion);
  if (!MODERN_PROTOCOL_VERSIONS.includes(meta.protocolVersion)) {
    throw McpError.unsupportedVersion(meta.protocolVersion, MODERN_PROTOCOL_VERSIONS);
  }
  // Removed methods (initialize, ping, logging/setLevel, resources/subscribe…) are unknown here: -32601 on 404.
  const handler = lookups.method(request.method);
  if (!handler) throw McpError.methodNotFound(request.method);
  const tool = request.method === Method.ToolsCall ? lookups.tool(request.params?.name) : undefined;
  if (header) {
    checkRoutingHeaders(header, request);
    if (tool && tool.headerParams.length > 0) checkParamHeaders(header, tool.headerParams, request.params?.arguments);
  }
  return { request, meta, handler, tool };
}
