/**
 * What serveHttp does for a browser and against slow clients (issue 18):
 * opt-in CORS (preflights, the MCP headers allowed and exposed, working with
 * the Host/Origin guard, the metadata route readable cross-origin), deliberate
 * timeouts for slow clients, and loopback names kept when public host names
 * are configured on a loopback interface.
 */

import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, standardHeaders } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';

const PAGE = 'http://app.example.test:5173';
let cors: RunningHttpServer;
let slow: RunningHttpServer;
let named: RunningHttpServer;

function server(): McpServer {
  const s = new McpServer({ name: 'defaults', version: '1.0.0' }, { logger: quietLogger() });
  s.tool('echo', {}, () => 'hi');
  return s;
}

beforeAll(async () => {
  cors = await serveHttp(server(), { port: 0, cors: { origins: [PAGE] } });
  slow = await serveHttp(server(), { port: 0, timeouts: { headersMs: 300, requestMs: 600 } });
  named = await serveHttp(server(), { port: 0, allowedHosts: ['mcp.example.com'] });
});

afterAll(async () => {
  await Promise.all([cors.close(), slow.close(), named.close()]);
});

describe('CORS (opt in)', () => {
  it('answers a preflight from an allowed page with the MCP headers it asked for', async () => {
    const res = await fetch(cors.url, {
      method: 'OPTIONS',
      headers: { origin: PAGE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, authorization, last-event-id' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toContain('mcp-param-region');
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('refuses a preflight from another page, or for a header it does not allow', async () => {
    const other = await fetch(cors.url, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const header = await fetch(cors.url, { method: 'OPTIONS', headers: { origin: PAGE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-secret' } });
    expect(header.status).toBe(403);
  });

  it("lets the allowed page past the Origin check, and exposes the MCP response headers; another origin gets 403", async () => {
    const ok = await rpc(cors.url, 'tools/call', { name: 'echo' }, { headers: { origin: PAGE } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(ok.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    const evil = await fetch(cors.url, { method: 'POST', headers: { ...standardHeaders('tools/list', { _meta: meta() }), origin: 'http://evil.example' }, body: '{}' });
    expect(evil.status).toBe(403);
  });

  it('without the option, OPTIONS is 405, and a page of another host is refused by the Origin check', async () => {
    expect((await fetch(slow.url, { method: 'OPTIONS' })).status).toBe(405);
    expect((await fetch(slow.url, { method: 'OPTIONS', headers: { origin: PAGE } })).status).toBe(403);
  });
});

describe('timeouts for slow clients', () => {
  it('closes a connection whose request headers never finish (headersMs)', async () => {
    const url = new URL(slow.url);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('connect', () => socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n`));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
  });
});

describe('allowedHosts on a loopback interface', () => {
  /** A POST with the Host header given (fetch would not let a test set it). */
  function postWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
    const target = new URL(url);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } });
    return new Promise((resolve, reject) => {
      const req = request(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...standardHeaders('tools/list', { _meta: meta() }), host, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('keeps the loopback names (the printed URL works) beside the public ones, and names them in the 403', async () => {
    expect((await rpc(named.url, 'tools/call', { name: 'echo' })).status).toBe(200);
    expect((await postWithHost(named.url, 'mcp.example.com')).status).toBe(200);
    const other = await postWithHost(named.url, 'evil.example');
    expect(other.status).toBe(403);
    expect(other.body).toContain('mcp.example.com');
  });
});
