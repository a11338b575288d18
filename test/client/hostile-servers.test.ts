/**
 * The client against servers that are broken or out to exhaust it (issue 11).
 * Each case runs the client in a child process (helpers/client-probe.ts) with
 * a 1 MiB `maxResponseBytes`, and checks the typed error it ends with and
 * that the child's RSS and heap grew by no more than that limit plus a small
 * margin while the call ran — against servers that send 100 MiB bodies,
 * 200 MiB gzip bombs, SSE events and lines that never end. No timing is
 * asserted; every stream is bounded and every child stopped by PID.
 *
 * TESSERA_MEMORY_REPORT=1 prints what each child measured.
 */

import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stopAll } from '../helpers/child-processes.js';
import { growth, probe, type ProbePlan, type ProbeReport } from '../helpers/client-probe.js';
import {
  endlessSseEvent,
  endlessSseLine,
  gzipBomb,
  hugeJson,
  MiB,
  serveGzip,
  sse,
  startHostile,
  truncatedJson,
  type Behaviour,
  type HostileServer,
  type Json,
  WARM_UP_PATH,
} from '../helpers/hostile-http.js';

const LIMIT = 1 * MiB;
/** Room for what any call costs (socket buffers, the parser, the error): measured at 0–6 MiB; the replies would take 100s of MiB. */
const MARGIN = 10 * MiB;
const measured: Array<{ case: string; rss: number; heap: number; error: string }> = [];
const servers: HostileServer[] = [];

afterAll(async () => {
  stopAll();
  for (const server of servers) await server.close();
  if (process.env.TESSERA_MEMORY_REPORT) {
    const mib = (n: number): string => (n / MiB).toFixed(1);
    process.stdout.write(`\n${measured.map((m) => `${m.case}: RSS +${mib(m.rss)} MiB, heap +${mib(m.heap)} MiB, ${m.error}`).join('\n')}\n`);
  }
});

async function serve(behaviour: Behaviour): Promise<HostileServer> {
  const server = await startHostile(behaviour);
  servers.push(server);
  return server;
}

/** Runs the probe and checks the memory bound; returns its report. */
async function measure(label: string, plan: ProbePlan, options: { maxOldSpaceMb?: number } = {}): Promise<ProbeReport> {
  const warmUp = 'url' in plan.target ? { warmUp: WARM_UP_PATH } : {};
  const report = await probe({ ...warmUp, ...plan, client: { maxResponseBytes: LIMIT, requestTimeoutMs: 20_000, ...plan.client } }, options);
  expect(report.setupFailed, JSON.stringify(report.error)).toBeUndefined();
  const grew = growth(report);
  measured.push({ case: label, rss: grew.rss, heap: grew.heap, error: report.ok ? 'ok' : `${report.error!.name}: ${report.error!.message.slice(0, 90)}` });
  return report;
}

/** Runs the probe and checks the memory bound; returns its report. */
async function run(label: string, plan: ProbePlan, options: { maxOldSpaceMb?: number } = {}): Promise<ProbeReport> {
  const report = await measure(label, plan, options);
  const grew = growth(report);
  expect(grew.rss, `${label}: RSS grew by ${grew.rss} bytes`).toBeLessThan(LIMIT + MARGIN);
  expect(grew.heap, `${label}: heap grew by ${grew.heap} bytes`).toBeLessThan(LIMIT + MARGIN);
  return report;
}

const result = (message: Json | undefined, text = 'fine'): string =>
  JSON.stringify({ jsonrpc: '2.0', id: message?.id, result: { resultType: 'complete', content: [{ type: 'text', text }] } });

