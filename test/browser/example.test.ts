/**
 * The browser example (issue 17) in a real headless chromium: the page in
 * examples/browser/ with Tessera's client bundled for the browser (no
 * `node:*` module in the bundle), served from a static server on one origin,
 * calling the example server (CORS on for that origin) on another. The page
 * lists the tools; the test picks `deploy`, types its arguments into the form
 * made of its inputSchema, answers the question the server asks in the form
 * made of its `requestedSchema`, and reads the result on the page. Then the
 * example's MCP app (issue 29): `show_deployments` opens the board through the
 * sandbox proxy under its CSP, a click inside the app deploys — the question
 * asked in the host page — and the app shows the result; a hostile app stays
 * in its box; another call tears it down. A page from an origin CORS does not
 * allow cannot connect. With UPDATE_SCREENSHOTS=1 the screenshots go to
 * docs/images/browser-example.png and apps-example.png (runtimes.md and apps.md show them).
 * Run with `npm run test:browser` (Debian's `chromium` installed; .ci/run installs it).
 */

import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePage, type Bundle } from '../helpers/bundle.js';
import { BrowserPage, type Frame, type FrameStep } from '../helpers/browser-page.js';
import { Chromium } from '../helpers/chromium.js';
import { ROOT, stopAll, stopPid } from '../helpers/child-processes.js';
import { startExampleServer, startStatic, type ExampleServer } from '../helpers/example-site.js';

/** What the static server serves: the page as built (index.html and its bundle). */
const SITE_DIR = `${ROOT}examples/browser/dist/`;

let built: Bundle;
let site: Server;
let sitePort: number;
let mcp: ExampleServer;
let browser: Chromium;
let page: BrowserPage;
/** The board app's frames, once open: the sandbox proxy, and the app inside it. */
let proxy: Frame;
let app: Frame;

const evaluate = <T>(expression: string): Promise<T> => page.evaluate<T>(expression);
const waitFor = <T>(expression: string): Promise<T> => page.waitFor<T>(expression);
const click = (selector: string): Promise<void> => page.click(selector);
const type = (selector: string, text: string): Promise<void> => page.type(selector, text);
const open = (url: string): Promise<void> => page.navigate(url);

beforeAll(async () => {
  built = await bundlePage('examples/browser');
  site = await startStatic(SITE_DIR);
  sitePort = (site.address() as AddressInfo).port;
  mcp = await startExampleServer(`http://127.0.0.1:${sitePort}`);
  browser = Chromium.launch();
  page = await BrowserPage.open(browser);
});

afterAll(async () => {
  await browser?.close();
  stopPid(mcp?.pid);
  await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  stopAll();
});

describe('the client bundled for the browser', () => {
  it('imports no node:* module and leaves nothing for the browser to resolve', () => {
    expect(built.warnings).toEqual([]);
    expect(built.imports).toEqual([]);
    // Not even a name: the client does not reach the crypto port's getBuiltinModule('node:crypto').
    expect(built.code).not.toContain('node:');
    expect(built.code).toContain('tessera-browser-example');
  });
});

