/**
 * Tessera's Client against servers of either era (spec §16.1, §16.2, §16.5):
 *
 * - era 'auto' finds the era by itself: modern against a Tessera server (HTTP,
 *   stdio); legacy against a 2025-only server — the official SDK v2 server
 *   with a sessionful 2025 transport (HTTP), a scripted 2025 HTTP server, and a
 *   scripted stdio child that never answers `server/discover` (falls back after
 *   `probeTimeoutMs`) or answers it with a non-2026 error; a recognised 2026
 *   error never makes it fall back;
 * - pinned eras are respected;
 * - against a 2025 server it answers the server's elicitation/create,
 *   sampling/createMessage, roots/list and ping requests with its handlers
 *   (on a tool call's stream and on the standalone GET stream), sends
 *   notifications/initialized, keeps Mcp-Session-Id and MCP-Protocol-Version
 *   on every later request, sends DELETE on close, and resumes a broken SSE
 *   response with GET + Last-Event-ID.
 *
 * Real HTTP on 127.0.0.1 and real child processes (stopped by PID).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpError, McpServer } from '../../src/index.js';
import { Client, type ClientOptions } from '../../src/client.js';
import { type RunningHttpServer } from '../../src/node.js';
import { StdioClientTransport } from '../../src/stdio.js';
import { startHttp } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';
import { startScriptedHttp } from '../helpers/scripted-http.js';
import { PRIMING_EVENT_ID, SCRIPTED_SESSION_ID, startScriptedLegacyHttp, type ScriptedLegacyHttp } from '../helpers/scripted-legacy-http.js';
import { compiledFixture, ROOT, startHttpFixture, stopAll, trackPid } from '../helpers/child-processes.js';
import { assertClientMessage2025 } from '../helpers/wire-schema-2025.js';

const EXPECTED = 'Hello Ada, your favourite color is teal.';
const ANSWERS: Record<string, string> = { name: 'Ada', color: 'teal' };

type Json = Record<string, any>;

/* ---------------- processes and clients, cleaned up by PID ---------------- */

const clients: Client[] = [];

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  stopAll();
});

function stdioTransport(fixture: string, args: string[] = []): StdioClientTransport {
  const transport = new StdioClientTransport({ command: process.execPath, args: [compiledFixture(fixture), ...args], cwd: ROOT, stderr: 'ignore' });
  trackPid(transport.process.pid);
  return transport;
}

/* ---------------- recording what the client sends over HTTP ---------------- */

interface SentHttp {
  method: string;
  headers: Record<string, string>;
  body: Json | undefined;
  status: number;
  responseHeaders: Headers;
}

function recordingFetch(sent: SentHttp[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    let body: Json | undefined;
    try {
      body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Json) : undefined;
    } catch {
      body = undefined;
    }
    sent.push({ method: init?.method ?? 'GET', headers: Object.fromEntries(new Headers(init?.headers)), body, status: res.status, responseHeaders: res.headers });
    return res;
  };
}

/* ---------------- handlers ---------------- */

interface Asked {
  method: string;
  params: unknown;
}

function handlers(asked: Asked[]): ClientOptions {
  return {
    elicitation: {
      form: (params) => {
        asked.push({ method: 'elicitation/create', params });
        const properties = Object.keys((params.requestedSchema?.properties ?? {}) as Json);
        return { action: 'accept', content: Object.fromEntries(properties.map((p) => [p, ANSWERS[p] ?? '?'])) };
      },
    },
    sampling: (params) => {
      asked.push({ method: 'sampling/createMessage', params });
      return { role: 'assistant', content: { type: 'text', text: 'hi from the model' }, model: 'test-model', stopReason: 'endTurn' };
    },
    roots: () => {
      asked.push({ method: 'roots/list', params: undefined });
      return [{ uri: 'file:///work/project', name: 'project' }];
    },
  };
}

function newClient(options: ClientOptions): Client {
  const client = new Client({ name: 'era-test-client', version: '1.0.0' }, options);
  clients.push(client);
  return client;
}

function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

