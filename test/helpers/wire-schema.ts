/**
 * Validates messages the project sends against the official 2026-07-28 JSON
 * schema (../shared/spec), plus the MRTR invariants the schema cannot express.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

type AjvInstance = import('ajv').default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as new (o: object) => AjvInstance;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: AjvInstance) => void;

const SCHEMA_PATH = fileURLToPath(new URL('../../../shared/spec/schema-2026-07-28.json', import.meta.url));
const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { $defs: Record<string, { properties?: Record<string, { const?: string }> }> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...schema, $id: 'mcp' });

const cache = new Map<string, ValidateFunction>();
function validator(def: string): ValidateFunction {
  let fn = cache.get(def);
  if (!fn) {
    if (!schema.$defs[def]) throw new Error(`No $defs.${def} in the schema`);
    fn = ajv.getSchema(`mcp#/$defs/${def}`)!;
    cache.set(def, fn);
  }
  return fn;
}

/** Definition names keyed by the `method` const they carry. */
const byMethod = new Map<string, string>();
for (const [name, def] of Object.entries(schema.$defs)) {
  const method = def.properties?.method?.const;
  if (typeof method === 'string' && (name.endsWith('Request') || name.endsWith('Notification'))) byMethod.set(method, name);
}

const RESULT_FOR: Record<string, string> = {
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'completion/complete': 'CompleteResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};

const ERROR_FOR: Record<number, string> = {
  [-32020]: 'HeaderMismatchError',
  [-32021]: 'MissingRequiredClientCapabilityError',
  [-32022]: 'UnsupportedProtocolVersionError',
};

export class WireSchemaError extends Error {}

function check(def: string, value: unknown, what: string): void {
  const fn = validator(def);
  if (!fn(value)) {
    throw new WireSchemaError(`${what} does not validate as ${def}: ${ajv.errorsText(fn.errors)}\n${JSON.stringify(value)}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The checks schema.json cannot express (mrtr-checklist §L). */
function checkInputRequired(result: Record<string, unknown>): void {
  if (result.resultType !== 'input_required') throw new WireSchemaError('InputRequiredResult needs resultType "input_required"');
  if (result.inputRequests === undefined && result.requestState === undefined) {
    throw new WireSchemaError('InputRequiredResult has neither inputRequests nor requestState');
  }
  if (result.inputRequests !== undefined) {
    if (!isObject(result.inputRequests) || Object.keys(result.inputRequests).length === 0) {
      throw new WireSchemaError('inputRequests must be a non-empty object');
    }
    for (const [key, entry] of Object.entries(result.inputRequests)) {
      if (isObject(entry) && ('id' in entry || 'jsonrpc' in entry)) {
        throw new WireSchemaError(`inputRequests.${key} carries a JSON-RPC envelope field`);
      }
    }
  }
  if ('ttlMs' in result || 'cacheScope' in result) throw new WireSchemaError('InputRequiredResult must not carry cache hints');
}

/**
 * Asserts that a message a server sent is valid 2026-07-28 wire. `method` is
 * the method of the request a response answers (to pick the result type).
 */
export function assertServerMessage(message: unknown, method?: string): void {
  if (!isObject(message)) throw new WireSchemaError(`Not a JSON object: ${JSON.stringify(message)}`);
  if ('method' in message) {
    if ('id' in message) throw new WireSchemaError(`A server sent a request: ${JSON.stringify(message)}`);
    const def = byMethod.get(String(message.method));
    check(def && def.endsWith('Notification') ? def : 'JSONRPCNotification', message, `notification ${String(message.method)}`);
    return;
  }
  if ('error' in message) {
    const code = isObject(message.error) ? Number(message.error.code) : NaN;
    check(ERROR_FOR[code] ?? 'JSONRPCErrorResponse', message, `error ${code}`);
    return;
  }
  check('JSONRPCResultResponse', message, 'result response');
  const result = message.result as Record<string, unknown>;
  if (result.resultType === 'input_required') {
    check('InputRequiredResult', result, 'input-required result');
    checkInputRequired(result);
    return;
  }
  if (result.resultType !== 'complete') throw new WireSchemaError(`Unexpected resultType ${String(result.resultType)}`);
  const def = method ? RESULT_FOR[method] : undefined;
  if (def) check(def, result, `${method} result`);
}

/** Validates an input request a server embeds, or an answer a client sends, by definition name. */
export function assertValid(def: string, value: unknown): void {
  check(def, value, def);
}

/** Validates a request a client sends, by its method. */
export function assertClientRequest(message: unknown): void {
  if (!isObject(message)) throw new WireSchemaError('Not a JSON object');
  const def = byMethod.get(String(message.method));
  check(def ?? 'JSONRPCRequest', message, `request ${String(message.method)}`);
}
