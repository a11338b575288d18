/**
 * The deploy tool on Express 5, with express.json() parsing every body:
 *
 *   npm run build && node dist/examples/express.js    # http://127.0.0.1:3000/mcp
 *   HOST=… PORT=… node dist/examples/express.js
 */

import type { Server } from 'node:http';
import express from 'express';
import { McpServer } from 'tessera-mcp';
import { mcpExpress } from 'tessera-mcp/express';
import { addDeployTool } from './deploy.js';
import { endpointUrl, exitOnListenError, listenAddress } from './listen-address.js';

const address = listenAddress();
const server = new McpServer({ name: 'deploy-express', version: '1.0.0' });
addDeployTool(server);

const app = express();
app.use(express.json());
app.get('/health', (_req, res) => {
  res.send('ok');
});
// On an interface other than loopback, name the hosts clients use: allowedHosts: ['mcp.example.com'].
app.use('/mcp', mcpExpress(server));

const listener: Server = app.listen(address.port, address.host, (error?: Error) => {
  if (error) exitOnListenError(error, address);
  const port = (listener.address() as { port: number }).port;
  console.log(`Tessera deploy server (Express) on ${endpointUrl(address.host, port)}`);
});
const stop = (): void => void listener.close(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