/** A Tessera server (dual-era by default) with echo and a tool that asks twice. */
function tesseraServer(): McpServer {
  const server = new McpServer({ name: 'tessera-era-target', version: '1.0.0' }, { logger: quietLogger(), state: { keys: generateStateKey() } });
  server.tool('echo', { description: 'Returns its text', input: z.object({ text: z.string() }) }, ({ text }) => text);
  server.tool('profile', { description: 'Asks twice', input: z.object({ greeting: z.string() }) }, async ({ greeting }, ctx) => {
    const who = await ctx.ask(ask.form('What is your name?', z.object({ name: z.string() })));
    const colour = await ctx.ask(ask.form('What is your favourite color?', z.object({ color: z.string() })));
    if (who.action !== 'accept' || colour.action !== 'accept') return 'declined';
    return `${greeting} ${who.content.name}, your favourite color is ${colour.content.color}.`;
  });
  return server;
}

/* ---------------- era 'auto' ---------------- */

describe("era 'auto' against a Tessera (2026-07-28) server", () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    running = await startHttp(tesseraServer());
  });
  afterAll(async () => {
    await running.close();
  });

  it('over HTTP: picks modern after one 2026 request; never sends initialize', async () => {
    const sent: SentHttp[] = [];
    const client = newClient({ era: 'auto', ...handlers([]) });
    await client.connect(running.url, { fetch: recordingFetch(sent) });
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(sent[0]!.body?.method).toBe('server/discover');
    expect(sent[0]!.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(sent[0]!.body?.params?._meta?.['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(textOf(await client.callTool('profile', { greeting: 'Hello' }))).toBe(EXPECTED);
    expect(sent.some((s) => s.body?.method === 'initialize')).toBe(false);
    expect(sent.some((s) => s.method === 'GET')).toBe(false);
  });

  it('over stdio: picks modern (the server/discover probe is answered)', async () => {
    const client = newClient({ era: 'auto', probeTimeoutMs: 5_000, ...handlers([]) });
    await client.connect(stdioTransport('tessera-interop-server', ['--stdio']));
    expect(client.era).toBe('modern');
    expect(textOf(await client.callTool('echo', { text: 'stdio modern' }))).toBe('stdio modern');
    await client.close();
  });
});

describe("era 'auto' against 2025-only servers", () => {
  it('official SDK v2 server with a sessionful 2025 transport (HTTP): falls back to initialize; the tool that asks twice works', async () => {
    const { url } = await startHttpFixture('official-sdk-legacy-server');
    const sent: SentHttp[] = [];
    const asked: Asked[] = [];
    const client = newClient({ era: 'auto', ...handlers(asked) });
    await client.connect(url, { fetch: recordingFetch(sent) });
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.server).toEqual({ name: 'official-sdk-legacy', version: '0.1.0' });

    // The probe was refused with a 4xx that carries no recognised 2026 error; then the handshake.
    expect(sent[0]!.body?.method).toBe('server/discover');
    expect(sent[0]!.status).toBeGreaterThanOrEqual(400);
    const init = sent.find((s) => s.body?.method === 'initialize')!;
    expect(init).toBeDefined();
    const sessionId = init.responseHeaders.get('mcp-session-id');
    expect(sessionId).toBeTruthy();

    expect(textOf(await client.callTool('profile', { greeting: 'Hello' }))).toBe(EXPECTED);
    expect(asked.map((a) => (a.params as Json).message)).toEqual(['What is your name?', 'What is your favourite color?']);

    // After close the real 2025 server no longer knows the session: the client sent DELETE.
    await client.close();
    const del = sent.find((s) => s.method === 'DELETE');
    expect(del?.headers['mcp-session-id']).toBe(sessionId);
    const after = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
    });
    await after.arrayBuffer();
    expect(after.status).toBe(404);
  });

  it('scripted stdio child that never answers server/discover: falls back to initialize after probeTimeoutMs', async () => {
    const client = newClient({ era: 'auto', probeTimeoutMs: 300, ...handlers([]) });
    await client.connect(stdioTransport('legacy-stdio-peer', ['--discover=silent']));
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    const received = JSON.parse(textOf(await client.callTool('report', {}))) as Json[];
    const methods = received.map((m) => m.method);
    expect(methods.indexOf('server/discover')).toBe(0);
    expect(methods.indexOf('initialize')).toBeGreaterThan(0);
    expect(methods.indexOf('notifications/initialized')).toBeGreaterThan(methods.indexOf('initialize'));
    expect(methods.indexOf('tools/call')).toBeGreaterThan(methods.indexOf('notifications/initialized'));
    // 2025-era requests carry no 2026 _meta.
    const init = received.find((m) => m.method === 'initialize')!;
    expect(init.params).toMatchObject({ protocolVersion: '2025-11-25', clientInfo: { name: 'era-test-client', version: '1.0.0' } });
    expect(init.params).not.toHaveProperty('_meta');
    for (const m of received.slice(methods.indexOf('initialize'))) assertClientMessage2025(m);
    await client.close();
  });

  it('scripted stdio child that answers server/discover with -32601: falls back to initialize', async () => {
    const client = newClient({ era: 'auto', probeTimeoutMs: 5_000, ...handlers([]) });
    await client.connect(stdioTransport('legacy-stdio-peer', ['--discover=error']));
    expect(client.era).toBe('legacy');
    expect(textOf(await client.callTool('echo', { text: 'old friend' }))).toBe('old friend');
    await client.close();
  });

  it('scripted 2025 HTTP server (400 with a non-2026 error body): falls back to initialize', async () => {
    const server = await startScriptedLegacyHttp();
    try {
      const client = newClient({ era: 'auto', ...handlers([]) });
      await client.connect(server.url);
      expect(client.era).toBe('legacy');
      expect(server.seen[0]!.message?.method).toBe('server/discover');
      expect(server.seen[1]!.message?.method).toBe('initialize');
      await client.close();
    } finally {
      await server.close();
    }
  });
});

