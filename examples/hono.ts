/**
 * The deploy tool on Hono (served on Node by @hono/node-server), behind a
 * middleware that reads every JSON body with `c.req.json()` first, as an
 * app's validators do:
 *
 *   npm run build && node dist/examples/hono.js    # http://127.0.0.1:3000/mcp
 *   HOST=… PORT=… node dist/examples/hono.js
 *
 * On Bun, Deno or Workers, export `app` (its `fetch`) instead of calling serve.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { McpServer } from 'tessera-mcp';
import { mcpHono } from 'tessera-mcp/hono';
import { addDeployTool } from './deploy.js';
import { endpointUrl, exitOnListenError, listenAddress } from './listen-address.js';

const address = listenAddress();
const server = new McpServer({ name: 'deploy-hono', version: '1.0.0' });
addDeployTool(server);

const app = new Hono();
app.use(async (c, next) => {
  // The app's own body parsing, e.g. for a log line; the MCP handler takes the body from Hono's cache.
  if (c.req.header('content-type')?.startsWith('application/json')) await c.req.json().catch(() => undefined);
  await next();
});
app.get('/health', (c) => c.text('ok'));
// On an interface other than loopback, name the hosts clients use: allowedHosts: ['mcp.example.com'].
app.all('/mcp', mcpHono(server));

const listener = serve({ fetch: app.fetch, port: address.port, hostname: address.host }, (info: AddressInfo) => {
  console.log(`Tessera deploy server (Hono) on ${endpointUrl(address.host, info.port)}`);
}) as Server;
listener.once('error', (error) => exitOnListenError(error, address));
const stop = (): void => void listener.close(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
