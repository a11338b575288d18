/**
 * What every framework adapter must do (issue 17), as one set of tests each
 * adapter's file runs against a real server of that framework on 127.0.0.1:
 * the endpoint mounted at /mcp with the framework's JSON body parser active,
 * called by Tessera's client in both eras with a tool that asks; the app's
 * other routes left to the app; and the built-in transport's Host/Origin
 * guard, body limit, `auth` challenge and CORS preflight kept.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, McpServer, protectedResource } from '../../src/index.js';
import { Client } from '../../src/client.js';
import type { HttpTransportOptions } from '../../src/node.js';
import { rawMcpPost, rawMcpPostLines, rawRequest } from './raw-http.js';
import { quietLogger } from './results.js';

export interface MountedApp {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts an app of the framework on 127.0.0.1 (port 0) with: its JSON body
 * parser active for every route (or, where the framework has none global,
 * a middleware that reads the JSON body first); `GET /health` answering
 * `ok`; the adapter mounted at `/mcp` the framework's way; and the
 * adapter's metadata route at the app's root.
 */
export type StartApp = (server: McpServer, options: HttpTransportOptions) => Promise<MountedApp>;

export function testServer(): McpServer {
  const server = new McpServer({ name: 'framework-adapter', version: '1.0.0' }, { logger: quietLogger() });
  server.tool('confirm', { description: 'Asks before it confirms.', input: z.object({ item: z.string() }) }, async ({ item }, ctx) => {
    const answer = await ctx.ask(ask.form(`Confirm ${item}?`, z.object({ ok: z.boolean() }), { key: 'ok' }));
    return answer.action === 'accept' && answer.content.ok ? `${item}: confirmed` : `${item}: declined`;
  });
  return server;
}

function newClient(era: 'modern' | 'legacy', asked: string[]): Client {
  return new Client(
    { name: 'adapter-tests', version: '1.0.0' },
    {
      era,
      // A request that never completes (the hang of issue 17) fails here instead of at the test's timeout.
      requestTimeoutMs: 10_000,
      elicitation: {
        form: async (params) => {
          asked.push(params.message);
          return { action: 'accept', content: { ok: true } };
        },
      },
    },
  );
}

const textOf = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text;
const originOf = (url: string): string => new URL(url).origin;

export function frameworkContract(framework: string, start: StartApp): void {
  describe(`the ${framework} adapter`, () => {
    const open: MountedApp[] = [];
    const mount = async (options: HttpTransportOptions = {}): Promise<MountedApp> => {
      const app = await start(testServer(), options);
      open.push(app);
      return app;
    };
    afterEach(async () => {
      for (const app of open.splice(0)) await app.close();
    });

    it('serves a tool that asks (MRTR), mounted at /mcp behind the JSON body parser', async () => {
      const app = await mount();
      const asked: string[] = [];
      const client = newClient('modern', asked);
      try {
        await client.connect(app.url);
        expect(client.era).toBe('modern');
        expect(textOf(await client.callTool('confirm', { item: 'release' }))).toBe('release: confirmed');
        expect(asked).toEqual(['Confirm release?']);
      } finally {
        await client.close();
      }
    });

    it('serves a 2025-11-25 session (the client pinned to the legacy era), the question a real elicitation request', async () => {
      const app = await mount();
      const asked: string[] = [];
      const client = newClient('legacy', asked);
      try {
        await client.connect(app.url);
        expect(client.protocolVersion).toBe('2025-11-25');
        expect(textOf(await client.callTool('confirm', { item: 'rollback' }))).toBe('rollback: confirmed');
        expect(asked).toEqual(['Confirm rollback?']);
      } finally {
        await client.close();
      }
    });

    it("leaves the app's other routes to the app: /health beside it, /mcp/elsewhere not answered as MCP", async () => {
      const app = await mount();
      const health = await fetch(`${originOf(app.url)}/health`);
      expect(await health.text()).toBe('ok');
      const elsewhere = await rawMcpPost(`${app.url}/elsewhere`, 'tools/list');
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body).not.toContain('jsonrpc');
    });

    it('refuses a Host that is not allowed with 403 (DNS-rebinding guard)', async () => {
      const app = await mount();
      const reply = await rawMcpPost(app.url, 'tools/list', {}, { Host: 'evil.example' });
      expect(reply.status).toBe(403);
      expect((reply.json?.error as { message: string }).message).toContain("Host 'evil.example' is not allowed");
      const origin = await rawMcpPost(app.url, 'tools/list', {}, { Origin: 'http://evil.example' });
      expect(origin.status).toBe(403);
    });

    it('refuses a body over maxBodyBytes with 413, announced or chunked', async () => {
      const app = await mount({ maxBodyBytes: 4096 });
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding: 'x'.repeat(8192) } });
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' };
      for (const body of [big, [big.slice(0, 4000), big.slice(4000)]]) {
        const reply = await rawRequest(app.url, { headers, body });
        expect(reply.status).toBe(413);
        expect((reply.json?.error as { message: string }).message).toContain('Payload too large: the limit is 4096 bytes');
      }
      // A small one still goes through the same app.
      expect((await rawMcpPost(app.url, 'tools/list')).status).toBe(200);
    });

    it('refuses a body that is not application/json with 415, as the built-in transport does', async () => {
      const app = await mount();
      const reply = await rawRequest(app.url, { headers: { 'Content-Type': 'application/xml', Accept: 'application/json, text/event-stream' }, body: '<hello/>' });
      expect(reply.status).toBe(415);
      expect((reply.json?.error as { message: string }).message).toContain('Unsupported media type');
    });

    it('protected (auth): 401 with a WWW-Authenticate challenge, and the Protected Resource Metadata served at the root', async () => {
      const resource = 'https://mcp.example.com/mcp';
      const app = await mount({ auth: protectedResource({ issuer: 'https://auth.example.com', resource }) });
      const reply = await rawMcpPost(app.url, 'tools/list');
      expect(reply.status).toBe(401);
      expect(reply.headers['www-authenticate']).toContain('resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"');
      const metadata = await fetch(`${originOf(app.url)}/.well-known/oauth-protected-resource/mcp`);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({ resource, authorization_servers: ['https://auth.example.com'] });
    });

    it('protected (auth): two Authorization header lines are a 400 invalid_request, whatever they hold', async () => {
      // Port 1: nothing listens, so a token that got as far as the verifier would be a 503, not a 400.
      const app = await mount({ auth: protectedResource({ issuer: 'http://127.0.0.1:1', resource: 'https://mcp.example.com/mcp' }) });
      for (const second of ['Bearer junk', 'Bearer abc', '']) {
        const reply = await rawMcpPostLines(app.url, [
          ['Authorization', 'Bearer abc'],
          ['Authorization', second],
        ]);
        expect(reply.status, second).toBe(400);
        expect(reply.headers['www-authenticate']).toContain('error="invalid_request"');
      }
    });

    it('answers a CORS preflight for an allowed origin as the built-in transport does', async () => {
      const app = await mount({ cors: { origins: ['https://app.example'] } });
      const reply = await rawRequest(app.url, {
        method: 'OPTIONS',
        headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, mcp-method' },
      });
      expect(reply.status).toBe(204);
      expect(reply.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(reply.headers['access-control-allow-headers']).toBe('content-type, mcp-method');
    });
  });
}