describe("era 'auto' never falls back on a recognised 2026 error (HTTP 400 body)", () => {
  it.each([
    ['-32020 HeaderMismatch', { code: -32020, message: 'Header mismatch' }],
    ['-32022 UnsupportedProtocolVersion (only 2026 versions listed)', { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2026-07-28' } }],
  ])('%s: no initialize is sent', async (_label, error) => {
    const server = await startScriptedHttp(() => ({ error, status: 400 }));
    try {
      const client = newClient({ era: 'auto' });
      const outcome = await client.connect(server.url).then(
        () => 'connected',
        (e: unknown) => e,
      );
      expect(server.messages().map((m) => m?.method)).not.toContain('initialize');
      expect(client.era).toBe('modern');
      if (outcome !== 'connected') expect(outcome).toBeInstanceOf(McpError);
    } finally {
      await server.close();
    }
  });
});

/* ---------------- pinned eras ---------------- */

describe('pinned eras are respected', () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    running = await startHttp(tesseraServer());
  });
  afterAll(async () => {
    await running.close();
  });

  it("era 'legacy' against the dual-era Tessera server: initialize first, no probe, 2025 requests without 2026 _meta or headers", async () => {
    const sent: SentHttp[] = [];
    const asked: Asked[] = [];
    const client = newClient({ era: 'legacy', ...handlers(asked) });
    await client.connect(running.url, { fetch: recordingFetch(sent) });
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(sent[0]!.body?.method).toBe('initialize');
    expect(textOf(await client.callTool('profile', { greeting: 'Hello' }))).toBe(EXPECTED);
    expect(asked).toHaveLength(2);
    expect(sent.some((s) => s.body?.method === 'server/discover')).toBe(false);
    const call = sent.find((s) => s.body?.method === 'tools/call')!;
    expect(call.body?.params?._meta ?? {}).not.toHaveProperty('io.modelcontextprotocol/protocolVersion');
    expect(call.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(call.headers['mcp-session-id']).toBe(sent[0]!.responseHeaders.get('mcp-session-id'));
    await client.close();
  });

  it("era 'legacy' against a stdio child: initialize first, no server/discover probe", async () => {
    const client = newClient({ era: 'legacy', ...handlers([]) });
    await client.connect(stdioTransport('legacy-stdio-peer', ['--discover=silent']));
    expect(client.era).toBe('legacy');
    const received = JSON.parse(textOf(await client.callTool('report', {}))) as Json[];
    expect(received[0]!.method).toBe('initialize');
    expect(received.map((m) => m.method)).not.toContain('server/discover');
    await client.close();
  });

  it("era 'modern' against a 2025-only HTTP server: never sends initialize; the call fails", async () => {
    const server = await startScriptedLegacyHttp();
    try {
      const client = newClient({ era: 'modern' });
      await client.connect(server.url);
      await expect(client.callTool('echo', { text: 'x' })).rejects.toThrow();
      expect(client.era).toBe('modern');
      expect(server.seen.map((s) => s.message?.method)).not.toContain('initialize');
      expect(server.seen.every((s) => s.headers['mcp-protocol-version'] === '2026-07-28')).toBe(true);
      await client.close();
    } finally {
      await server.close();
    }
  });
});

