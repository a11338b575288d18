/**
 * The deploy tool on Fastify 5, with Fastify's own JSON parser:
 *
 *   npm run build && node dist/examples/fastify.js    # http://127.0.0.1:3000/mcp
 *   HOST=… PORT=… node dist/examples/fastify.js
 */

import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { McpServer } from 'tessera-mcp';
import { mcpFastify } from 'tessera-mcp/fastify';
import { addDeployTool } from './deploy.js';
import { endpointUrl, exitOnListenError, listenAddress } from './listen-address.js';

const address = listenAddress();
const server = new McpServer({ name: 'deploy-fastify', version: '1.0.0' });
addDeployTool(server);

const app = Fastify();
app.get('/health', async () => 'ok');
// On an interface other than loopback, name the hosts clients use: allowedHosts: ['mcp.example.com'].
await app.register(mcpFastify(server), { prefix: '/mcp' });

try {
  await app.listen({ port: address.port, host: address.host });
} catch (error) {
  exitOnListenError(error as NodeJS.ErrnoException, address);
}
console.log(`Tessera deploy server (Fastify) on ${endpointUrl(address.host, (app.server.address() as AddressInfo).port)}`);
const stop = (): void => void app.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
