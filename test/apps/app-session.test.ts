/**
 * The host half of the app protocol (SEP-1865), without a browser: an
 * AppSession between a scripted app (the messages it posts, what it gets) and
 * a real Tessera server reached through a real Client. The lifecycle
 * (`ui/initialize`, nothing sent before `ui/notifications/initialized`), the
 * proxied `tools/call` with visibility enforced (and a tool that asks,
 * answered by the Client's handler), `resources/read`, `tools/list`, the
 * host's handlers, and what a hostile or broken app gets: precise errors,
 * never a crash; teardown that waits a bounded time and stops everything.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, createLinkPair, generateStateKey, McpServer, serveLink } from '../../src/index.js';
import type { JsonRpcMessage } from '../../src/protocol.js';
import { Client, LinkClientTransport, type Tool } from '../../src/client.js';
import { apps, registerApp } from '../../src/apps.js';
import { appsCapabilities } from '../../src/apps-host.js';
import { AppSession, type AppSessionOptions, type ServerAccess } from '../../src/apps/host/app-session.js';
import { deferred } from '../helpers/deferred.js';
import { quietLogger } from '../helpers/results.js';

const PAGE = '<!doctype html><p>app</p>';
const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

interface Harness {
  session: AppSession;
  /** What the host posted to the app. */
  posted: JsonRpcMessage[];
  warnings: string[];
  called: string[];
  /** Sends the app's message and waits until the host has answered it (for requests). */
  request(method: string, params?: Record<string, unknown>, id?: string | number): Promise<Record<string, unknown>>;
  notify(method: string, params?: Record<string, unknown>): void;
  tool: Tool;
}

let nextId = 1;

/** The slow tool's steps: entered, and aborted (by the client's cancellation). */
let slow = { entered: deferred(), aborted: deferred() };

