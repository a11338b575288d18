/**
 * The server of the browser example: the deploy tool on
 * http://$HOST:$PORT/mcp (defaults 127.0.0.1 and 3000) with CORS on for the
 * page's origin — PAGE_ORIGIN, default http://127.0.0.1:8080 — so a page
 * served from elsewhere may call it. See docs/runtimes.md.
 */

import { McpServer } from 'tessera-mcp';
import { serveHttp } from 'tessera-mcp/node';
import { addDeployTool } from '../deploy.js';

const server = new McpServer({ name: 'tessera-browser-example', version: '0.1.0' });
addDeployTool(server);

const origins = (process.env.PAGE_ORIGIN ?? 'http://127.0.0.1:8080').split(',').map((o) => o.trim());
const running = await serveHttp(server, {
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  // An origin CORS allows is also one the Host/Origin guard lets through.
  cors: { origins },
});
console.log(`listening ${running.url} (CORS on for ${origins.join(', ')})`);
