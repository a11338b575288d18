/** The Fastify 5 adapter (`tessera-mcp/fastify`) on a real Fastify app, with Fastify's own JSON parser: see test/helpers/framework-contract.ts. */

import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { mcpFastify } from '../../../src/fastify.js';
import { frameworkContract } from '../../helpers/framework-contract.js';

frameworkContract('Fastify', async (server, options) => {
  const app = Fastify({ forceCloseConnections: true });
  app.get('/health', async () => 'ok');
  const mcp = mcpFastify(server, options);
  await app.register(mcp, { prefix: '/mcp' });
  await app.register(mcp.metadata);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`,
    close: () => app.close(),
  };
});