async function harness(options: Partial<AppSessionOptions> = {}): Promise<Harness> {
  const called: string[] = [];
  slow = { entered: deferred(), aborted: deferred() };
  const server = new McpServer({ name: 'session-test', version: '1.0.0' }, { logger: quietLogger(), extensions: [apps()], state: { keys: generateStateKey('session') } });
  registerApp(server, { uri: 'ui://board', name: 'board', html: PAGE })
    .tool('show', { input: z.object({ team: z.string() }) }, ({ team }) => (called.push('show'), `board of ${team}`))
    .tool('refresh', { visibility: ['app'] }, () => (called.push('refresh'), 'refreshed'))
    .tool('audit', { visibility: ['model'] }, () => (called.push('audit'), 'audited'))
    .tool('confirm', { visibility: ['app'] }, async (_args, ctx) => {
      const answer = await ctx.ask(ask.form('Sure?', z.object({ sure: z.boolean() })));
      return answer.action === 'accept' && answer.content.sure ? 'confirmed' : 'not confirmed';
    })
    .tool('slow', { visibility: ['app'] }, async (_args, ctx) => {
      slow.entered.resolve();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      slow.aborted.resolve();
      return 'never';
    });
  const [serverEnd, clientEnd] = createLinkPair();
  serveLink(server, serverEnd);
  const client = new Client(
    { name: 'host', version: '2.0.0' },
    { capabilities: appsCapabilities(), elicitation: { form: async (params) => ({ action: 'accept', content: { sure: params.message === 'Sure?' } }) } },
  );
  await client.connect(new LinkClientTransport(clientEnd, 'memory'));
  clients.push(client);
  const tools = await client.listAllTools();
  const access: ServerAccess = {
    tools: async () => tools,
    callTool: (name, args, signal) => client.callTool(name, args, { signal }),
    readResource: (uri, signal) => client.readResource(uri, { signal }),
  };
  const posted: JsonRpcMessage[] = [];
  const warnings: string[] = [];
  const answered = new Map<string | number, (message: Record<string, unknown>) => void>();
  const tool = tools.find((t) => t.name === 'show')!;
  const session = new AppSession({
    tool,
    hostInfo: { name: 'test-host', version: '1.0.0' },
    csp: { connectDomains: ['https://api.example.com'] },
    server: access,
    warn: (message) => warnings.push(message),
    post: (message) => {
      posted.push(message);
      const id = (message as { id?: string | number }).id;
      if (id !== undefined && !('method' in message)) answered.get(id)?.(message as unknown as Record<string, unknown>);
    },
    ...options,
  });
  return {
    session,
    posted,
    warnings,
    called,
    tool,
    request: (method, params, id = nextId++) =>
      new Promise((resolve) => {
        answered.set(id, resolve);
        session.receive({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
      }),
    notify: (method, params) => session.receive({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }),
  };
}

const INITIALIZE = { protocolVersion: '2026-01-26', appInfo: { name: 'app', version: '1' }, appCapabilities: {} };

describe('the handshake', () => {
  it('answers ui/initialize with the version, the host, what it offers and the context (the tool included)', async () => {
    const h = await harness({ hostContext: { theme: 'dark' }, openLink: () => undefined });
    const reply = await h.request('ui/initialize', INITIALIZE);
    expect(reply.result).toEqual({
      protocolVersion: '2026-01-26',
      hostInfo: { name: 'test-host', version: '1.0.0' },
      hostCapabilities: { serverTools: {}, serverResources: {}, logging: {}, sandbox: { csp: { connectDomains: ['https://api.example.com'] } }, openLinks: {} },
      hostContext: { theme: 'dark', toolInfo: { tool: h.tool } },
    });
  });

  it('offers only what the host has handlers for', async () => {
    const h = await harness();
    const { hostCapabilities } = (await h.request('ui/initialize', INITIALIZE)).result as { hostCapabilities: Record<string, unknown> };
    expect(Object.keys(hostCapabilities).sort()).toEqual(['logging', 'sandbox', 'serverResources', 'serverTools']);
  });

  it('sends the app nothing before ui/notifications/initialized, then what it held, in order', async () => {
    const h = await harness();
    h.session.sendToolInput({ team: 'core' });
    h.session.sendToolResult({ content: [{ type: 'text', text: 'board of core' }] });
    await h.request('ui/initialize', INITIALIZE);
    expect(h.posted.filter((m) => 'method' in m)).toEqual([]);
    let initialized = false;
    void h.session.initialized.then(() => (initialized = true));
    h.notify('ui/notifications/initialized');
    await Promise.resolve();
    expect(initialized).toBe(true);
    expect(h.posted.filter((m) => 'method' in m)).toEqual([
      { jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: { team: 'core' } } },
      { jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [{ type: 'text', text: 'board of core' }] } },
    ]);
    h.session.sendToolCancelled('stopped');
    h.session.setHostContext({ theme: 'light' });
    expect(h.posted.slice(-2)).toEqual([
      { jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'stopped' } },
      { jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'light' } },
    ]);
  });

  it('refuses ui/initialize without a protocol version', async () => {
    const h = await harness();
    expect((await h.request('ui/initialize', {})).error).toEqual({ code: -32602, message: 'Invalid params: protocolVersion must be a string' });
  });
});

