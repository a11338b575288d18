/**
 * MCP Apps against code no one here wrote, in a real headless chromium:
 *
 * 1. An app page written with the official `App` class
 *    (@modelcontextprotocol/ext-apps, bundled into the page by this test) in
 *    Tessera's host (the browser example's page, `openApp` of
 *    `tessera-mcp/apps-host`), served by a Tessera server: it initialises,
 *    receives the tool's input and result, calls an app-only tool whose
 *    handler asks for a confirmation — asked and answered in the host page,
 *    through the Client's input handler — and shows the result; the host
 *    refuses its call to a model-only tool; its declared connectDomains origin
 *    is reachable and another origin is not.
 * 2. A Tessera server's app (the example's deployments board) under the
 *    official host pieces: the official client and `AppBridge` with
 *    `PostMessageTransport`. The package publishes no sandbox proxy page
 *    (its example hosts carry their own), so the frame is Tessera's proxy.
 *
 * Run with `npm run test:browser`.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer } from '../../src/index.js';
import { apps, registerApp } from '../../src/apps.js';
import { sandboxProxyHtml } from '../../src/apps-host.js';
import type { RunningHttpServer } from '../../src/node.js';
import { bundle, bundlePage } from '../helpers/bundle.js';
import { BrowserPage, type Frame, type FrameStep } from '../helpers/browser-page.js';
import { Chromium } from '../helpers/chromium.js';
import { ROOT, stopAll, stopPid } from '../helpers/child-processes.js';
import { startExampleServer, startSandboxProxy, startStatic, type ExampleServer } from '../helpers/example-site.js';
import { startHttp } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';

const OUT = 'dist/browser-pages';
const servers: Server[] = [];
let browser: Chromium;

const origin = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
async function serve(started: Promise<Server>): Promise<string> {
  const server = await started;
  servers.push(server);
  return origin(server);
}

/** A loopback endpoint any origin may fetch (the app's is opaque: `null`). */
function startPingable(): Promise<Server> {
  const server = createServer((_req, res) => res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' }).end('pong'));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  browser = Chromium.launch();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  stopAll();
});

describe("an app written with the official App class, in Tessera's host", () => {
  let page: BrowserPage;
  let mcp: RunningHttpServer;
  let allowed: string;
  let other: string;
  let sandbox: string;
  const logger = quietLogger();
  let app: Frame;
  let inApp: FrameStep[];

  beforeAll(async () => {
    const host = await serve(startStatic(`${ROOT}${OUT}/example-host/`));
    await bundlePage('examples/browser', `${OUT}/example-host`);
    sandbox = await serve(startSandboxProxy(sandboxProxyHtml()));
    allowed = await serve(startPingable());
    other = await serve(startPingable());
    const { code } = await bundle('fixtures/apps/official-app.ts', `${OUT}/official-app.js`);
    const html = [
      '<!doctype html>',
      // Margins that collapse out of the root escape App's autoResize measure (the root's max-content height): none here.
      '<html><head><meta charset="utf-8"><title>Orders</title><style>body { margin: 0; padding: 8px; } p { margin: 4px 0; }</style></head>',
      `<body data-allowed="${allowed}/" data-other="${other}/">`,
      '<p id="state">starting</p><p id="input"></p><p id="result"></p>',
      '<button id="order">Order</button> <p id="status"></p>',
      '<button id="audit">Audit</button> <p id="audit-result"></p>',
      '<button id="probe">Probe</button> <p id="allowed"></p><p id="blocked"></p>',
      `<script type="module">${code.replace(/<\/script/gi, '<\\/script')}</script>`,
      '</body></html>',
    ].join('\n');

    const server = new McpServer({ name: 'official-app-test', version: '1.0.0' }, { logger, extensions: [apps()], state: { keys: generateStateKey('official-app') } });
    registerApp(server, { uri: 'ui://orders/form', name: 'orders', html, csp: { connectDomains: [allowed] } })
      .tool('order_form', { description: 'Order form', input: z.object({ item: z.string() }) }, ({ item }) => `Ready to order ${item}.`)
      .tool('place_order', { input: z.object({ item: z.string() }), visibility: ['app'] }, async ({ item }, ctx) => {
        const answer = await ctx.ask(ask.form(`Order ${item}?`, z.object({ confirm: z.boolean().describe('Confirm the order') }), { key: 'confirm' }));
        return answer.action === 'accept' && answer.content.confirm ? `Ordered ${item}.` : 'Not ordered.';
      })
      .tool('audit', { description: 'Audit (for the model only)', visibility: ['model'] }, () => 'audited');
    mcp = await startHttp(server, { cors: { origins: [host] } });

    page = await BrowserPage.open(browser);
    await page.navigate(`${host}/index.html?server=${encodeURIComponent(mcp.url)}&sandbox=${encodeURIComponent(`${sandbox}/`)}`);
    inApp = [{ frame: page.top, owner: '#app-frame iframe' }];
  });

  afterAll(async () => {
    await mcp?.close();
  });

  it('initialises, and receives the input and the result of the tool that opened it', async () => {
    expect(await page.waitFor<string>(`document.querySelectorAll('#tools button').length && [...document.querySelectorAll('#tools button')].map((b) => b.textContent).join()`)).toBe('order_form,audit');
    await page.click('#tools li:nth-child(1) button');
    await page.waitFor(`document.querySelector('#arguments [name=item]')`);
    await page.type('#arguments [name=item]', 'tea');
    await page.click('#arguments button[type=submit]');
    expect(await page.waitFor<string>(`!document.getElementById('result').hidden && document.getElementById('result-text').textContent`)).toBe('Ready to order tea.');

    app = await page.frame(`location.href === 'about:srcdoc' && document.title === 'Orders'`);
    inApp.push({ frame: await page.frame(`location.origin === ${JSON.stringify(sandbox)}`), owner: 'iframe' }, { frame: app });
    const shown = await page.waitFor<string[]>(
      `document.getElementById('result').textContent && ['state', 'input', 'result'].map((id) => document.getElementById(id).textContent)`,
      app,
    );
    expect(shown).toEqual(['connected to tessera-browser-example', 'item: tea', 'Ready to order tea.']);
  });

  it("calls an app-only tool that asks: the host page asks and answers, the app shows the result", async () => {
    await page.click('#order', inApp);
    expect(await page.waitFor<string>(`!document.getElementById('question').hidden && document.getElementById('question-message').textContent`)).toBe('Order tea?');
    await page.click('#answer [name=confirm]');
    await page.click('#answer button[type=submit]');
    expect(await page.waitFor<string>(`/^(Ordered|Not|Refused)/.test(document.getElementById('status').textContent) && document.getElementById('status').textContent`, app)).toBe('Ordered tea.');
  });

  it("is refused a model-only tool by the host", async () => {
    await page.click('#audit', inApp);
    const refused = await page.waitFor<string>(`document.getElementById('audit-result').textContent.length > 1 && document.getElementById('audit-result').textContent`, app);
    expect(refused).toMatch(/^Refused: .*Tool audit is not available to apps/);
  });

  it('reaches the origin its CSP declares, and no other', async () => {
    await page.click('#probe', inApp);
    const probes = await page.waitFor<string[]>(`!['…', ''].includes(document.getElementById('allowed').textContent) && !['…', ''].includes(document.getElementById('blocked').textContent) && [document.getElementById('allowed').textContent, document.getElementById('blocked').textContent]`, app);
    expect(probes).toEqual(['200', 'TypeError']);
    expect(page.problems).toEqual([]);
    expect(logger.errors).toEqual([]);
  });
});

