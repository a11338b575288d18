/**
 * The Tasks extension checks in test/helpers/wire-schema.ts (spec §14.2,
 * §14.3, §5): the validator the HTTP and in-process helpers run on every
 * server message must accept valid task traffic and reject each way it can be
 * wrong, or the task tests could pass on invalid wire.
 */

import { describe, expect, it } from 'vitest';
import { assertServerMessage, WireSchemaError } from '../helpers/wire-schema.js';

const NOW = '2026-08-01T10:00:00.000Z';
const TASK = { taskId: 'task-abc', status: 'working', createdAt: NOW, lastUpdatedAt: NOW, ttlMs: 60_000, pollIntervalMs: 1000 };
const FORM = { method: 'elicitation/create', params: { mode: 'form', message: 'Proceed?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } };
const TOOL_RESULT = { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };

const response = (result: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', id: 1, result });
const ok = (result: Record<string, unknown>, method: string): void => assertServerMessage(response(result), method);
const bad = (result: Record<string, unknown>, method: string): void => {
  expect(() => assertServerMessage(response(result), method)).toThrow(WireSchemaError);
};

const without = (o: Record<string, unknown>, key: string): Record<string, unknown> => {
  const copy = { ...o };
  delete copy[key];
  return copy;
};

describe('CreateTaskResult (resultType "task")', () => {
  const created = { resultType: 'task', ...TASK };

  it('accepts the flat shape on tools/call (with or without pollIntervalMs, statusMessage, _meta; ttlMs null)', () => {
    ok(created, 'tools/call');
    ok(without(created, 'pollIntervalMs'), 'tools/call');
    ok({ ...created, ttlMs: null, statusMessage: 'queued', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } } }, 'tools/call');
    ok({ ...created, status: 'input_required' }, 'tools/call');
  });

  it.each(['prompts/get', 'resources/read', 'tasks/get', 'server/discover'])('rejects resultType "task" on %s', (method) => {
    bad(created, method);
  });

  it('rejects it when the method is unknown', () => {
    expect(() => assertServerMessage(response(created))).toThrow(WireSchemaError);
  });

  it.each([
    ['requestState', { requestState: 'abc' }],
    ['inputRequests', { inputRequests: { a: FORM } }],
    ['result', { result: TOOL_RESULT }],
    ['error', { error: { code: -32603, message: 'x' } }],
    ['a nested task', { task: TASK }],
  ])('rejects a CreateTaskResult carrying %s', (_what, extra) => {
    bad({ ...created, ...extra }, 'tools/call');
  });

  it.each([
    ['no taskId', without(created, 'taskId')],
    ['a numeric taskId', { ...created, taskId: 7 }],
    ['an unknown status', { ...created, status: 'running' }],
    ['a non-ISO createdAt', { ...created, createdAt: 'yesterday' }],
    ['a date-only lastUpdatedAt', { ...created, lastUpdatedAt: '2026-08-01' }],
    ['no ttlMs', without(created, 'ttlMs')],
    ['a fractional ttlMs', { ...created, ttlMs: 1.5 }],
    ['a string pollIntervalMs', { ...created, pollIntervalMs: '1000' }],
    ['a numeric statusMessage', { ...created, statusMessage: 5 }],
  ])('rejects a CreateTaskResult with %s', (_what, result) => {
    bad(result, 'tools/call');
  });
});

describe('tasks/get results (DetailedTask)', () => {
  const get = (extra: Record<string, unknown>): Record<string, unknown> => ({ resultType: 'complete', ...TASK, ...extra });

  it('accepts each status with its fields', () => {
    ok(get({}), 'tasks/get');
    ok(get({ status: 'input_required', inputRequests: { 'a-1': FORM, 'b-2': { method: 'roots/list' } } }), 'tasks/get');
    ok(get({ status: 'completed', result: TOOL_RESULT }), 'tasks/get');
    ok(get({ status: 'completed', result: { ...TOOL_RESULT, isError: true } }), 'tasks/get');
    ok(get({ status: 'failed', error: { code: -32602, message: 'bad', data: { x: 1 } }, statusMessage: 'bad' }), 'tasks/get');
    ok(get({ status: 'cancelled' }), 'tasks/get');
  });

  it.each([
    ['resultType "task"', get({ resultType: 'task' })],
    ['resultType "input_required" (tasks/* never return InputRequiredResult)', { resultType: 'input_required', inputRequests: { a: FORM } }],
    ['an absent resultType', without(get({}), 'resultType')],
    ['requestState', get({ requestState: 'abc' })],
    ['input_required without inputRequests', get({ status: 'input_required' })],
    ['input_required with an empty inputRequests', get({ status: 'input_required', inputRequests: {} })],
    ['an inputRequests entry that is not an InputRequest', get({ status: 'input_required', inputRequests: { a: { method: 'tools/call', params: {} } } })],
    ['an inputRequests entry with a JSON-RPC envelope', get({ status: 'input_required', inputRequests: { a: { ...FORM, jsonrpc: '2.0', id: 3 } } })],
    ['inputRequests on a working task', get({ inputRequests: { a: FORM } })],
    ['completed without result', get({ status: 'completed' })],
    ['completed with a result that is not a CallToolResult', get({ status: 'completed', result: { resultType: 'complete', content: 'done' } })],
    ['completed with a result lacking resultType "complete"', get({ status: 'completed', result: { content: [] } })],
    ['result on a failed task', get({ status: 'failed', error: { code: -32603, message: 'x' }, result: TOOL_RESULT })],
    ['failed without error', get({ status: 'failed' })],
    ['failed with an error lacking message', get({ status: 'failed', error: { code: -32603 } })],
    ['error on a completed task', get({ status: 'completed', result: TOOL_RESULT, error: { code: -32603, message: 'x' } })],
    ['error on a cancelled task', get({ status: 'cancelled', error: { code: -32603, message: 'x' } })],
    ['no createdAt', without(get({}), 'createdAt')],
  ])('rejects %s', (_what, result) => {
    bad(result, 'tasks/get');
  });
});

describe('tasks/update and tasks/cancel acknowledgements', () => {
  it.each(['tasks/update', 'tasks/cancel'])('%s: accepts exactly { resultType: "complete" } (with or without _meta)', (method) => {
    ok({ resultType: 'complete' }, method);
    ok({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } } }, method);
  });

  it.each(['tasks/update', 'tasks/cancel'])('%s: rejects any other field, or another resultType', (method) => {
    bad({ resultType: 'complete', status: 'cancelled' }, method);
    bad({ resultType: 'complete', ...TASK }, method);
    bad({ resultType: 'task', ...TASK }, method);
    bad({}, method);
  });
});

describe('unchanged behaviour', () => {
  it('still accepts ordinary and input-required tools/call results, and rejects unknown resultTypes', () => {
    ok(TOOL_RESULT, 'tools/call');
    ok({ resultType: 'input_required', inputRequests: { a: FORM } }, 'tools/call');
    bad({ resultType: 'partial', content: [] }, 'tools/call');
    bad({ resultType: 'complete', content: 'text' }, 'tools/call');
  });

  it('validates errors of tasks/* like any error', () => {
    assertServerMessage({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'unknown task' } }, 'tasks/get');
    expect(() =>
      assertServerMessage({ jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'needs tasks' } }, 'tasks/get'),
    ).toThrow(WireSchemaError);
  });
});