describe("the app's calls to the server", () => {
  it('calls a tool the app may use, through the client', async () => {
    const h = await harness();
    expect((await h.request('tools/call', { name: 'refresh' })).result).toMatchObject({ content: [{ type: 'text', text: 'refreshed' }] });
    expect((await h.request('tools/call', { name: 'show', arguments: { team: 'ops' } })).result).toMatchObject({ content: [{ type: 'text', text: 'board of ops' }] });
    expect(h.called).toEqual(['refresh', 'show']);
  });

  it('refuses a tool whose visibility leaves out app, and the server never sees the call', async () => {
    const h = await harness();
    expect((await h.request('tools/call', { name: 'audit' })).error).toEqual({ code: -32602, message: 'Tool audit is not available to apps' });
    expect(h.called).toEqual([]);
    expect(h.warnings).toEqual(['The app called audit, which its visibility keeps from apps']);
  });

  it('refuses a tool the server does not have, after looking once more', async () => {
    let looks = 0;
    const base = await harness({
      server: {
        tools: async (refresh) => (looks++, refresh ? [] : []),
        callTool: async () => ({ content: [] }),
        readResource: async () => ({ contents: [] }),
      },
    });
    expect((await base.request('tools/call', { name: 'nope' })).error).toEqual({ code: -32602, message: 'Unknown tool: nope' });
    expect(looks).toBe(2);
  });

  it("lets a tool ask (MRTR): the client's handler answers and the app gets the result", async () => {
    const h = await harness();
    expect((await h.request('tools/call', { name: 'confirm' })).result).toMatchObject({ content: [{ type: 'text', text: 'confirmed' }] });
  });

  it('passes on the error the server answers, as it is', async () => {
    const h = await harness();
    // Wrong arguments: the server's tool error comes back as a result the app can read.
    expect((await h.request('tools/call', { name: 'show', arguments: { team: 1 } })).result).toMatchObject({ isError: true });
    const error = (await h.request('resources/read', { uri: 'ui://missing' })).error as { code: number };
    expect(error.code).toBe(-32602);
  });

  it('reads resources, and lists the tools the app may use', async () => {
    const h = await harness();
    expect((await h.request('resources/read', { uri: 'ui://board' })).result).toMatchObject({ contents: [{ uri: 'ui://board', text: PAGE }] });
    const { tools } = (await h.request('tools/list')).result as { tools: Tool[] };
    expect(tools.map((t) => t.name)).toEqual(['show', 'refresh', 'confirm', 'slow']);
  });

  it.each([
    ['tools/call', { arguments: {} }, 'Invalid params: name must be a string'],
    ['tools/call', { name: 'show', arguments: [1] }, 'Invalid params: arguments must be an object'],
    ['resources/read', {}, 'Invalid params: uri must be a string'],
  ])('refuses %s with %j', async (method, params, message) => {
    const h = await harness();
    expect((await h.request(method, params)).error).toEqual({ code: -32602, message });
  });
});

describe("the app's requests to the host", () => {
  it('answers ping, and the display mode with the one the app is in', async () => {
    const h = await harness();
    expect((await h.request('ping')).result).toEqual({});
    expect((await h.request('ui/request-display-mode', { mode: 'fullscreen' })).result).toEqual({ mode: 'inline' });
  });

  it('passes links, messages and context to the handlers; only http(s) links', async () => {
    const seen: unknown[] = [];
    const h = await harness({
      openLink: (url) => void seen.push(['link', url]),
      message: (params) => void seen.push(['message', params]),
      updateModelContext: (params) => void seen.push(['context', params]),
      onLog: (params) => void seen.push(['log', params]),
    });
    expect((await h.request('ui/open-link', { url: 'https://example.com/docs' })).result).toEqual({});
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'not a url', 42]) {
      expect((await h.request('ui/open-link', { url })).error).toEqual({ code: -32602, message: 'Invalid params: url must be an http or https URL' });
    }
    await h.request('ui/message', { role: 'user', content: { type: 'text', text: 'hi' } });
    await h.request('ui/update-model-context', { content: [{ type: 'text', text: 'state' }] });
    h.notify('notifications/message', { level: 'info', data: 'note' });
    expect(seen).toEqual([
      ['link', 'https://example.com/docs'],
      ['message', { role: 'user', content: { type: 'text', text: 'hi' } }],
      ['context', { content: [{ type: 'text', text: 'state' }] }],
      ['log', { level: 'info', data: 'note' }],
    ]);
  });

  it('answers what it has no handler for, and what it does not know, with -32601', async () => {
    const h = await harness();
    for (const method of ['ui/open-link', 'ui/message', 'ui/update-model-context', 'ui/download-file', 'sampling/createMessage']) {
      expect((await h.request(method, {})).error).toEqual({ code: -32601, message: `Method not found: ${method}` });
    }
  });

  it('passes on size changes with sizes that are sizes, and the request to be closed', async () => {
    const sizes: unknown[] = [];
    let closeAsked = 0;
    const h = await harness({ onSizeChanged: (size) => void sizes.push(size), onRequestTeardown: () => void closeAsked++ });
    h.notify('ui/notifications/size-changed', { width: 300, height: 120.5 });
    h.notify('ui/notifications/size-changed', { width: -1, height: Number.NaN });
    h.notify('ui/notifications/size-changed', { height: 'tall' });
    h.notify('ui/notifications/request-teardown');
    h.notify('ui/notifications/unknown-thing', {});
    expect(sizes).toEqual([{ width: 300, height: 120.5 }, {}, {}]);
    expect(closeAsked).toBe(1);
  });
});

