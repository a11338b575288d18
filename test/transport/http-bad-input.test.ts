/**
 * What the Streamable HTTP endpoint does with bad input (spec §6, §12.1, §12.6):
 * each kind of bad body or bad HTTP request gets its status and JSON-RPC error,
 * handler failures stay generic on the wire, and the server keeps serving.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, McpServer, type ServerLogger } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, standardHeaders, startHttp } from '../helpers/http.js';
import { rawRequest } from '../helpers/raw-http.js';
import { assertServerMessage } from '../helpers/wire-schema.js';

const LIMIT = 4096;
const SECRET = 'db password hunter2 at /srv/billing/secrets.ts:42';

interface LogCall {
  level: 'error' | 'warn';
  message: string;
  detail: unknown;
}

const logCalls: LogCall[] = [];
const recordingLogger: ServerLogger = {
  error: (message, detail) => logCalls.push({ level: 'error', message, detail }),
  warn: (message, detail) => logCalls.push({ level: 'warn', message, detail }),
};

function buildServer(): McpServer {
  const server = new McpServer({ name: 'bad-input', version: '1.0.0' }, { logger: recordingLogger });
  server.tool('echo', { description: 'Says ok' }, () => 'ok');
  server.tool('explode', { description: 'Throws a plain Error' }, () => {
    throw new Error(SECRET);
  });
  server.tool('quota', { description: 'Throws an McpError with an application code' }, () => {
    throw new McpError(4291, 'Quota exceeded for this key', { retryAfterMs: 500, scope: 'key' });
  });
  server.tool('bad-args', { description: 'Throws an McpError with a spec code' }, () => {
    throw McpError.invalidParams('Invalid params: widget must be blue', { field: 'widget' });
  });
  server.tool('unserializable', { description: 'Returns a value JSON cannot carry' }, () => ({
    content: [{ type: 'text', text: 'has a BigInt' }],
    structuredContent: { n: 10n },
  }));
  server.tool('reserved-code', { input: { type: 'object', properties: { code: { type: 'integer' } }, required: ['code'] } }, (args) => {
    throw new McpError(Number(args.code), 'A code this revision reserves or removed');
  });
  return server;
}

let running: RunningHttpServer;
beforeAll(async () => {
  running = await startHttp(buildServer(), { maxBodyBytes: LIMIT });
});
afterAll(() => running?.close());

/** POSTs a raw body with the standard headers of a tools/list request. */
async function postBody(body: string): Promise<{ status: number; json: Record<string, unknown> | undefined; text: string }> {
  const res = await fetch(running.url, { method: 'POST', headers: standardHeaders('tools/list', undefined), body });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

function codeOf(json: Record<string, unknown> | undefined): number | undefined {
  return (json?.error as { code?: number } | undefined)?.code;
}

describe('bodies that are not one JSON-RPC request', () => {
  it.each([
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"tools/list"'],
    ['plain text', 'hello'],
    ['an empty body', ''],
  ])('%s is -32700 on 400, without an id', async (_name, body) => {
    const reply = await postBody(body);
    expect(reply.status).toBe(400);
    expect(codeOf(reply.json)).toBe(-32700);
    expect(reply.json).not.toHaveProperty('id');
    assertServerMessage(reply.json);
  });

  it.each([
    ['an array (batch)', JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }])],
    ['an empty array', '[]'],
    ['a number', '42'],
    ['a string', '"tools/list"'],
    ['null', 'null'],
    ['an empty object', '{}'],
    ['an object without method', JSON.stringify({ jsonrpc: '2.0', id: 1, params: { _meta: meta() } })],
    ['a request with jsonrpc 1.0', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'tools/list', params: { _meta: meta() } })],
    ['a request with id null', JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/list', params: { _meta: meta() } })],
  ])('%s is -32600 on 400', async (_name, body) => {
    const reply = await postBody(body);
    expect(reply.status).toBe(400);
    expect(codeOf(reply.json)).toBe(-32600);
    expect(reply.json).not.toHaveProperty('id', null);
    assertServerMessage(reply.json);
  });

  it('echoes the id of an invalid request when it can be read', async () => {
    const reply = await postBody(JSON.stringify({ jsonrpc: '2.0', id: 'bad-1', method: 7, params: { _meta: meta() } }));
    expect(codeOf(reply.json)).toBe(-32600);
    expect(reply.json?.id).toBe('bad-1');
  });

  it('rejects a JSON-RPC response posted by a client with 400', async () => {
    for (const body of [
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } }),
    ]) {
      const reply = await postBody(body);
      expect(reply.status).toBe(400);
      expect(reply.json).not.toHaveProperty('result');
      if (reply.json !== undefined) assertServerMessage(reply.json);
    }
  });

  it('accepts a notification with 202 and an empty body', async () => {
    const res = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
    });
    expect(res.status).toBe(202);
    // Framed by its length, not chunked (RFC 9112 §6.3): the client need not wait for a terminating chunk.
    expect(res.headers.get('content-length')).toBe('0');
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(await res.text()).toBe('');
  });
});

