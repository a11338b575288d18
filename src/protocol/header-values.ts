/**
 * The value encoding of the Streamable HTTP request-metadata headers
 * (`Mcp-Name`, `Mcp-Param-*`): plain ASCII when safe, otherwise the sentinel
 * `=?base64?<standard Base64 of the UTF-8 bytes>?=`. Shared by the client, which
 * encodes, and the server, which decodes and compares.
 */

import { base64ToUtf8, utf8ToBase64 } from './base64.js';

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** True when a value cannot travel as a literal header value. */
function needsBase64(value: string): boolean {
  if (value.length > 0 && /^[ \t]|[ \t]$/.test(value)) return true;
  // Any non-ASCII or control character (0x00-0x1F, 0x7F).
  if (/[^\x20-\x7e]/.test(value)) return true;
  return SENTINEL.test(value);
}

export function encodeHeaderValue(value: string): string {
  return needsBase64(value) ? `=?base64?${utf8ToBase64(value)}?=` : value;
}

/**
 * Decodes a received header value. Returns `undefined` when the sentinel holds
 * malformed Base64 or bytes that are not UTF-8; such a header must be rejected.
 * A value that merely resembles the sentinel (other case, no closing `?=`) is a literal.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const match = SENTINEL.exec(raw);
  if (!match) return raw;
  const b64 = match[1] ?? '';
  if (!STRICT_BASE64.test(b64)) return undefined;
  try {
    return base64ToUtf8(b64);
  } catch {
    return undefined;
  }
}

/** Characters a raw header value may hold: visible ASCII, space and tab. */
export function isValidRawHeaderValue(raw: string): boolean {
  return /^[\t\x20-\x7e]*$/.test(raw);
}

/** An RFC 9110 token (`1*tchar`). */
export function isHttpToken(value: string): boolean {
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(value);
}

/** A tool argument mirrored into an `Mcp-Param-{name}` header by an `x-mcp-header` annotation. */
export interface HeaderParam {
  /** The header suffix, as written in the schema. */
  name: string;
  /** The chain of `properties` keys leading to the value in `arguments`. */
  path: readonly string[];
  type: 'string' | 'integer' | 'boolean';
}

/** Keywords whose value is one subschema, a map of subschemas, or a list of subschemas (JSON Schema 2020-12 and draft-07). */
const SUBSCHEMA = new Set(['items', 'additionalItems', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']);
const SUBSCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/** Calls `visit` for every direct subschema of `node`, with the keyword (and key) that leads to it. */
function eachSubschema(node: Record<string, unknown>, visit: (child: unknown, keyword: string, key?: string) => void): void {
  for (const [keyword, value] of Object.entries(node)) {
    if (typeof value !== 'object' || value === null) continue;
    if (SUBSCHEMA_MAP.has(keyword) && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value)) visit(child, keyword, key);
    } else if (SUBSCHEMA_LIST.has(keyword) || (keyword === 'items' && Array.isArray(value))) {
      for (const child of value as unknown[]) visit(child, keyword);
    } else if (SUBSCHEMA.has(keyword)) {
      visit(value, keyword);
    }
  }
}

/**
 * Collects the `x-mcp-header` annotations of a tool's input schema. Only
 * properties reached through a chain of `properties` keys may carry one; an
 * annotation anywhere else (under items, anyOf, $defs…) is a problem, as are bad
 * names, duplicates and non-primitive types. Returns the problems found instead
 * when there are any (a client must then leave the tool out; a server must not
 * publish it).
 */
export function collectHeaderParams(
  inputSchema: Record<string, unknown>,
): { params: HeaderParam[]; problems: string[] } {
  const params: HeaderParam[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();

  const annotation = (node: Record<string, unknown>, path: string[]): void => {
    const name = node['x-mcp-header'];
    const type = node.type;
    const where = path.join('.');
    if (typeof name !== 'string' || name.length === 0 || !isHttpToken(name)) {
      problems.push(`x-mcp-header on "${where}" must be a non-empty HTTP token`);
    } else if (seen.has(name.toLowerCase())) {
      problems.push(`x-mcp-header "${name}" is used more than once`);
    } else if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
      problems.push(`x-mcp-header "${name}" is on "${where}", whose type is not string, integer or boolean`);
    } else {
      seen.add(name.toLowerCase());
      params.push({ name, path, type });
    }
  };

  const offChain = (schema: unknown, via: string): void => {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
    const node = schema as Record<string, unknown>;
    if ('x-mcp-header' in node) {
      problems.push(`x-mcp-header ${JSON.stringify(node['x-mcp-header'])} is under "${via}", which is not a chain of properties`);
    }
    eachSubschema(node, (child) => offChain(child, via));
  };

  const onChain = (schema: unknown, path: string[]): void => {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
    const node = schema as Record<string, unknown>;
    if (path.length > 0 && 'x-mcp-header' in node) annotation(node, path);
    eachSubschema(node, (child, keyword, key) => {
      if (keyword === 'properties' && key !== undefined) onChain(child, [...path, key]);
      else offChain(child, keyword);
    });
  };
  onChain(inputSchema, []);
  return { params, problems };
}

/** Reads the argument a header mirrors; `undefined` when absent or null (then no header is sent). */
export function readMirroredArgument(args: unknown, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value === null ? undefined : value;
}

/** The literal (pre-encoding) header text for a mirrored value, or undefined if it cannot be mirrored. */
export function mirroredText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}
