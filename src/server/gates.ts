/**
 * The gates every 2026-07-28 request passes before its method runs, in the
 * order that gives each failure its mandated error: `_meta` (-32602, HTTP
 * 400), version header (-32020), version (-32022), method (-32601, HTTP 404),
 * routing headers (-32020), the method's params (-32602), mirrored-argument
 * headers (-32020). What passes is one admitted operation: params checked and
 * typed, the target looked up once (operation.ts).
 */

import { McpError } from '../protocol/errors.js';
import type { RequestChannel } from '../protocol/channel.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { LegacyMethod } from '../protocol/methods.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { MethodHandler } from './extension.js';
import { checkParamHeaders, checkRoutingHeaders, checkVersionHeader } from './header-gate.js';
import { PARAMS_CHECKERS } from './method-params.js';
import type { Operation } from './operation.js';
import type { RegisteredPrompt } from './prompts.js';
import { hasModernMeta, readRequestMeta, type RequestMeta } from './request-meta.js';
import type { ResourceTarget } from './resources.js';
import type { RegisteredTool } from './tools.js';

export interface GateLookups {
  /** The handler of a method the server offers now, or undefined. */
  method(name: string): MethodHandler | undefined;
  /** The registered tool of this name, or undefined. */
  tool(name: string): RegisteredTool | undefined;
  /** The registered prompt of this name, or undefined. */
  prompt(name: string): RegisteredPrompt | undefined;
  /** What serves this URI (a resource, or a template it matches), or undefined. */
  resource(uri: string): ResourceTarget | undefined;
}

/** What passed the gates: the operation and its method's handler. */
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
  if (header) checkRoutingHeaders(header, request);
  const admitted = admittedOperation(request, meta, lookups, handler);
  if (header && admitted.tool && admitted.tool.headerParams.length > 0) checkParamHeaders(header, admitted.tool.headerParams, admitted.params.arguments);
  return admitted;
}

/**
 * A request's params checked for its method and its target looked up: the
 * operation every later step reads. The 2025-11-25 era makes its operations
 * here too, after its own gates.
 */
export function admittedOperation(request: JsonRpcRequest, meta: RequestMeta, lookups: GateLookups, handler: MethodHandler): Admitted {
  const raw = request.params ?? {};
  const check = PARAMS_CHECKERS.get(request.method);
  const params = check ? check(raw) : raw;
  // The checker made name and uri strings, inputResponses an object and requestState a string where present.
  const requestState = params.requestState as string | undefined;
  const inputResponses = params.inputResponses as Record<string, unknown> | undefined;
  switch (request.method) {
    case 'tools/call': {
      const name = params.name as string;
      const args = params.arguments as Record<string, unknown> | undefined;
      const tool = lookups.tool(name);
      return { request, params, meta, handler, tool, asks: tool?.definition.asks, round: { method: request.method, target: name, args, requestState, inputResponses } };
    }
    case 'prompts/get': {
      const name = params.name as string;
      const args = params.arguments as Record<string, unknown> | undefined;
      const prompt = lookups.prompt(name);
      return { request, params, meta, handler, prompt, asks: prompt?.asks, round: { method: request.method, target: name, args, requestState, inputResponses } };
    }
    case 'resources/read': {
      const uri = params.uri as string;
      const resource = lookups.resource(uri);
      // A read has no arguments: its URI is its whole target.
      return { request, params, meta, handler, resource, asks: resource?.entry.asks, round: { method: request.method, target: uri, args: undefined, requestState, inputResponses } };
    }
    default:
      return { request, params, meta, handler };
  }
}
