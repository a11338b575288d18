/**
 * Reading untrusted input into JSON-RPC messages (spec §2, §6): invalid JSON is
 * -32700, anything that is not one JSON-RPC message is -32600, and a reply
 * carries the request's id when it could be read and never `id: null`.
 */

import { describe, expect, it } from 'vitest';
import { classifyMessage, errorResponse, parseMessage, type Incoming } from '../../src/protocol/jsonrpc.js';
import { assertServerMessage } from '../helpers/wire-schema.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The error reply a server would send for an invalid message, checked against the official schema. */
function replyFor(incoming: Incoming): Record<string, unknown> {
  if (incoming.kind !== 'invalid') throw new Error(`expected an invalid message, got ${incoming.kind}`);
  const reply = errorResponse(incoming.id, incoming.error) as unknown as Record<string, unknown>;
  assertServerMessage(reply);
  return reply;
}

function expectInvalid(text: string, code: number, id?: string | number): void {
  const incoming = parseMessage(text);
  expect(incoming.kind).toBe('invalid');
  const reply = replyFor(incoming);
  expect((reply.error as { code: number }).code).toBe(code);
  if (id === undefined) {
    // The MCP schema makes id optional but not nullable: an unreadable id is omitted.
    expect(reply).not.toHaveProperty('id');
  } else {
    expect(reply.id).toBe(id);
  }
}

describe('parse errors', () => {
  it.each([
    ['truncated object', '{"jsonrpc":"2.0","id":1,"method":"tools/list"'],
    ['single quotes', "{'jsonrpc':'2.0'}"],
    ['trailing comma', '{"jsonrpc":"2.0","id":1,"method":"x",}'],
    ['bare word', 'hello'],
    ['empty text', ''],
    ['two objects', '{"jsonrpc":"2.0","id":1,"method":"a"}{"jsonrpc":"2.0","id":2,"method":"b"}'],
  ])('%s is -32700 without an id', (_name, text) => {
    expectInvalid(text, -32700);
  });
});

describe('invalid requests (-32600)', () => {
  it('rejects a batch, even one holding a valid request', () => {
    expectInvalid(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }]), -32600);
    expectInvalid('[]', -32600);
  });

  it.each([['42'], ['"tools/list"'], ['null'], ['true']])('rejects the non-object %s', (text) => {
    expectInvalid(text, -32600);
  });

  it('rejects a wrong or missing jsonrpc member and still echoes the readable id', () => {
    expectInvalid(JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'tools/list' }), -32600, 7);
    expectInvalid(JSON.stringify({ jsonrpc: 2, id: 'x-1', method: 'tools/list' }), -32600, 'x-1');
    expectInvalid(JSON.stringify({ id: 8, method: 'tools/list' }), -32600, 8);
  });

  it('rejects id null and answers without any id', () => {
    const incoming = parseMessage(JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/list' }));
    expect(incoming.kind).toBe('invalid');
    const reply = replyFor(incoming);
    expect((reply.error as { code: number }).code).toBe(-32600);
    expect(reply).not.toHaveProperty('id');
    expect(JSON.stringify(reply)).not.toContain('null');
  });

  it.each([
    ['a float', 1.5],
    ['a boolean', true],
    ['an object', { n: 1 }],
    ['an array', [1]],
  ])('rejects an id that is %s, without echoing it', (_name, id) => {
    expectInvalid(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }), -32600);
  });

  it.each([
    ['a number', 42],
    ['null', null],
    ['an object', { name: 'tools/list' }],
    ['an array', ['tools/list']],
  ])('rejects a method that is %s, echoing the id', (_name, method) => {
    expectInvalid(JSON.stringify({ jsonrpc: '2.0', id: 'm-1', method }), -32600, 'm-1');
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'x'],
    ['a number', 3],
    ['null', null],
  ])('rejects params that are %s, echoing the id', (_name, params) => {
    expectInvalid(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params }), -32600, 3);
  });

  it('rejects an object that is neither request, notification nor response', () => {
    expectInvalid(JSON.stringify({}), -32600);
    expectInvalid(JSON.stringify({ jsonrpc: '2.0', id: 4 }), -32600, 4);
  });

  it('rejects a response that carries both result and error', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 5, result: {}, error: { code: 1, message: 'x' } });
    expect(parseMessage(text).kind).toBe('invalid');
  });

  it('rejects a result response without an id', () => {
    expect(parseMessage(JSON.stringify({ jsonrpc: '2.0', result: {} })).kind).toBe('invalid');
  });
});

describe('classification of valid messages', () => {
  it.each([
    ['an integer id', 1],
    ['id zero', 0],
    ['a negative id', -12],
    ['a string id', 'req-1'],
    ['an empty string id', ''],
  ])('reads a request with %s', (_name, id) => {
    const message = { jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: META } };
    const incoming = parseMessage(JSON.stringify(message));
    expect(incoming).toEqual({ kind: 'request', message });
  });

  it('reads a request without params', () => {
    const incoming = classifyMessage({ jsonrpc: '2.0', id: 9, method: 'server/discover' });
    expect(incoming.kind).toBe('request');
  });

  it('reads a notification (no id member at all)', () => {
    const message = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } };
    expect(classifyMessage(message)).toEqual({ kind: 'notification', message });
    expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/cancelled' }).kind).toBe('notification');
  });

  it('reads result and error responses, including an error whose id was unreadable', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } }).kind).toBe('response');
    expect(classifyMessage({ jsonrpc: '2.0', id: 'a', error: { code: -32601, message: 'Method not found' } }).kind).toBe('response');
    expect(classifyMessage({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }).kind).toBe('response');
  });

  it('keeps params exactly as sent', () => {
    const params = { _meta: META, name: 'x', arguments: { nested: { deep: [1, 'two', null] } } };
    const incoming = classifyMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
    expect(incoming.kind === 'request' && incoming.message.params).toEqual(params);
  });
});

describe('errorResponse', () => {
  it('omits id when it is unknown, and echoes string and integer ids', () => {
    const error = { code: -32600, message: 'Invalid request' };
    expect(errorResponse(undefined, error)).not.toHaveProperty('id');
    expect(errorResponse('s-1', error).id).toBe('s-1');
    expect(errorResponse(0, error).id).toBe(0);
  });
});
