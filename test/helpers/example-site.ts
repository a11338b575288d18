/**
 * What the browser tests serve: a built page's files from a tiny static
 * server on 127.0.0.1, and the browser example's server (examples/browser/
 * server.ts) as a child process — its MCP endpoint, with CORS on for the
 * page's origin, and the sandbox proxy page for apps on another port.
 */

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, normalize } from 'node:path';
import { generateStateKey } from '../../src/index.js';
import { compiledFile, ROOT, trackPid } from './child-processes.js';

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/** Serves the files of `dir` (html and js only), nothing else. */
export function startStatic(dir: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^\/+/, '');
    const type = TYPES[extname(path)];
    if (path.startsWith('..') || !type) return void res.writeHead(404).end();
    try {
      res.writeHead(200, { 'content-type': type }).end(readFileSync(`${dir}${path}`));
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export interface ExampleServer {
  /** The MCP endpoint. */
  url: string;
  /** The sandbox proxy page for apps. */
  sandbox: string;
  pid: number;
}

/** The browser example's server, with CORS on for `pageOrigin`; resolves once both its ports listen. */
export async function startExampleServer(pageOrigin: string): Promise<ExampleServer> {
  const dir = `${ROOT}examples/browser/`;
  const file = compiledFile('examples/browser/server.js', [`${dir}server.ts`, `${dir}deploy-board.ts`, `${ROOT}examples/deploy.ts`]);
  const child = spawn(process.execPath, [file], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '0', SANDBOX_PORT: '0', HOST: '127.0.0.1', PAGE_ORIGIN: pageOrigin, TESSERA_STATE_KEYS: generateStateKey('browser') },
  });
  trackPid(child.pid);
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
  return new Promise<ExampleServer>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      const url = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)/m.exec(output)?.[1];
      const sandbox = /^sandbox (http:\/\/127\.0\.0\.1:\d+\/)/m.exec(output)?.[1];
      if (url && sandbox) resolve({ url, sandbox, pid: child.pid! });
    });
    child.once('exit', (code) => reject(new Error(`the example server exited (${code}): ${output}`)));
  });
}

/** Serves the sandbox proxy page for apps (`sandboxProxyHtml()`) at `/` on a port of its own. */
export function startSandboxProxy(html: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