describe('a 2025 session that the server no longer knows (HTTP 404)', () => {
  it('the client starts a new session with a new initialize, without the old session id (2025-11-25 transports: MUST)', async () => {
    const running = await startHttp(tesseraServer());
    try {
      const sent: SentHttp[] = [];
      const client = newClient({ era: 'legacy', ...handlers([]) });
      await client.connect(running.url, { fetch: recordingFetch(sent) });
      const first = sent.find((s) => s.body?.method === 'initialize')!.responseHeaders.get('mcp-session-id')!;
      expect(first).toBeTruthy();
      // The session ends on the server side (as after a restart, or on another instance).
      const del = await fetch(running.url, { method: 'DELETE', headers: { 'mcp-session-id': first, 'mcp-protocol-version': '2025-11-25' } });
      await del.arrayBuffer();
      expect(del.ok).toBe(true);

      const firstTry = await client.callTool('echo', { text: 'after 404' }).then(
        (r) => textOf(r),
        (e: unknown) => e,
      );
      const secondTry = firstTry === 'after 404' ? firstTry : textOf(await client.callTool('echo', { text: 'after 404' }));
      const got404 = sent.findIndex((s) => s.status === 404 && s.headers['mcp-session-id'] === first);
      expect(got404, 'the server answered 404 for the ended session').toBeGreaterThanOrEqual(0);
      const reinit = sent.slice(got404 + 1).find((s) => s.body?.method === 'initialize');
      expect(reinit, `a new initialize after the 404 (first try: ${String(firstTry)})`).toBeDefined();
      expect(reinit!.headers).not.toHaveProperty('mcp-session-id');
      expect(secondTry).toBe('after 404');
      await client.close();
    } finally {
      await running.close();
    }
  });
});

describe('cancelling a 2025-era HTTP request', () => {
  it('sends notifications/cancelled for it (2025-11-25: disconnecting is not cancelling)', async () => {
    const server = await startScriptedLegacyHttp();
    try {
      const client = newClient({ era: 'legacy' });
      await client.connect(server.url);
      const controller = new AbortController();
      const call = client.callTool('hang', {}, { signal: controller.signal });
      const sentCall = await server.waitFor('the tools/call', (s) => s.message?.method === 'tools/call');
      controller.abort();
      await expect(call).rejects.toThrow();
      const cancelled = await server.waitFor('notifications/cancelled', (s) => s.message?.method === 'notifications/cancelled', 5_000);
      expect(cancelled.message!.params?.requestId).toBe(sentCall.message!.id);
      expect(cancelled.headers['mcp-session-id']).toBe(SCRIPTED_SESSION_ID);
      await client.close();
    } finally {
      await server.close();
    }
  });
});

/* ---------------- a 2025 server: sessions, server requests, resumption ---------------- */