describe('a hostile or broken app', () => {
  it.each([
    ['not an object', 'hello'],
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
    ['no jsonrpc', { id: 1, method: 'ping' }],
    ['an empty method', { jsonrpc: '2.0', id: 1, method: '' }],
    ['params that are not an object', { jsonrpc: '2.0', id: 1, method: 'ping', params: [1] }],
  ])('gets -32600 for %s (when it has an id to answer), and the host a warning', async (_name, message) => {
    const h = await harness();
    h.session.receive(message);
    const id = (message as { id?: unknown }).id;
    const errors = h.posted.filter((m) => 'error' in m);
    if (id === undefined || Array.isArray(message)) expect(errors).toEqual([]);
    else expect(errors).toEqual([{ jsonrpc: '2.0', id, error: { code: -32600, message: expect.stringMatching(/^Invalid request/) } }]);
    expect(h.warnings).toHaveLength(1);
  });

  it('is warned about answering a request the host never sent', async () => {
    const h = await harness();
    h.session.receive({ jsonrpc: '2.0', id: 'host-99', result: {} });
    expect(h.warnings).toEqual(['The app answered a request the host did not send']);
  });
});

describe('teardown', () => {
  it("asks the app with ui/resource-teardown and finishes when it answers", async () => {
    const h = await harness();
    await h.request('ui/initialize', INITIALIZE);
    h.notify('ui/notifications/initialized');
    const done = h.session.teardown('closed', 60_000);
    const asked = h.posted.at(-1) as { id: string; method: string; params: unknown };
    expect(asked).toMatchObject({ method: 'ui/resource-teardown', params: { reason: 'closed' } });
    h.session.receive({ jsonrpc: '2.0', id: asked.id, result: {} });
    await done;
  });

  it('does not wait past its bound for an app that never answers, nor ask one that never initialized', async () => {
    const silent = await harness();
    await silent.request('ui/initialize', INITIALIZE);
    silent.notify('ui/notifications/initialized');
    await silent.session.teardown('closed', 10);
    const fresh = await harness();
    await fresh.session.teardown('closed', 60_000);
    expect(fresh.posted).toEqual([]);
  });

  it("aborts the app's calls in flight, answers nothing more and hears nothing more", async () => {
    const h = await harness();
    h.session.receive({ jsonrpc: '2.0', id: 'slow-1', method: 'tools/call', params: { name: 'slow' } });
    await slow.entered.promise;
    h.session.end();
    // The client's cancellation reached the server's handler.
    await slow.aborted.promise;
    const before = h.posted.length;
    h.session.receive({ jsonrpc: '2.0', id: 'late', method: 'ping' });
    h.session.sendToolInput({});
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.posted.length).toBe(before);
    expect(h.posted.some((m) => (m as { id?: unknown }).id === 'slow-1')).toBe(false);
  });
});