describe('the example page in chromium', () => {
  it('connects across origins (CORS on) and lists the tools', async () => {
    await open(`http://127.0.0.1:${sitePort}/index.html?server=${encodeURIComponent(mcp.url)}&sandbox=${encodeURIComponent(mcp.sandbox)}`);
    // Connected or not, the status says so.
    const status = await waitFor<string>(`/^(Connected|Could not)/.test(document.getElementById('status').textContent) && document.getElementById('status').textContent`);
    expect(status).toBe(`Connected to ${mcp.url}`);
    // The app-only refresh_deployments is the board's, not the model's (here, the user's).
    expect(await evaluate(`[...document.querySelectorAll('#tools button')].map((b) => b.textContent)`)).toEqual(['deploy', 'show_deployments']);
  });

  it('calls deploy with arguments from its inputSchema, renders the question from its requestedSchema, submits the answer and shows the result', async () => {
    await click('#tools li:nth-child(1) button');
    await waitFor(`document.querySelector('#arguments [name=service]')`);
    expect(await evaluate(`[...document.querySelectorAll('#arguments [name=env] option')].map((o) => o.value)`)).toEqual(['staging', 'prod']);
    await type('#arguments [name=service]', 'api');
    await evaluate(`(() => { const s = document.querySelector('#arguments [name=env]'); s.value = 'prod'; s.dispatchEvent(new Event('change')); })()`);
    await click('#arguments button[type=submit]');

    const message = await waitFor<string>(`!document.getElementById('question').hidden && document.getElementById('question-message').textContent`);
    expect(message).toBe('Deploy api to prod?');
    const field = await evaluate<{ type: string; label: string; hint: string }>(
      `(() => { const i = document.querySelector('#answer [name=approve]'); const row = i.closest('.field'); return { type: i.type, label: row.querySelector('label').textContent, hint: row.querySelector('small')?.textContent ?? '' }; })()`,
    );
    expect(field).toEqual({ type: 'checkbox', label: 'approve *', hint: 'Approve the deployment' });

    await click('#answer [name=approve]');
    expect(await evaluate('document.querySelector("#answer [name=approve]").checked')).toBe(true);
    await click('#answer button[type=submit]');

    const result = await waitFor<string>(`!document.getElementById('result').hidden && document.getElementById('result-text').textContent`);
    expect(result).toBe('Deployed api to prod (deployment api-prod-1).');
    expect(await evaluate('document.getElementById("question-answer").textContent')).toBe('Answered.');
    expect(page.problems).toEqual([]);

    const png = await page.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // The docs' image changes only when asked (the page shows the server's port, so every run differs).
    if (process.env.UPDATE_SCREENSHOTS === '1') writeFileSync(`${ROOT}docs/images/browser-example.png`, png);
  });

  it('opens the board app of show_deployments in a sandboxed frame under its CSP, and follows its size', async () => {
    await click('#tools li:nth-child(2) button');
    await waitFor(`document.querySelector('#arguments [name=env]')`);
    await evaluate(`(() => { const s = document.querySelector('#arguments [name=env]'); s.value = 'prod'; s.dispatchEvent(new Event('change')); })()`);
    await click('#arguments button[type=submit]');
    // The tool's own result, as a text-only host would show it.
    expect(await waitFor<string>(`!document.getElementById('result').hidden && document.getElementById('result-text').textContent`)).toBe('1 deployment(s) to prod.');

    // The proxy: another origin than the page, in the frame the spec asks for.
    const frame = await evaluate<{ sandbox: string; src: string; border: string }>(
      `(() => { const f = document.querySelector('#app-frame iframe'); return { sandbox: f.getAttribute('sandbox'), src: f.src, border: f.dataset.prefersBorder }; })()`,
    );
    expect(frame).toEqual({ sandbox: 'allow-scripts allow-same-origin allow-forms', src: mcp.sandbox, border: 'true' });
    proxy = await page.frame(`location.origin === ${JSON.stringify(new URL(mcp.sandbox).origin)}`);
    app = await page.frame(`location.href === 'about:srcdoc' && document.title === 'Deployments'`);

    // The app got the tool's input and result, and rendered them.
    expect(await page.waitFor<string>(`document.getElementById('title').textContent === 'Deployments to prod' && document.getElementById('list').textContent`, app)).toBe('api-prod-1');
    // An opaque origin (no way into the proxy page), the declared CSP first in its document, and enforced: no connection anywhere.
    expect(await page.evaluate('self.origin', app)).toBe('null');
    const policy = await page.evaluate<string>(`document.head.firstElementChild.getAttribute('http-equiv') + ': ' + document.head.firstElementChild.content`, app);
    expect(policy).toContain("Content-Security-Policy: default-src 'none'; script-src 'self' 'unsafe-inline'");
    expect(policy).toContain("connect-src 'none'");
    expect(await page.evaluate(`fetch(${JSON.stringify(mcp.url)}).then(() => 'connected', (e) => e.name)`, app)).toBe('TypeError');

    // The frame is as tall as the app says its content is.
    const height = await page.evaluate<number>('document.documentElement.scrollHeight', app);
    expect(await waitFor<string>(`document.querySelector('#app-frame iframe').style.height === '${height}px' && 'sized'`)).toBe('sized');
  });

  it('keeps a hostile app in its box: no way into the proxy page, no second page through it, no messages to the host past it', async () => {
    expect(await page.evaluate(`(() => { try { return parent.document.title; } catch (e) { return e.name; } })()`, app)).toBe('SecurityError');
    // The proxy takes its page from the host only.
    await page.evaluate(`parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params: { html: '<p>other</p>' } }, '*')`, app);
    // Straight to the host page, around the proxy: the host hears its app only through the proxy's frame.
    await page.evaluate(`top.postMessage({ jsonrpc: '2.0', id: 'forged', method: 'tools/call', params: { name: 'deploy', arguments: { service: 'evil', env: 'prod' } } }, '*')`, app);
    // A round trip the host does answer, after both.
    const pong = await page.evaluate(`new Promise((resolve) => {
      addEventListener('message', (e) => e.data?.id === 'after' && resolve(e.data.result));
      parent.postMessage({ jsonrpc: '2.0', id: 'after', method: 'ping' }, '*');
    })`, app);
    expect(pong).toEqual({});
    expect(await page.evaluate('document.querySelectorAll("iframe").length', proxy)).toBe(1);
    expect(await page.evaluate(`document.title + ' ' + document.getElementById('list').textContent`, app)).toBe('Deployments api-prod-1');
    expect(await evaluate(`document.getElementById('question').hidden`)).toBe(true);
  });

  it("lets the app call deploy, asks the server's question in the host page, and the app shows the result", async () => {
    const inApp: FrameStep[] = [{ frame: page.top, owner: '#app-frame iframe' }, { frame: proxy, owner: 'iframe' }, { frame: app }];
    await page.click('#deploy button', inApp);
    expect(await waitFor<string>(`!document.getElementById('question').hidden && document.getElementById('question-message').textContent`)).toBe('Deploy api to prod?');
    await click('#answer [name=approve]');
    await click('#answer button[type=submit]');
    expect(await page.waitFor<string>(`document.getElementById('status').textContent.startsWith('Deployed') && document.getElementById('status').textContent`, app)).toBe(
      'Deployed api to prod (deployment api-prod-2).',
    );
    // Then the app reloaded the board through its own app-only tool.
    expect(await page.waitFor<string>(`document.querySelectorAll('#list li').length === 2 && [...document.querySelectorAll('#list li')].map((li) => li.textContent).join()`, app)).toBe(
      'api-prod-1,api-prod-2',
    );
    expect(page.problems).toEqual([]);
    if (process.env.UPDATE_SCREENSHOTS === '1') writeFileSync(`${ROOT}docs/images/apps-example.png`, await page.screenshot());
  });

  it('tears the app down when another tool is called', async () => {
    await click('#tools li:nth-child(1) button');
    await waitFor(`document.querySelector('#arguments [name=service]')`);
    await type('#arguments [name=service]', 'web');
    await click('#arguments button[type=submit]');
    expect(await waitFor<number>(`document.getElementById('app').hidden && document.querySelectorAll('#app-frame iframe').length + 1`)).toBe(1);
  });

  it('from an origin CORS does not allow, cannot connect and says so', async () => {
    await open(`http://localhost:${sitePort}/index.html?server=${encodeURIComponent(mcp.url)}`);
    const status = await waitFor<string>(`document.getElementById('status').className === 'error' && document.getElementById('status').textContent`);
    expect(status).toContain(`Could not connect to ${mcp.url}`);
    expect(await evaluate(`document.querySelectorAll('#tools button').length`)).toBe(0);
  });
});
