/**
 * The Hono adapter (`tessera-mcp/hono`) on a real Hono app served by
 * @hono/node-server, behind a middleware that reads every JSON body first
 * (`await c.req.json()`, as validators do): see test/helpers/framework-contract.ts.
 */

import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { mcpHono } from '../../../src/hono.js';
import { frameworkContract, testServer } from '../../helpers/framework-contract.js';
import { rawMcpPost } from '../../helpers/raw-http.js';

frameworkContract('Hono', async (server, options) => {
  const app = new Hono();
  app.use(async (c, next) => {
    if (c.req.method === 'POST' && c.req.header('content-type')?.startsWith('application/json')) await c.req.json().catch(() => undefined);
    await next();
  });
  app.get('/health', (c) => c.text('ok'));
  const mcp = mcpHono(server, options);
  app.use(mcp.metadata);
  app.all('/mcp', mcp);
  let listener!: Server;
  const port = await new Promise<number>((resolve) => {
    listener = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server;
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => resolve());
        listener.closeAllConnections();
      }),
  };
});

describe('the Hono adapter after a middleware that read the raw body itself', () => {
  it('answers 500 saying why (Hono kept nothing of it), instead of failing obscurely', async () => {
    const app = new Hono();
    app.use(async (c, next) => {
      await c.req.raw.text(); // past Hono's cache: the body is gone
      await next();
    });
    app.all('/mcp', mcpHono(testServer()));
    let listener!: Server;
    const port = await new Promise<number>((resolve) => {
      listener = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server;
    });
    try {
      const reply = await rawMcpPost(`http://127.0.0.1:${port}/mcp`, 'tools/list');
      expect(reply.status).toBe(500);
      expect((reply.json?.error as { message: string }).message).toContain('The request body was read before the MCP endpoint and not kept');
    } finally {
      await new Promise<void>((resolve) => {
        listener.close(() => resolve());
        listener.closeAllConnections();
      });
    }
  });
});