describe('against a scripted 2025-11-25 HTTP server', () => {
  let server: ScriptedLegacyHttp;
  let client: Client;
  const asked: Asked[] = [];
  let initIndex = -1;

  beforeAll(async () => {
    server = await startScriptedLegacyHttp();
    client = newClient({ era: 'auto', ...handlers(asked) });
    await client.connect(server.url);
    initIndex = server.seen.findIndex((s) => s.message?.method === 'initialize');
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('initialize declares legacy-shaped capabilities from the handlers, with clientInfo and no _meta', () => {
    const init = server.seen[initIndex]!.message!;
    assertClientMessage2025(init);
    expect(init.params.protocolVersion).toBe('2025-11-25');
    expect(init.params.capabilities).toMatchObject({ elicitation: {}, sampling: {}, roots: {} });
    expect(init.params.capabilities).not.toHaveProperty('extensions');
    expect(init.params.clientInfo).toEqual({ name: 'era-test-client', version: '1.0.0' });
    expect(init.params).not.toHaveProperty('_meta');
  });

  it('sends notifications/initialized right after initialize, in the session', () => {
    const next = server.seen[initIndex + 1]!;
    expect(next.method).toBe('POST');
    expect(next.message).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(next.headers['mcp-session-id']).toBe(SCRIPTED_SESSION_ID);
  });

  it('answers elicitation/create, sampling/createMessage, roots/list and ping from a tool call stream with its handlers', async () => {
    const result = await client.callTool('ask-all', {});
    const answers = JSON.parse(textOf(result)) as Record<string, Json>;
    expect(answers['elicitation/create']).toEqual({ jsonrpc: '2.0', id: 's-1', result: { action: 'accept', content: { name: 'Ada' } } });
    expect(answers['sampling/createMessage']).toMatchObject({ jsonrpc: '2.0', id: 's-2', result: { role: 'assistant', content: { type: 'text', text: 'hi from the model' }, model: 'test-model' } });
    expect(answers['roots/list']).toEqual({ jsonrpc: '2.0', id: 's-3', result: { roots: [{ uri: 'file:///work/project', name: 'project' }] } });
    expect(answers['ping']).toEqual({ jsonrpc: '2.0', id: 's-4', result: {} });
    for (const [method, message] of Object.entries(answers)) assertClientMessage2025(message, method);
    expect(asked.map((a) => a.method).sort()).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    expect(asked.find((a) => a.method === 'elicitation/create')!.params).toMatchObject({ message: 'Your name?' });
    expect(asked.find((a) => a.method === 'sampling/createMessage')!.params).toMatchObject({ maxTokens: 50 });
  });

  it('opens the standalone GET stream in the session and answers a ping the server sends on it', async () => {
    const get = await server.waitFor('the standalone GET', (s) => s.method === 'GET' && s.headers['last-event-id'] === undefined);
    expect(get.headers.accept).toContain('text/event-stream');
    const answer = await server.waitFor('the answer to get-ping', (s) => s.message?.id === 'get-ping' && 'result' in s.message);
    expect(answer.message).toEqual({ jsonrpc: '2.0', id: 'get-ping', result: {} });
  });

  it('resumes a POST stream that ended before its response: GET with Last-Event-ID after the retry delay', async () => {
    const result = await client.callTool('resume-me', {});
    expect(textOf(result)).toBe('resumed result');
    const resume = server.seen.find((s) => s.method === 'GET' && s.headers['last-event-id'] !== undefined);
    expect(resume, 'a GET carrying Last-Event-ID').toBeDefined();
    expect(resume!.headers['last-event-id']).toBe(PRIMING_EVENT_ID);
    expect(resume!.headers['mcp-session-id']).toBe(SCRIPTED_SESSION_ID);
    // Resuming is not re-sending: the tool was called once.
    expect(server.seen.filter((s) => s.message?.method === 'tools/call' && s.message.params?.name === 'resume-me')).toHaveLength(1);
  });

  it('sends DELETE with the session id on close; every request after initialize carried Mcp-Session-Id and MCP-Protocol-Version', async () => {
    await client.close();
    const del = server.seen.find((s) => s.method === 'DELETE');
    expect(del, 'a DELETE').toBeDefined();
    expect(del!.headers['mcp-session-id']).toBe(SCRIPTED_SESSION_ID);
    const later = server.seen.slice(initIndex + 1);
    expect(later.length).toBeGreaterThan(5);
    for (const s of later) {
      expect(s.headers['mcp-session-id'], `${s.method} ${JSON.stringify(s.message)}`).toBe(SCRIPTED_SESSION_ID);
      expect(s.headers['mcp-protocol-version'], `${s.method} ${JSON.stringify(s.message)}`).toBe('2025-11-25');
    }
  });
});

describe('against a scripted 2025-11-25 stdio server', () => {
  it('answers elicitation/create, sampling/createMessage, roots/list and ping on stdout with its handlers', async () => {
    const asked: Asked[] = [];
    const client = newClient({ era: 'auto', probeTimeoutMs: 5_000, ...handlers(asked) });
    await client.connect(stdioTransport('legacy-stdio-peer', ['--discover=error']));
    expect(client.era).toBe('legacy');
    const answers = JSON.parse(textOf(await client.callTool('ask-all', {}))) as Record<string, Json>;
    expect(answers['elicitation/create']).toEqual({ jsonrpc: '2.0', id: 'srv-1', result: { action: 'accept', content: { name: 'Ada' } } });
    expect(answers['sampling/createMessage']).toMatchObject({ id: 'srv-2', result: { role: 'assistant', model: 'test-model' } });
    expect(answers['roots/list']).toEqual({ jsonrpc: '2.0', id: 'srv-3', result: { roots: [{ uri: 'file:///work/project', name: 'project' }] } });
    expect(answers['ping']).toEqual({ jsonrpc: '2.0', id: 'srv-4', result: {} });
    for (const [method, message] of Object.entries(answers)) assertClientMessage2025(message, method);
    expect(asked.map((a) => a.method).sort()).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);

    const received = JSON.parse(textOf(await client.callTool('report', {}))) as Json[];
    const methods = received.map((m) => m.method);
    expect(methods.indexOf('notifications/initialized')).toBe(methods.indexOf('initialize') + 1);
    await client.close();
  });
});
