/**
 * `key=value` arguments, typed by the tool's input schema: a property the
 * schema calls a number becomes a number, a boolean a boolean, an object or
 * array is read as JSON. `key:=<json>` always reads JSON (for values the
 * schema does not describe, or to send a string that looks like a number).
 */

import { isObject } from 'tessera-mcp/protocol';
import { UsageError } from './errors.js';

type Json = Record<string, unknown>;

interface Pair {
  key: string;
  text: string;
  json: boolean;
}

function splitPair(pair: string): Pair {
  const equals = pair.indexOf('=');
  if (equals <= 0) throw new UsageError(`"${pair}" is not key=value (use key=value, or key:=<json> for JSON)`);
  const json = pair[equals - 1] === ':';
  const key = pair.slice(0, json ? equals - 1 : equals);
  if (key === '') throw new UsageError(`"${pair}" has no key before "${json ? ':=' : '='}"`);
  return { key, text: pair.slice(equals + 1), json };
}

function readJson(key: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${key}:=${text} is not valid JSON (${(error as Error).message})`);
  }
}

/** The JSON types a property schema allows, from `type`, `enum`/`const` values, or `anyOf`/`oneOf` branches. */
export function allowedTypes(property: unknown): Set<string> {
  const types = new Set<string>();
  if (!isObject(property)) return types;
  const type = property.type;
  if (typeof type === 'string') types.add(type);
  else if (Array.isArray(type)) for (const t of type) if (typeof t === 'string') types.add(t);
  const values = Array.isArray(property.enum) ? property.enum : 'const' in property ? [property.const] : [];
  for (const value of values) types.add(value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value);
  for (const branch of [property.anyOf, property.oneOf]) {
    if (Array.isArray(branch)) for (const b of branch) for (const t of allowedTypes(b)) types.add(t);
  }
  return types;
}

/** Reads one text as the first of the allowed types it fits; a string always fits when strings are allowed. */
function typed(key: string, text: string, types: Set<string>): unknown {
  if (types.size === 0 || types.has('string')) return text;
  const trimmed = text.trim();
  if (types.has('integer') && /^[+-]?\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed))) return Number(trimmed);
  if (types.has('number') && trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  if (types.has('boolean')) {
    if (/^(true|yes|y|on|1)$/i.test(trimmed)) return true;
    if (/^(false|no|n|off|0)$/i.test(trimmed)) return false;
  }
  if (types.has('null') && trimmed === 'null') return null;
  if (types.has('object') || types.has('array')) {
    try {
      const value = JSON.parse(text) as unknown;
      if ((types.has('array') && Array.isArray(value)) || (types.has('object') && isObject(value))) return value;
    } catch {
      // falls through to the message below
    }
  }
  const wanted = [...types].map((t) => (t === 'object' || t === 'array' ? `${t} (as JSON)` : t)).join(' or ');
  throw new UsageError(`${key}=${text}: the tool's schema wants ${wanted}`);
}

/** An enum's member written as `text`: the string itself if listed, else the member that prints as it (3 for "3"). */
function enumMember(property: unknown, text: string): { value: unknown } | undefined {
  if (!isObject(property)) return undefined;
  const values = Array.isArray(property.enum) ? property.enum : 'const' in property ? [property.const] : [];
  if (values.includes(text)) return { value: text };
  const match = values.find((v) => v !== null && typeof v !== 'object' && String(v) === text);
  return match === undefined ? undefined : { value: match };
}

/** Tool arguments from `key=value` pairs, typed by the tool's `inputSchema` when there is one. */
export function parseToolArguments(pairs: readonly string[], inputSchema?: unknown): Json {
  const properties = isObject(inputSchema) && isObject(inputSchema.properties) ? inputSchema.properties : {};
  const args: Json = {};
  for (const raw of pairs) {
    const { key, text, json } = splitPair(raw);
    if (Object.hasOwn(args, key)) throw new UsageError(`"${key}" is given twice`);
    args[key] = json ? readJson(key, text) : (enumMember(properties[key], text) ?? { value: typed(key, text, allowedTypes(properties[key])) }).value;
  }
  return args;
}

/** Prompt arguments are strings by definition (`key:=<json>` still accepted, and must be a JSON string). */
export function parsePromptArguments(pairs: readonly string[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const raw of pairs) {
    const { key, text, json } = splitPair(raw);
    if (Object.hasOwn(args, key)) throw new UsageError(`"${key}" is given twice`);
    const value = json ? readJson(key, text) : text;
    if (typeof value !== 'string') throw new UsageError(`${key}: prompt arguments are strings`);
    args[key] = value;
  }
  return args;
}

/** A sample `key=value` line for a tool, for hints: enum values and defaults as they are, other values quoted placeholders. */
export function sampleArguments(inputSchema: unknown): string {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return '';
  const required = new Set(Array.isArray(inputSchema.required) ? (inputSchema.required as string[]) : []);
  const parts: string[] = [];
  for (const [name, property] of Object.entries(inputSchema.properties)) {
    if (!required.has(name)) continue;
    const schema = isObject(property) ? property : {};
    const example = Array.isArray(schema.enum) ? schema.enum[0] : schema.default;
    if (typeof example === 'string' && /^[\w.@/-]+$/.test(example)) parts.push(`${name}=${example}`);
    else if (typeof example === 'number' || typeof example === 'boolean') parts.push(`${name}=${example}`);
    else parts.push(`'${name}=<${[...allowedTypes(schema)].join('|') || 'value'}>'`);
  }
  return parts.join(' ');
}

/** Names a schema's properties, and which of them are required. */
function propertiesOf(inputSchema: unknown): { names: string[]; required: string[]; open: boolean } {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return { names: [], required: [], open: true };
  const names = Object.keys(inputSchema.properties);
  const required = Array.isArray(inputSchema.required) ? inputSchema.required.filter((r): r is string => typeof r === 'string') : [];
  // Other names are meant only where the schema says so (additionalProperties or patternProperties).
  const extra = inputSchema.additionalProperties;
  const open = (extra !== undefined && extra !== false) || isObject(inputSchema.patternProperties);
  return { names, required, open };
}

/** The arguments a tool's schema does not name (none when it allows other names). */
export function unknownArguments(args: Json, inputSchema: unknown): string[] {
  const { names, open } = propertiesOf(inputSchema);
  if (open) return [];
  return Object.keys(args).filter((key) => !names.includes(key));
}

/** The required arguments not given. */
export function missingArguments(args: Json, inputSchema: unknown): string[] {
  return propertiesOf(inputSchema).required.filter((name) => !Object.hasOwn(args, name));
}
