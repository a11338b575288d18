/** JSON-RPC 2.0 envelopes: reading untrusted input into typed messages, and writing replies. */

import { isObject } from './guards.js';
import { McpError, type JsonRpcErrorObject } from './errors.js';
import type { RequestId, Result } from './types.js';

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Result;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  /** Absent when the request's id could not be read (the MCP schema forbids `null`). */
  id?: RequestId;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What an incoming message turned out to be. */
export type Incoming =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; error: McpError; id?: RequestId };

/**
 * A request id this side can echo exactly: a string, or an integer JSON
 * numbers hold exactly (beyond 2^53 − 1 the parsed value is already another
 * number, so echoing it would answer a request nobody sent).
 */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** Reads one JSON text; invalid JSON is -32700, anything that is not one JSON-RPC message is -32600. */
export function parseMessage(text: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', error: McpError.parseError() };
  }
  return classifyMessage(value);
}

/** Classifies an already-parsed JSON value without trusting any of it. */
export function classifyMessage(value: unknown): Incoming {
  if (Array.isArray(value)) {
    return { kind: 'invalid', error: McpError.invalidRequest('Invalid request: batches are not supported') };
  }
  if (!isObject(value)) {
    return { kind: 'invalid', error: McpError.invalidRequest('Invalid request: a message must be a JSON object') };
  }
  const id = isRequestId(value.id) ? value.id : undefined;
  if (value.jsonrpc !== '2.0') {
    return { kind: 'invalid', error: McpError.invalidRequest('Invalid request: jsonrpc must be "2.0"'), id };
  }
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method.length === 0) {
      return { kind: 'invalid', error: McpError.invalidRequest('Invalid request: method must be a non-empty string'), id };
    }
    if (value.params !== undefined && !isObject(value.params)) {
      return { kind: 'invalid', error: McpError.invalidRequest('Invalid request: params must be an object'), id };
    }
    if (!('id' in value)) {
      return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    }
    if (id === undefined) {
      return { kind: 'invalid', error: McpError.invalidRequest('Invalid request: id must be a string or an integer within ±(2^53 − 1)') };
    }
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }
  if (('result' in value && isObject(value.result)) || ('error' in value && isObject(value.error))) {
    if ('result' in value && 'error' in value) {
      return { kind: 'invalid', error: McpError.invalidRequest('Invalid request: a response has result or error, not both'), id };
    }
    if ('result' in value && id === undefined) {
      return { kind: 'invalid', error: McpError.invalidRequest('Invalid request: a result response needs an id') };
    }
    return { kind: 'response', message: value as unknown as JsonRpcResponse };
  }
  return { kind: 'invalid', error: McpError.invalidRequest('Invalid request: not a request, notification or response'), id };
}

export function resultResponse(id: RequestId, result: Result): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: RequestId | undefined, error: McpError | JsonRpcErrorObject): JsonRpcErrorResponse {
  const body = error instanceof McpError ? error.toJSON() : error;
  return id === undefined ? { jsonrpc: '2.0', error: body } : { jsonrpc: '2.0', id, error: body };
}

export function notification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/**
 * JSON text of an outgoing message. A result that JSON cannot carry (a BigInt,
 * a cycle) becomes a -32603 error for the same request instead of a lost reply;
 * an unserialisable notification yields undefined (it is dropped).
 */
export function serializeMessage(message: JsonRpcMessage): string | undefined {
  try {
    return JSON.stringify(message);
  } catch (error) {
    console.error(`[tessera] could not serialise ${'method' in message ? message.method : 'a response'}: ${(error as Error).message}`);
    if (!('result' in message) && !('error' in message)) return undefined;
    return JSON.stringify(errorResponse(message.id, McpError.internal()));
  }
}
