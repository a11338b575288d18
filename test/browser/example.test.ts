/**
 * The browser example (issue 17) in a real headless chromium: the page in
 * examples/browser/ with Tessera's client bundled for the browser (no
 * `node:*` module in the bundle), served from a static server on one origin,
 * calling the example server (CORS on for that origin) on another. The page
 * lists the tools; the test picks `deploy`, types its arguments into the form
 * made of its inputSchema, answers the question the server asks in the form
 * made of its `requestedSchema`, and reads the result on the page. A page
 * from an origin CORS does not allow cannot connect. With UPDATE_SCREENSHOTS=1
 * the screenshot goes to docs/images/browser-example.png (docs/runtimes.md shows it).
 * Run with `npm run test:browser` (Debian's `chromium` installed; .ci/run installs it).
 */

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStateKey } from '../../src/index.js';
import { bundlePage, type Bundle } from '../helpers/bundle.js';
import { Chromium } from '../helpers/chromium.js';
import { compiledFile, ROOT, stopAll, stopPid, trackPid } from '../helpers/child-processes.js';

const PAGE_DIR = `${ROOT}examples/browser/`;
/** What the static server serves: the page as built (index.html and its bundle). */
const SITE_DIR = `${PAGE_DIR}dist/`;
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/** The tiny static server: the built page's files, nothing else. */
function startStatic(): Promise<Server> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^\/+/, '');
    const type = TYPES[extname(path)];
    if (path.startsWith('..') || !type) return void res.writeHead(404).end();
    try {
      res.writeHead(200, { 'content-type': type }).end(readFileSync(`${SITE_DIR}${path}`));
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** The example server, with CORS on for `pageOrigin`; resolves with its endpoint. */
async function startExampleServer(pageOrigin: string): Promise<{ url: string; pid: number }> {
  const file = compiledFile('examples/browser/server.js', [`${PAGE_DIR}server.ts`, `${ROOT}examples/deploy.ts`]);
  const child = spawn(process.execPath, [file], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PAGE_ORIGIN: pageOrigin, TESSERA_STATE_KEYS: generateStateKey('browser') },
  });
  trackPid(child.pid);
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      const match = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)/m.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the example server exited (${code}): ${output}`)));
  });
  return { url, pid: child.pid! };
}

let built: Bundle;
let site: Server;
let sitePort: number;
let mcp: { url: string; pid: number };
let browser: Chromium;
let page: string;
const problems: string[] = [];

/** Evaluates `expression` in the page (awaiting a promise) and returns its value. */
async function evaluate<T>(expression: string): Promise<T> {
  const reply = (await browser.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, page)) as {
    result: { value?: T };
    exceptionDetails?: { text: string; exception?: { description?: string } };
  };
  if (reply.exceptionDetails) throw new Error(`in the page: ${reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text}`);
  return reply.result.value as T;
}

/** Resolves with `expression`'s value once it is truthy, re-checked on every DOM change (no polling). */
function waitFor<T>(expression: string): Promise<T> {
  return evaluate<T>(`new Promise((resolve) => {
    const observer = new MutationObserver(() => check());
    const check = () => { const value = (${expression}); if (value) { observer.disconnect(); resolve(value); } };
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    check();
  })`);
}

/** A real mouse click in the middle of the element. */
async function click(selector: string): Promise<void> {
  const { x, y } = await evaluate<{ x: number; y: number }>(
    `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
  );
  for (const type of ['mousePressed', 'mouseReleased']) await browser.send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 }, page);
}

/** Focuses the field and types into it as a keyboard would. */
async function type(selector: string, text: string): Promise<void> {
  await evaluate(`document.querySelector(${JSON.stringify(selector)}).focus()`);
  await browser.send('Input.insertText', { text }, page);
}

async function open(url: string): Promise<void> {
  const loaded = new Promise<void>((resolve) => browser.onEvent((event, session) => event.method === 'Page.loadEventFired' && session === page && resolve()));
  await browser.send('Page.navigate', { url }, page);
  await loaded;
}

beforeAll(async () => {
  built = await bundlePage('examples/browser');
  site = await startStatic();
  sitePort = (site.address() as AddressInfo).port;
  mcp = await startExampleServer(`http://127.0.0.1:${sitePort}`);
  browser = Chromium.launch();
  page = await browser.newPage();
  browser.onEvent((event, session) => {
    if (session !== page) return;
    if (event.method === 'Runtime.exceptionThrown') problems.push(JSON.stringify(event.exceptionDetails));
    if (event.method === 'Runtime.consoleAPICalled' && (event.type === 'error' || event.type === 'warning')) problems.push(JSON.stringify(event.args));
  });
  for (const method of ['Page.enable', 'Runtime.enable']) await browser.send(method, {}, page);
  await browser.send('Emulation.setDeviceMetricsOverride', { width: 760, height: 860, deviceScaleFactor: 1, mobile: false }, page);
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
    await open(`http://127.0.0.1:${sitePort}/index.html?server=${encodeURIComponent(mcp.url)}`);
    // Connected or not, the status says so.
    const status = await waitFor<string>(`/^(Connected|Could not)/.test(document.getElementById('status').textContent) && document.getElementById('status').textContent`);
    expect(status).toBe(`Connected to ${mcp.url}`);
    expect(await evaluate(`[...document.querySelectorAll('#tools button')].map((b) => b.textContent)`)).toEqual(['deploy']);
  });

  it('calls deploy with arguments from its inputSchema, renders the question from its requestedSchema, submits the answer and shows the result', async () => {
    await click('#tools button');
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
    expect(problems).toEqual([]);

    const { data } = (await browser.send('Page.captureScreenshot', { format: 'png' }, page)) as { data: string };
    const png = Buffer.from(data, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // The docs' image changes only when asked (the page shows the server's port, so every run differs).
    if (process.env.UPDATE_SCREENSHOTS === '1') writeFileSync(`${ROOT}docs/images/browser-example.png`, png);
  });

  it('from an origin CORS does not allow, cannot connect and says so', async () => {
    await open(`http://localhost:${sitePort}/index.html?server=${encodeURIComponent(mcp.url)}`);
    const status = await waitFor<string>(`document.getElementById('status').className === 'error' && document.getElementById('status').textContent`);
    expect(status).toContain(`Could not connect to ${mcp.url}`);
    expect(await evaluate(`document.querySelectorAll('#tools button').length`)).toBe(0);
  });
});