describe('replies larger than maxResponseBytes', () => {
  it('a 100 MiB JSON body: ResponseTooLargeError naming the limit, the download stopped', async () => {
    const server = await serve(hugeJson(100 * MiB));
    const report = await run('100 MiB JSON body', { target: { url: server.url } });
    expect(report.error).toMatchObject({ name: 'ResponseTooLargeError', limit: LIMIT });
    expect(report.error!.message).toContain(`maxResponseBytes (${LIMIT} bytes)`);
  });

  it('a Content-Length over the limit is refused before the body is read', async () => {
    const server = await serve((_req, res, message) => {
      const body = result(message, 'x'.repeat(2 * MiB));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
    const report = await run('declared 2 MiB JSON body', { target: { url: server.url } });
    expect(report.error).toMatchObject({ name: 'ResponseTooLargeError', limit: LIMIT });
  });

  it('a small gzip body that inflates to 200 MiB: counted after decompression', async () => {
    const bomb = await gzipBomb(200 * MiB);
    const server = await serve(serveGzip(bomb));
    expect(bomb(1).length).toBeLessThan(MiB);
    const report = await run('gzip bomb (200 MiB inflated)', { target: { url: server.url } });
    expect(report.error).toMatchObject({ name: 'ResponseTooLargeError', limit: LIMIT });
  });

  it('an SSE event that never ends (data lines, no blank line), with a 64 MiB heap', async () => {
    const server = await serve(endlessSseEvent(512 * MiB));
    const report = await run('endless SSE event', { target: { url: server.url } }, { maxOldSpaceMb: 64 });
    expect(report.error).toMatchObject({ name: 'ResponseTooLargeError', limit: LIMIT });
  });

  it('an SSE line that never ends, with a 64 MiB heap', async () => {
    const server = await serve(endlessSseLine(512 * MiB));
    const report = await run('endless SSE line', { target: { url: server.url } }, { maxOldSpaceMb: 64 });
    expect(report.error).toMatchObject({ name: 'ResponseTooLargeError', limit: LIMIT });
  });

  it('(control) with the limit raised to 64 MiB, a 32 MiB body is read whole, and the probe sees the memory it takes', async () => {
    const server = await serve(hugeJson(32 * MiB));
    const report = await measure('control: 32 MiB body under a 64 MiB limit', { target: { url: server.url }, client: { maxResponseBytes: 64 * MiB } });
    expect(report.ok).toBe(true);
    expect(growth(report).rss).toBeGreaterThan(32 * MiB);
  });

  it('a reply just under the limit is read', async () => {
    const server = await serve((_req, res, message) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(result(message, 'y'.repeat(LIMIT - 200)));
    });
    const report = await run('reply under the limit', { target: { url: server.url } });
    expect(report.ok).toBe(true);
  });
});

describe('every failure typed', () => {
  it('a body cut short (Content-Length larger than what arrives) is a TransportError with the cause, not a raw TypeError', async () => {
    const server = await serve(truncatedJson());
    const report = await run('truncated JSON body', { target: { url: server.url } });
    expect(report.error!.name).toBe('TransportError');
    expect(report.error!.message).toContain('cut short');
    expect(report.error!.cause).toBeDefined();
  });

  it('a 200 JSON body that is not JSON is a ProtocolViolationError with the SyntaxError as cause', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":'));
    const report = await run('JSON body that is not JSON', { target: { url: server.url } });
    expect(report.error).toMatchObject({ name: 'ProtocolViolationError', cause: { name: 'SyntaxError' } });
  });

  it('an SSE event that is not JSON is a ProtocolViolationError', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {not json\n\n'));
    const report = await run('SSE event that is not JSON', { target: { url: server.url } });
    expect(report.error).toMatchObject({ name: 'ProtocolViolationError', cause: { name: 'SyntaxError' } });
  });

  it('a stream reset every time, past the re-issue limit, is a TransportError with the cause', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': opening\n\n', () => res.destroy());
    });
    const report = await run('SSE stream reset', { target: { url: server.url } });
    expect(report.error!.name).toBe('TransportError');
    // The first attempt and two re-issues (the default reissueLimit), each a new request with a new id.
    const ids = server.received.map((r) => r.message?.id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });
});

describe('one timeout for the whole request', () => {
  it('re-issued SSE attempts share requestTimeoutMs: RequestTimeoutError, not one fresh timeout per attempt', async () => {
    // Each attempt's stream breaks after 150 ms: with a limit per attempt, 20 re-issues would all fit and end in a TransportError.
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': working\n\n');
      setTimeout(() => res.destroy(), 150);
    });
    const report = await run('re-issued SSE attempts', { target: { url: server.url }, client: { requestTimeoutMs: 400 }, http: { reissueLimit: 20 } });
    expect(report.error!.name).toBe('RequestTimeoutError');
    expect(report.error!.message).toContain('400 ms');
    expect(server.received.length).toBeLessThan(21);
  });
});

