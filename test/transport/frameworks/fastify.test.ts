/** The Fastify 5 adapter (`tessera-mcp/fastify`) on a real Fastify app, with Fastify's own JSON parser: see test/helpers/framework-contract.ts. */

import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { McpServer } from '../../../src/index.js';
import { mcpFastify, type HttpTransportOptions } from '../../../src/fastify.js';
import { frameworkContract, testServer, type MountedApp } from '../../helpers/framework-contract.js';
import { rawRequest } from '../../helpers/raw-http.js';

async function start(server: McpServer, options: HttpTransportOptions): Promise<MountedApp> {
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
}

frameworkContract('Fastify', start);

describe("the Fastify adapter and Fastify's JSON parser", () => {
  it('answers a body the parser refuses (not JSON, empty) with -32700, as the built-in transport does', async () => {
    const app = await start(testServer(), {});
    try {
      for (const body of ['{not json', '']) {
        const reply = await rawRequest(app.url, { headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body });
        expect(reply.status).toBe(400);
        expect(reply.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
      }
    } finally {
      await app.close();
    }
  });
});