describe('old traffic (§12.6)', () => {
  it('ignores Mcp-Session-Id and Last-Event-ID, and neither mints nor echoes a session', async () => {
    const reply = await rpc(running.url, 'tools/list', undefined, { headers: { 'mcp-session-id': 'legacy-session-1', 'last-event-id': '42' } });
    expect(reply.status).toBe(200);
    expect(reply.response).toHaveProperty('result');
    expect(reply.headers.get('mcp-session-id')).toBeNull();
  });
});

describe('HTTP-level refusals', () => {
  it.each([['GET'], ['DELETE']])('answers %s with 405 and an Allow header naming POST', async (method) => {
    const res = await fetch(running.url, { method, headers: { accept: 'application/json, text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow') ?? '').toContain('POST');
    await res.arrayBuffer();
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['text/json-ish']])('answers Content-Type %s with 415', async (contentType) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } });
    const res = await fetch(running.url, { method: 'POST', headers: { ...standardHeaders('tools/list', undefined), 'content-type': contentType }, body });
    expect(res.status).toBe(415);
    await res.arrayBuffer();
  });

  it('accepts application/json with a charset parameter', async () => {
    const reply = await rpc(running.url, 'tools/list', undefined, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(reply.status).toBe(200);
  });
});

describe('maxBodyBytes', () => {
  /** A valid tools/list request padded (inside _meta) to exactly `size` bytes. */
  function requestOfSize(size: number): string {
    const base = (pad: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta({ 'com.example/pad': pad }) } });
    const pad = 'x'.repeat(size - Buffer.byteLength(base('')));
    const body = base(pad);
    expect(Buffer.byteLength(body)).toBe(size);
    return body;
  }

  it('serves a body of exactly the limit', async () => {
    const reply = await rpc(running.url, 'tools/list', undefined, { rawBody: requestOfSize(LIMIT) });
    expect(reply.status).toBe(200);
  });

  it('refuses a larger body announced by Content-Length with 413', async () => {
    const reply = await rawRequest(running.url, { headers: standardHeaders('tools/list', undefined), body: requestOfSize(LIMIT + 1) });
    expect(reply.status).toBe(413);
  });

  it('refuses a larger chunked body without Content-Length with 413', async () => {
    const chunks = Array.from({ length: 8 }, () => 'x'.repeat(1024));
    const headers = { ...standardHeaders('tools/list', undefined), 'Transfer-Encoding': 'chunked' };
    const reply = await rawRequest(running.url, { headers, body: chunks });
    expect(reply.status).toBe(413);
  });

  it('keeps serving after refusing a body', async () => {
    await rawRequest(running.url, { headers: standardHeaders('tools/list', undefined), body: Array.from({ length: 8 }, () => 'y'.repeat(1024)) });
    const reply = await rpc(running.url, 'tools/list');
    expect(reply.status).toBe(200);
  });
});

describe('handler failures', () => {
  it('turns a plain Error into -32603 with a generic message, logs the detail, and keeps serving', async () => {
    logCalls.length = 0;
    const reply = await rpc(running.url, 'tools/call', { name: 'explode' }, { id: 'boom-1' });
    const error = reply.response!.error as { code: number; message: string; data?: unknown };
    expect(error.code).toBe(-32603);
    expect(reply.response!.id).toBe('boom-1');
    // Nothing of the thrown message (or a stack) reaches the client.
    const wire = JSON.stringify(reply.response);
    expect(wire).not.toContain('hunter2');
    expect(wire).not.toContain('/srv/billing');
    expect(wire).not.toMatch(/\bat .+:\d+:\d+/);

    const logged = logCalls.map((c) => `${c.message} ${c.detail instanceof Error ? `${c.detail.message}\n${c.detail.stack ?? ''}` : String(c.detail)}`);
    expect(logged.some((line) => line.includes('hunter2'))).toBe(true);

    const next = await rpc(running.url, 'tools/call', { name: 'echo' });
    expect(next.status).toBe(200);
    expect(next.response).toHaveProperty('result');
  });

  it('answers -32603 when a result cannot be serialized, and keeps serving', async () => {
    let reply: Awaited<ReturnType<typeof rpc>>;
    try {
      reply = await rpc(running.url, 'tools/call', { name: 'unserializable' }, { id: 'ser-1', signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      throw new Error(`no response to a tool whose result JSON cannot carry (${String(error)})`);
    }
    expect(reply.response).toMatchObject({ id: 'ser-1', error: { code: -32603 } });
    const next = await rpc(running.url, 'tools/call', { name: 'echo' });
    expect(next.response).toHaveProperty('result');
  });

  it.each([[-32002], [-32042], [-32050], [-32099]])('never puts the reserved or removed code %i on the wire', async (code) => {
    const reply = await rpc(running.url, 'tools/call', { name: 'reserved-code', arguments: { code } });
    const error = reply.response!.error as { code: number };
    expect(error.code).not.toBe(code);
    expect(error.code <= -32023 && error.code >= -32099).toBe(false);
  });

  it('keeps code, message and data of an McpError with an application code', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'quota' }, { id: 77 });
    expect(reply.response).toMatchObject({
      id: 77,
      error: { code: 4291, message: 'Quota exceeded for this key', data: { retryAfterMs: 500, scope: 'key' } },
    });
  });

  it('keeps code, message and data of an McpError with a spec code', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'bad-args' });
    expect(reply.response!.error).toEqual({ code: -32602, message: 'Invalid params: widget must be blue', data: { field: 'widget' } });
  });
});
