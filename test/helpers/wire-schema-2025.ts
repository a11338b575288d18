/**
 * Validates 2025-11-25-era messages (initialize handshake, sessions,
 * server-initiated requests) against the official 2025-11-25 JSON schema
 * (test/spec/schema-2025-11-25.json), plus the rules of that revision the
 * schema cannot express: no MRTR (`resultType: "input_required"`) and exactly
 * `{}` for the empty results (`ping`, `logging/setLevel`, `resources/(un)subscribe`).
 */

import { loadSpecSchema } from './spec-schema.js';

const spec = loadSpecSchema('schema-2025-11-25.json');
const byMethod = spec.byMethod;

/** Requests a 2025-11-25 server may send to its client. */
const SERVER_REQUESTS = new Set(['ping', 'sampling/createMessage', 'roots/list', 'elicitation/create']);

export class WireSchema2025Error extends Error {}

function check(def: string, value: unknown, what: string): void {
  const problems = spec.errors(def, value);
  if (problems !== undefined) {
    throw new WireSchema2025Error(`${what} does not validate as 2025-11-25 ${def}: ${problems}\n${JSON.stringify(value)}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkEnvelope(message: Record<string, unknown>): void {
  // The 2025 SDKs parse envelopes strictly: exactly these keys, ids strings or integers.
  const keys = Object.keys(message).sort().join(',');
  const allowed = ['id,jsonrpc,result', 'error,id,jsonrpc', 'error,jsonrpc', 'jsonrpc,method', 'jsonrpc,method,params', 'id,jsonrpc,method', 'id,jsonrpc,method,params'];
  if (!allowed.includes(keys)) throw new WireSchema2025Error(`Not a 2025-11-25 JSON-RPC envelope (keys ${keys}): ${JSON.stringify(message)}`);
}

/**
 * Asserts that a message a server sent on a 2025-era connection is valid
 * 2025-11-25 wire. `method` is the method of the request a response answers.
 */
export function assertServerMessage2025(message: unknown, method?: string): void {
  if (!isObject(message)) throw new WireSchema2025Error(`Not a JSON object: ${JSON.stringify(message)}`);
  checkEnvelope(message);
  if ('method' in message) {
    const name = String(message.method);
    if ('id' in message) {
      if (!SERVER_REQUESTS.has(name)) throw new WireSchema2025Error(`A 2025-11-25 server may not send a ${name} request`);
      check(byMethod.get(name)!, message, `server request ${name}`);
      return;
    }
    const def = byMethod.get(name);
    check(def && def.endsWith('Notification') ? def : 'JSONRPCNotification', message, `notification ${name}`);
    return;
  }
  if ('error' in message) {
    check('JSONRPCErrorResponse', message, 'error response');
    return;
  }
  check('JSONRPCResultResponse', message, 'result response');
  const result = message.result as Record<string, unknown>;
  if (result.resultType === 'input_required') {
    throw new WireSchema2025Error(`A 2025-11-25 response carries an InputRequiredResult (MRTR does not exist there): ${JSON.stringify(message)}`);
  }
  const def = method ? spec.resultFor(method) : undefined;
  if (def) check(def, result, `${method} result`);
  // EmptyResult's schema allows _meta and more; the 2025 SDKs expect exactly {}.
  if (def === 'EmptyResult' && Object.keys(result).length > 0) {
    throw new WireSchema2025Error(`${method} must answer exactly {} at 2025-11-25, got ${JSON.stringify(result)}`);
  }
}

/**
 * Asserts that a message a client sent on a 2025-era connection is valid
 * 2025-11-25 wire. `method` is the method of the server request a response answers.
 */
export function assertClientMessage2025(message: unknown, method?: string): void {
  if (!isObject(message)) throw new WireSchema2025Error(`Not a JSON object: ${JSON.stringify(message)}`);
  checkEnvelope(message);
  if ('method' in message) {
    const name = String(message.method);
    const def = byMethod.get(name);
    if ('id' in message) check(def && def.endsWith('Request') ? def : 'JSONRPCRequest', message, `client request ${name}`);
    else check(def && def.endsWith('Notification') ? def : 'JSONRPCNotification', message, `client notification ${name}`);
    return;
  }
  if ('error' in message) {
    check('JSONRPCErrorResponse', message, 'client error response');
    return;
  }
  check('JSONRPCResultResponse', message, 'client result response');
  const def = method ? spec.resultFor(method) : undefined;
  if (def) check(def, message.result, `${method} result`);
}

/** Validates any value against a 2025-11-25 definition by name. */
export function assertValid2025(def: string, value: unknown): void {
  check(def, value, def);
}

/** The fields of a result that only 2026-07-28 has (resultType, ttlMs, cacheScope, serverInfo in _meta); [] for a 2025-11-25 shape. */
export function modernFieldsOf(result: Record<string, unknown>): string[] {
  const found = ['resultType', 'ttlMs', 'cacheScope'].filter((k) => k in result);
  if (isObject(result._meta) && 'io.modelcontextprotocol/serverInfo' in result._meta) found.push('_meta.serverInfo');
  return found;
}
