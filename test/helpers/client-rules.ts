/**
 * Assertions for what a client puts on the wire, written from the spec
 * (digest §3, §7.5; checklist §G), independently of src: request `_meta`, the
 * capabilities it declares, and the shape of an MRTR retry.
 */

import { expect } from 'vitest';
import type { Json } from './scripted-http.js';
import { assertClientRequest, assertValid } from './wire-schema.js';

export const VERSION = '2026-07-28';
export const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Which optional client features a request declares (spec §3: `elicitation: {}` means form only). */
export interface Declared {
  form: boolean;
  url: boolean;
  sampling: boolean;
  samplingTools: boolean;
  roots: boolean;
}

export function declaredBy(capabilities: unknown): Declared {
  const caps = isObject(capabilities) ? capabilities : {};
  const elicitation = caps.elicitation;
  const sampling = caps.sampling;
  return {
    form: isObject(elicitation) && ('form' in elicitation || !('url' in elicitation)),
    url: isObject(elicitation) && isObject(elicitation.url),
    sampling: isObject(sampling),
    samplingTools: isObject(sampling) && isObject(sampling.tools),
    roots: isObject(caps.roots),
  };
}

export const NOTHING: Declared = { form: false, url: false, sampling: false, samplingTools: false, roots: false };

/**
 * The request validates against the official schema and carries the required
 * `_meta` (protocolVersion, clientCapabilities) plus clientInfo (spec §3).
 */
export function expectRequestMeta(message: Json, info: { name: string; version: string }, declared?: Partial<Declared>): void {
  assertClientRequest(message);
  expect(isObject(message.params)).toBe(true);
  const meta = message.params._meta as Json;
  expect(isObject(meta)).toBe(true);
  expect(meta[PROTOCOL_VERSION]).toBe(VERSION);
  expect(isObject(meta[CLIENT_CAPABILITIES])).toBe(true);
  expect(meta[CLIENT_INFO]).toEqual(info);
  if (declared) expect(declaredBy(meta[CLIENT_CAPABILITIES])).toEqual({ ...NOTHING, ...declared });
}

/** The params of a request without what the client adds per round. */
export function originalParams(params: Json): Json {
  const { _meta: _m, inputResponses: _i, requestState: _s, ...rest } = params;
  return rest;
}

const ANSWER_DEF: Record<string, string> = {
  'elicitation/create': 'ElicitResult',
  'sampling/createMessage': 'CreateMessageResult',
  'roots/list': 'ListRootsResult',
};

export interface RetryExpectation {
  /** The exact `inputResponses` expected, or 'absent' for a state-only round. */
  answers: Json | 'absent';
  /** The state to echo; undefined means the round had none, so the retry must have no `requestState` key. */
  requestState: string | undefined;
  /** The round's `inputRequests` (to check answers are keyed like them and typed per method). */
  inputRequests?: Json;
  /** Every id the client used before this retry. */
  earlierIds: unknown[];
}

/** An MRTR retry (spec §7.5; checklist 68–77). */
export function expectRetry(original: Json, retry: Json, expected: RetryExpectation): void {
  assertClientRequest(retry);
  expect(retry.method).toBe(original.method);
  expect(typeof retry.id === 'string' || Number.isInteger(retry.id)).toBe(true);
  expect(expected.earlierIds).not.toContain(retry.id);
  expect(originalParams(retry.params)).toEqual(originalParams(original.params));
  if (expected.requestState === undefined) {
    expect(Object.keys(retry.params)).not.toContain('requestState');
  } else {
    expect(Object.keys(retry.params)).toContain('requestState');
    expect(retry.params.requestState).toBe(expected.requestState);
  }
  if (expected.answers === 'absent') {
    expect(Object.keys(retry.params)).not.toContain('inputResponses');
    return;
  }
  expect(retry.params.inputResponses).toEqual(expected.answers);
  const responses = retry.params.inputResponses as Json;
  if (expected.inputRequests) {
    expect(Object.keys(responses).sort()).toEqual(Object.keys(expected.inputRequests).sort());
  }
  for (const [key, value] of Object.entries(responses)) {
    // Bare results: no resultType, no JSON-RPC envelope (checklist 76).
    expect(isObject(value)).toBe(true);
    for (const banned of ['resultType', 'jsonrpc', 'id', 'result']) expect(Object.keys(value as Json)).not.toContain(banned);
    const method = expected.inputRequests?.[key]?.method as string | undefined;
    if (method && ANSWER_DEF[method]) assertValid(ANSWER_DEF[method]!, value);
  }
}
