/**
 * MCP Apps on the server (SEP-1865, stable 2026-01-26): the
 * `io.modelcontextprotocol/ui` capability, the `ui://` resource with the
 * `text/html;profile=mcp-app` MIME type and `_meta.ui` (CSP, permissions,
 * domain, border) on both its listing and its content, tools linked through
 * `_meta.ui.resourceUri` with their `visibility`, app-only tools kept from
 * clients that render no apps (and callable by those that do), an app's tool
 * that asks (MRTR) like any other, and registrations refused with a TypeError
 * that names what is wrong.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, createLinkPair, generateStateKey, McpServer, serveLink, type Extension } from '../../src/index.js';
import { Client, LinkClientTransport } from '../../src/client.js';
import { apps, registerApp, APP_MIME_TYPE, UI_EXTENSION } from '../../src/apps.js';
import { Client as OfficialClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { meta, startHttp } from '../helpers/http.js';
import { call } from '../helpers/in-process.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';

const PAGE = '<!doctype html><html><head><title>Board</title></head><body><p>board</p></body></html>';
/** What a host that renders apps declares (the spec's client capability: the extension with its MIME types). */
const HOST_CAPABILITIES = { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };

function appServer(): McpServer {
  const server = new McpServer({ name: 'apps-test', version: '1.0.0' }, { logger: quietLogger(), extensions: [apps()], state: { keys: generateStateKey('apps') } });
  registerApp(server, {
    uri: 'ui://board/main',
    name: 'board',
    title: 'Deploy board',
    html: PAGE,
    csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
    permissions: { clipboardWrite: {} },
    prefersBorder: true,
  })
    .tool('show_board', { description: 'Shows the board', input: z.object({ team: z.string() }) }, ({ team }) => `board of ${team}`)
    .tool('refresh_board', { description: 'Refreshes the board', visibility: ['app'] }, () => 'refreshed')
    .tool('summary', { visibility: ['model'] }, () => 'summary');
  return server;
}

