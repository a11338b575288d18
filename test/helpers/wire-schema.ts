/**
 * Validates messages the project sends against the official 2026-07-28 JSON
 * schema (../shared/spec), plus the MRTR invariants the schema cannot express.
 */

import { loadSpecSchema } from './spec-schema.js';

const spec = loadSpecSchema('schema-2026-07-28.json');
const byMethod = spec.byMethod;

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
  const problems = spec.errors(def, value);
  if (problems !== undefined) {
    throw new WireSchemaError(`${what} does not validate as ${def}: ${problems}\n${JSON.stringify(value)}`);
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