describe("a Tessera server's app under the official host pieces (AppBridge)", () => {
  let page: BrowserPage;
  let example: ExampleServer;

  beforeAll(async () => {
    const host = await serve(startStatic(`${ROOT}${OUT}/official-host/`));
    const built = await bundlePage('fixtures/apps/official-host', `${OUT}/official-host`);
    expect(built.warnings.filter((w) => w.includes('node:'))).toEqual([]);
    example = await startExampleServer(host);
    page = await BrowserPage.open(browser);
    const query = new URLSearchParams({ server: example.url, sandbox: example.sandbox, tool: 'show_deployments', args: JSON.stringify({ env: 'staging' }) });
    await page.navigate(`${host}/index.html?${query}`);
  });

  afterAll(() => stopPid(example?.pid));

  it('initialises under AppBridge, shows the result, calls deploy (asked and approved in the host), and reloads through its app-only tool', async () => {
    expect(await page.waitFor<string>(`/^(Showing|Failed)/.test(document.getElementById('status').textContent) && document.getElementById('status').textContent`)).toBe('Showing ui://deploy/board');
    const app = await page.frame(`location.href === 'about:srcdoc' && document.title === 'Deployments'`);
    const proxy = await page.frame(`location.origin === ${JSON.stringify(new URL(example.sandbox).origin)}`);
    expect(await page.waitFor<string>(`document.getElementById('title').textContent === 'Deployments to staging' && document.getElementById('list').textContent`, app)).toBe('none yet');

    await page.click('#deploy button', [{ frame: page.top, owner: '#app iframe' }, { frame: proxy, owner: 'iframe' }, { frame: app }]);
    expect(await page.waitFor<string>(`!document.getElementById('question').hidden && document.getElementById('question-message').textContent`)).toBe('Deploy api to staging?');
    await page.click('#approve');
    expect(await page.waitFor<string>(`document.getElementById('status').textContent.startsWith('Deployed') && document.getElementById('status').textContent`, app)).toBe(
      'Deployed api to staging (deployment api-staging-1).',
    );
    expect(await page.waitFor<string>(`document.querySelectorAll('#list li').length === 1 && document.getElementById('list').textContent === 'api-staging-1' && 'reloaded'`, app)).toBe('reloaded');
    expect(page.problems).toEqual([]);
  });
});