const as = (capabilities: Record<string, unknown>) => ({ _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': capabilities }) });

async function toolNames(server: McpServer, capabilities: Record<string, unknown>): Promise<string[]> {
  return (resultOf(await call(server, 'tools/list', as(capabilities))).tools as Array<{ name: string }>).map((t) => t.name);
}

describe('the capability', () => {
  it('is declared by a server with the apps() extension, and not by one without', async () => {
    const withApps = resultOf(await call(appServer(), 'server/discover'));
    expect((withApps.capabilities as { extensions?: Record<string, unknown> }).extensions?.[UI_EXTENSION]).toEqual({});
    const plain = new McpServer({ name: 'plain', version: '1.0.0' });
    plain.tool('t', {}, () => 'x');
    const without = resultOf(await call(plain, 'server/discover'));
    expect((without.capabilities as { extensions?: Record<string, unknown> }).extensions?.[UI_EXTENSION]).toBeUndefined();
  });
});

describe('in a 2025-11-25 session (the official client, which speaks it by default)', () => {
  async function session(capabilities: Record<string, unknown>): Promise<{ client: OfficialClient; close: () => Promise<void> }> {
    const running = await startHttp(appServer());
    const client = new OfficialClient({ name: 'official-host', version: '1.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    return { client, close: async () => (await client.close(), await running.close()) };
  }

  it("declares the extension in initialize's capabilities, and lists the app-only tool to a host that renders apps", async () => {
    const { client, close } = await session(HOST_CAPABILITIES);
    try {
      expect(client.getServerCapabilities()?.extensions?.[UI_EXTENSION]).toEqual({});
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['show_board', 'refresh_board', 'summary']);
      expect((await client.callTool({ name: 'refresh_board', arguments: {} })).content).toEqual([{ type: 'text', text: 'refreshed' }]);
    } finally {
      await close();
    }
  });

  it('keeps the app-only tool from a session whose initialize did not declare the extension', async () => {
    const { client, close } = await session({});
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['show_board', 'summary']);
      await expect(client.callTool({ name: 'refresh_board', arguments: {} })).rejects.toThrow(/Unknown tool: refresh_board/);
    } finally {
      await close();
    }
  });
});

describe('the app resource', () => {
  const server = appServer();
  const ui = {
    csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
    permissions: { clipboardWrite: {} },
    prefersBorder: true,
  };

  it('is listed with the MIME type and its _meta.ui, for hosts to review before reading it', async () => {
    const { resources } = resultOf(await call(server, 'resources/list')) as { resources: Array<Record<string, unknown>> };
    expect(resources).toEqual([{ uri: 'ui://board/main', name: 'board', title: 'Deploy board', mimeType: APP_MIME_TYPE, _meta: { ui } }]);
  });

  it('reads as the HTML document with the MIME type and _meta.ui on the content', async () => {
    const { contents } = resultOf(await call(server, 'resources/read', { uri: 'ui://board/main' })) as { contents: unknown[] };
    expect(contents).toEqual([{ uri: 'ui://board/main', mimeType: APP_MIME_TYPE, text: PAGE, _meta: { ui } }]);
  });

  it('may be made on each read, from the request', async () => {
    const dynamic = new McpServer({ name: 'dynamic', version: '1.0.0' }, { extensions: [apps()] });
    registerApp(dynamic, { uri: 'ui://dynamic', name: 'dynamic', html: async (ctx) => `<!doctype html><p>${ctx.clientInfo?.name}</p>` });
    const { contents } = resultOf(await call(dynamic, 'resources/read', { uri: 'ui://dynamic' })) as { contents: Array<{ text: string; _meta?: unknown }> };
    expect(contents[0]!.text).toBe('<!doctype html><p>tessera-tests</p>');
    // Nothing declared, nothing in _meta: the host applies the restrictive defaults.
    expect(contents[0]!._meta).toBeUndefined();
  });
});

describe('linked tools and their visibility', () => {
  const server = appServer();

  it('carry the app in _meta.ui.resourceUri, with the visibility given', async () => {
    const { tools } = resultOf(await call(server, 'tools/list', as(HOST_CAPABILITIES))) as { tools: Array<{ name: string; _meta?: unknown }> };
    expect(tools.map((t) => [t.name, t._meta])).toEqual([
      ['show_board', { ui: { resourceUri: 'ui://board/main' } }],
      ['refresh_board', { ui: { resourceUri: 'ui://board/main', visibility: ['app'] } }],
      ['summary', { ui: { resourceUri: 'ui://board/main', visibility: ['model'] } }],
    ]);
  });

  it('lists an app-only tool to a client that renders apps, and lets it call the tool', async () => {
    expect(await toolNames(server, HOST_CAPABILITIES)).toEqual(['show_board', 'refresh_board', 'summary']);
    const result = resultOf(await call(server, 'tools/call', { name: 'refresh_board', ...as(HOST_CAPABILITIES) }));
    expect(result.content).toEqual([{ type: 'text', text: 'refreshed' }]);
  });

  it.each([
    ['no extensions', {}],
    ['the extension without mimeTypes', { extensions: { [UI_EXTENSION]: {} } }],
    ['another MIME type only', { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/uri-list'] } } }],
  ])('keeps an app-only tool from a client with %s: not listed, and unknown when called', async (_name, capabilities) => {
    expect(await toolNames(server, capabilities)).toEqual(['show_board', 'summary']);
    const error = errorOf(await call(server, 'tools/call', { name: 'refresh_board', ...as(capabilities) }));
    expect(error).toMatchObject({ code: -32602, message: 'Unknown tool: refresh_board' });
    // The tools the model may see still work for it.
    expect(resultOf(await call(server, 'tools/call', { name: 'show_board', arguments: { team: 'core' }, ...as(capabilities) })).content).toEqual([{ type: 'text', text: 'board of core' }]);
  });

  it('pages the filtered list by the same cursors', async () => {
    const small = new McpServer({ name: 'paged', version: '1.0.0' }, { extensions: [apps()], pageSize: 1 });
    registerApp(small, { uri: 'ui://p', name: 'p', html: PAGE }).tool('a', { visibility: ['app'] }, () => 'a').tool('b', {}, () => 'b').tool('c', {}, () => 'c');
    const names: string[] = [];
    let cursor: unknown;
    for (let page = 0; page < 5; page++) {
      const result = resultOf(await call(small, 'tools/list', { ...(cursor ? { cursor } : {}), ...as({}) })) as { tools: Array<{ name: string }>; nextCursor?: string };
      names.push(...result.tools.map((t) => t.name));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    expect(names).toEqual(['b', 'c']);
  });
});

describe('an app tool that asks', () => {
  it('asks through MRTR like any other tool: the client answers in its handler and gets the result', async () => {
    const logger = quietLogger();
    const server = new McpServer({ name: 'asking', version: '1.0.0' }, { logger, extensions: [apps()], state: { keys: generateStateKey('asking') } });
    registerApp(server, { uri: 'ui://orders', name: 'orders', html: PAGE }).tool(
      'place_order',
      { input: z.object({ item: z.string() }), visibility: ['app'] },
      async ({ item }, ctx) => {
        const answer = await ctx.ask(ask.form(`Order ${item}?`, z.object({ confirm: z.boolean() })));
        return answer.action === 'accept' && answer.content.confirm ? `Ordered ${item}.` : 'Not ordered.';
      },
    );
    const [serverEnd, clientEnd] = createLinkPair();
    serveLink(server, serverEnd);
    const questions: string[] = [];
    const client = new Client(
      { name: 'host', version: '1.0.0' },
      {
        capabilities: HOST_CAPABILITIES,
        elicitation: {
          form: async (params) => {
            questions.push(params.message);
            return { action: 'accept', content: { confirm: true } };
          },
        },
      },
    );
    await client.connect(new LinkClientTransport(clientEnd, 'memory'));
    try {
      expect((await client.listAllTools()).map((t) => t.name)).toEqual(['place_order']);
      const result = await client.callTool('place_order', { item: 'tea' });
      expect(result.content).toEqual([{ type: 'text', text: 'Ordered tea.' }]);
      expect(questions).toEqual(['Order tea?']);
    } finally {
      await client.close();
      expect(logger.errors).toEqual([]);
    }
  });
});

describe('what is refused at registration', () => {
  const server = () => new McpServer({ name: 'bad', version: '1.0.0' }, { extensions: [apps()] });

  it('an app on a server without the apps() extension', () => {
    const plain = new McpServer({ name: 'plain', version: '1.0.0' });
    expect(() => registerApp(plain, { uri: 'ui://x', name: 'x', html: PAGE })).toThrow(/extensions: \[apps\(\)\]/);
    expect(plain.capabilities().resources).toBeUndefined();
  });

  it.each(['https://x.example/app', 'ui://', 'ui://has space', 'UI://x'])('the URI %j (it must be ui://…)', (uri) => {
    expect(() => registerApp(server(), { uri, name: 'x', html: PAGE })).toThrow(/must start with ui:\/\//);
  });

  it.each([
    ['a second directive', { connectDomains: ["https://a.example; script-src 'unsafe-eval'"] }, "connectDomains: https://a.example; script-src 'unsafe-eval'"],
    ['a keyword', { resourceDomains: ["'unsafe-eval'"] }, "resourceDomains: 'unsafe-eval'"],
    ['a bare wildcard', { connectDomains: ['*'] }, 'connectDomains: *'],
    ['a whole scheme', { frameDomains: ['https:'] }, 'frameDomains: https:'],
    ['a data: source', { resourceDomains: ['data:'] }, 'resourceDomains: data:'],
    ['a javascript: URL', { baseUriDomains: ['javascript:alert(1)'] }, 'baseUriDomains: javascript:alert(1)'],
    ['a quote inside a path', { connectDomains: ["https://a.example/x'y"] }, "connectDomains: https://a.example/x'y"],
  ])('a CSP entry with %s', (_name, csp, named) => {
    expect(() => registerApp(server(), { uri: 'ui://x', name: 'x', html: PAGE, csp })).toThrow(named);
  });

  it('accepts the sources the spec shows', () => {
    const csp = { connectDomains: ['https://api.weather.com', 'wss://realtime.service.com', 'http://127.0.0.1:8080'], resourceDomains: ['https://cdn.jsdelivr.net', 'https://*.cloudflare.com'], frameDomains: ['https://www.youtube.com'], baseUriDomains: ['https://cdn.example.com/assets/'] };
    expect(() => registerApp(server(), { uri: 'ui://ok', name: 'ok', html: PAGE, csp })).not.toThrow();
  });

  it.each([[[]], [['agent']]])('a visibility of %j', (visibility) => {
    const app = registerApp(server(), { uri: 'ui://x', name: 'x', html: PAGE });
    expect(() => app.tool('t', { visibility: visibility as never }, () => 'x')).toThrow(/visibility must list "model", "app" or both/);
  });

  it('removes the app with every tool linked through it', async () => {
    const s = server();
    s.tool('other', {}, () => 'x');
    const app = registerApp(s, { uri: 'ui://gone', name: 'gone', html: PAGE }).tool('a', {}, () => 'a');
    app.remove();
    expect(await toolNames(s, HOST_CAPABILITIES)).toEqual(['other']);
    // No resource left: the server offers no resources at all.
    expect(s.capabilities().resources).toBeUndefined();
  });
});

describe('the extensions option', () => {
  it('refuses the same extension twice, and anything this package did not make', () => {
    expect(() => new McpServer({ name: 'x', version: '1' }, { extensions: [apps(), apps()] })).toThrow('The extension apps is given twice');
    expect(() => new McpServer({ name: 'x', version: '1' }, { extensions: [{ name: 'mine' } as Extension] })).toThrow('mine is not an extension made by this copy of tessera-mcp');
  });
});
