/**
 * Streamable HTTP request-metadata headers, checked against the body (SEP-2243):
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` mirrors
 * of `x-mcp-header` arguments. Any disagreement is -32020 on HTTP 400, so a load
 * balancer that routed on the headers and the server that executes the body can
 * never act on different requests.
 */

import { McpError } from '../protocol/errors.js';
import {
  decodeHeaderValue,
  isValidRawHeaderValue,
  mirroredText,
  readMirroredArgument,
  type HeaderParam,
} from '../protocol/header-values.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { mcpNameSource } from '../protocol/methods.js';

export type HeaderLookup = (name: string) => string | undefined;

function mismatch(message: string): McpError {
  return McpError.headerMismatch(message);
}

/** `MCP-Protocol-Version` must be present and equal the body's `protocolVersion`. */
export function checkVersionHeader(header: HeaderLookup, bodyVersion: string): void {
  const value = header('mcp-protocol-version')?.trim();
  if (value === undefined || value === '') throw mismatch('Header mismatch: the MCP-Protocol-Version header is required');
  if (value !== bodyVersion) {
    throw mismatch(`Header mismatch: MCP-Protocol-Version header '${value}' does not match _meta protocolVersion '${bodyVersion}'`);
  }
}

/** `Mcp-Method` must equal the method (case-sensitive); `Mcp-Name` must equal the name, URI or task id. */
export function checkRoutingHeaders(header: HeaderLookup, request: JsonRpcRequest): void {
  const method = header('mcp-method')?.trim();
  if (method === undefined || method === '') throw mismatch('Header mismatch: the Mcp-Method header is required');
  if (method !== request.method) {
    throw mismatch(`Header mismatch: Mcp-Method header '${method}' does not match method '${request.method}'`);
  }
  const source = mcpNameSource(request.method);
  if (source === undefined) return;
  const expected = request.params?.[source];
  const raw = header('mcp-name')?.trim();
  if (raw === undefined) throw mismatch(`Header mismatch: the Mcp-Name header is required for ${request.method}`);
  if (!isValidRawHeaderValue(raw)) throw mismatch('Header mismatch: the Mcp-Name header holds invalid characters');
  const name = decodeHeaderValue(raw);
  if (name === undefined) throw mismatch('Header mismatch: the Mcp-Name header holds malformed Base64');
  if (name !== expected) {
    throw mismatch(`Header mismatch: Mcp-Name header '${raw}' does not match params.${source}`);
  }
}

function sameValue(param: HeaderParam, headerText: string, bodyValue: unknown): boolean {
  if (param.type === 'integer') {
    // Integers compare numerically, so "42" and "42.0" both match 42.
    if (!/^\s*-?\d+(\.0+)?\s*$/.test(headerText)) return false;
    return typeof bodyValue === 'number' && Number(headerText) === bodyValue;
  }
  return mirroredText(bodyValue) === headerText;
}

/** Every `x-mcp-header` argument present in the body must arrive, decoded, as an equal `Mcp-Param-*` header. */
export function checkParamHeaders(header: HeaderLookup, params: readonly HeaderParam[], args: unknown): void {
  for (const param of params) {
    const headerName = `Mcp-Param-${param.name}`;
    const raw = header(headerName.toLowerCase());
    const bodyValue = readMirroredArgument(args, param.path);
    if (raw === undefined) {
      if (bodyValue === undefined) continue;
      throw mismatch(`Header mismatch: the ${headerName} header is required when arguments.${param.path.join('.')} is set`);
    }
    const trimmed = raw.trim();
    if (!isValidRawHeaderValue(trimmed)) throw mismatch(`Header mismatch: the ${headerName} header holds invalid characters`);
    const decoded = decodeHeaderValue(trimmed);
    if (decoded === undefined) throw mismatch(`Header mismatch: the ${headerName} header holds malformed Base64`);
    if (bodyValue === undefined || !sameValue(param, decoded, bodyValue)) {
      throw mismatch(`Header mismatch: the ${headerName} header does not match arguments.${param.path.join('.')}`);
    }
  }
}
