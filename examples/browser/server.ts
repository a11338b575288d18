/**
 * The server of the browser example: the deploy tool, and the deployments
 * board (an MCP app: deploy-board.ts), on http://$HOST:$PORT/mcp (defaults
 * 127.0.0.1 and 3000) with CORS on for the page's origin — PAGE_ORIGIN,
 * default http://127.0.0.1:8080 — so a page served from elsewhere may call it.
 * It also serves the page's sandbox proxy for apps on http://$HOST:$SANDBOX_PORT/
 * (default 3001): another origin than the page's, as apps need. See
 * docs/runtimes.md and docs/apps.md.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from 'tessera-mcp';
import { apps } from 'tessera-mcp/apps';
import { sandboxProxyHtml } from 'tessera-mcp/apps-host';
import { serveHttp } from 'tessera-mcp/node';
import { addDeployTool } from '../deploy.js';
import { addDeployBoard } from './deploy-board.js';

const server = new McpServer({ name: 'tessera-browser-example', version: '0.1.0' }, { extensions: [apps()] });
addDeployTool(server);
addDeployBoard(server);

const host = process.env.HOST ?? '127.0.0.1';
const origins = (process.env.PAGE_ORIGIN ?? 'http://127.0.0.1:8080').split(',').map((o) => o.trim());
const running = await serveHttp(server, {
  port: Number(process.env.PORT ?? 3000),
  host,
  // An origin CORS allows is also one the Host/Origin guard lets through.
  cors: { origins },
});
console.log(`listening ${running.url} (CORS on for ${origins.join(', ')})`);

const proxyPage = sandboxProxyHtml();
const sandbox = createServer((req, res) => {
  if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://x').pathname !== '/') return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(proxyPage);
});
sandbox.listen(Number(process.env.SANDBOX_PORT ?? 3001), host, () => {
  console.log(`sandbox http://${host}:${(sandbox.address() as AddressInfo).port}/`);
});