describe('no credentials across origins', () => {
  it('a 307 to another origin is not followed: TransportError, and the other origin receives nothing', async () => {
    const elsewhere = await serve((_req, res, message) => res.writeHead(200, { 'content-type': 'application/json' }).end(result(message)));
    const server = await serve((_req, res) => res.writeHead(307, { location: `${elsewhere.origin}/steal` }).end());
    const report = await run('307 to another origin', { target: { url: server.url }, http: { headers: { 'x-api-key': 'secret-key' } } });
    expect(report.error!.name).toBe('TransportError');
    expect(report.error!.message).toContain('another origin');
    expect(elsewhere.received).toHaveLength(0);
  });

  it('a 307 within the origin is followed with the same headers and body', async () => {
    const server = await serve((req, res, message) => {
      if (req.url === '/mcp') res.writeHead(307, { location: '/mcp/v2' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(result(message, 'moved'));
    });
    const report = await run('307 within the origin', { target: { url: server.url }, http: { headers: { 'x-api-key': 'secret-key' } } });
    expect(report.ok).toBe(true);
    expect(server.received.map((r) => r.url)).toEqual(['/mcp', '/mcp/v2']);
    expect(server.received[1]!.headers['x-api-key']).toBe('secret-key');
    expect(server.received[1]!.body).toBe(server.received[0]!.body);
  });

  it('a 302 (which would turn the POST into a GET) is not followed', async () => {
    const server = await serve((req, res, message) => {
      if (req.url === '/mcp') res.writeHead(302, { location: '/other' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(result(message));
    });
    const report = await run('302 on POST', { target: { url: server.url } });
    expect(report.error!.name).toBe('TransportError');
    expect(server.received).toHaveLength(1);
  });
});

describe('era-correct behaviour (2026-07-28)', () => {
  it('requests a 2026-07-28 server pushes on the SSE stream are not answered, not shown to the handlers, and warned about', async () => {
    const server = await serve((_req, res, message) => {
      if (message?.method !== 'tools/call') return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        sse([
          { jsonrpc: '2.0', id: 'srv-1', method: 'elicitation/create', params: { mode: 'form', message: 'Pushed question', requestedSchema: { type: 'object', properties: {} } } },
          { jsonrpc: '2.0', id: 'srv-2', method: 'roots/list', params: {} },
          { jsonrpc: '2.0', id: 'srv-3', method: 'ping', params: {} },
          JSON.parse(result(message, 'answered anyway')) as Json,
        ]),
      );
    });
    const report = await run('server requests over SSE', { target: { url: server.url }, handlers: true });
    expect(report.ok).toBe(true);
    expect(report.handled).toEqual([]);
    // Nothing but the call reached the server: no response was POSTed.
    expect(server.received.map((r) => r.message?.method)).toEqual(['tools/call']);
    expect(report.warnings).toEqual([
      expect.stringContaining('elicitation/create'),
      expect.stringContaining('roots/list'),
      expect.stringContaining('ping'),
    ]);
  });

  it('requests a 2026-07-28 server writes on stdio are not answered either', async () => {
    const server = fileURLToPath(new URL('../helpers/pushy-stdio-server.mjs', import.meta.url));
    const report = await run('server requests over stdio', { target: { command: process.execPath, args: [server] }, handlers: true });
    expect(report.ok).toBe(true);
    expect(report.handled).toEqual([]);
    const received = report.serverStderr
      .split('\n')
      .filter((line) => line.startsWith('RECV '))
      .map((line) => JSON.parse(line.slice(5)) as Json);
    // The client wrote its request and nothing that answers the server's ids.
    expect(received.map((m) => m.method)).toEqual(['tools/call']);
    expect(received.some((m) => ['srv-1', 'srv-2', 'srv-3'].includes(m.id))).toBe(false);
    expect(report.warnings).toHaveLength(3);
  });

  it.each([
    ['the id of another request', (id: number) => id + 1],
    ['the id as a string ("5" for 5)', (id: number) => String(id)],
  ])('a JSON reply carrying %s is a ProtocolViolationError', async (label, idFor) => {
    const server = await serve((_req, res, message) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: idFor(message!.id as number), result: { content: [] } }));
    });
    const report = await run(`JSON reply with ${label}`, { target: { url: server.url } });
    expect(report.error!.name).toBe('ProtocolViolationError');
  });

  it('an SSE stream carrying the response for another id is a ProtocolViolationError', async () => {
    const server = await serve((_req, res, message) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse([{ jsonrpc: '2.0', id: `${String(message!.id)}`, result: { content: [] } }]));
    });
    const report = await run('SSE response for another id', { target: { url: server.url } });
    expect(report.error!.name).toBe('ProtocolViolationError');
  });
});

describe('media types compared case-insensitively', () => {
  it.each([
    ['Text/Event-Stream; Charset=UTF-8', (message: Json | undefined) => sse([JSON.parse(result(message, 'sse ok')) as Json])],
    ['Application/JSON; charset=utf-8', (message: Json | undefined) => result(message, 'json ok')],
  ])('%s is read', async (type, body) => {
    const server = await serve((_req, res, message) => res.writeHead(200, { 'content-type': type }).end(body(message)));
    const report = await run(`Content-Type ${type}`, { target: { url: server.url } });
    expect(report.ok).toBe(true);
  });
});
