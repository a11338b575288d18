/**
 * createNodeHandler when something before it already read the body (issue
 * 17): a body parser that leaves what it read on `req.body` (express.json(),
 * Next.js, body-parser) is served from it within the same `maxBodyBytes`; a
 * stream consumed without a trace is a 500 that says so, never a request
 * that hangs. And the `trace` option: every message received and sent,
 * SSE notifications included.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/index.js';
import type { JsonRpcMessage } from '../../src/protocol.js';
import { createNodeHandler, type NodeHandlerOptions, type WireDirection } from '../../src/node.js';
import { meta, rpc } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'bodies', version: '1.0.0' }, { logger: quietLogger() });
  server.tool('echo', { description: 'Says ok' }, () => 'ok');
  server.tool('steps', { description: 'Reports progress, then finishes' }, (_args, ctx) => {
    ctx.progress(1, { total: 2 });
    return 'done';
  });
  return server;
}

/** How the middleware before the handler treats the body. */
type Before = 'parse-json' | 'swallow';

/** Reads the whole body first, as a body parser does; `parse-json` keeps it on req.body. */
function readFirst(before: Before, next: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (before === 'parse-json') (req as IncomingMessage & { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      next(req, res);
    });
  };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
});

async function serve(before: Before, options: NodeHandlerOptions = {}): Promise<string> {
  const server = createServer(readFirst(before, createNodeHandler(buildServer(), { path: '/mcp', ...options })));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('createNodeHandler behind something that read the body', () => {
  it('serves the body a parser left on req.body', async () => {
    const url = await serve('parse-json');
    const reply = await rpc(url, 'tools/call', { name: 'echo', arguments: {} });
    expect(reply.status).toBe(200);
    expect(reply.response?.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'ok' }] });
  });

  it('holds maxBodyBytes for a body a parser read (413)', async () => {
    const url = await serve('parse-json', { maxBodyBytes: 512 });
    // Chunked, so no Content-Length precheck: only the size of what the parser read can refuse it.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta(), padding: 'x'.repeat(1024) } });
    const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(body)), c.close()) });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('Payload too large');
  });

  it('answers 500 saying why when the body was consumed and not kept, instead of hanging', async () => {
    const url = await serve('swallow');
    const reply = await rpc(url, 'tools/list', {}, { skipValidation: true });
    expect(reply.status).toBe(500);
    expect((reply.response?.error as { message: string }).message).toContain('The request body was read before the MCP endpoint and not kept');
  });
});

describe('the trace option', () => {
  it('sees each message received and sent, the SSE notification before the result included', async () => {
    const seen: [WireDirection, JsonRpcMessage][] = [];
    const server = createServer(createNodeHandler(buildServer(), { path: '/mcp', trace: (direction, message) => seen.push([direction, message]) }));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    await rpc(url, 'tools/call', { name: 'steps', arguments: {}, _meta: meta({ progressToken: 'p' }) }, { id: 7 });
    expect(seen.map(([direction, message]) => [direction, 'method' in message ? message.method : `response ${String(message.id)}`])).toEqual([
      ['in', 'tools/call'],
      ['out', 'notifications/progress'],
      ['out', 'response 7'],
    ]);
  });
});
