/**
 * The knobs of a protected resource, against real tokens: a scope hierarchy
 * (a broad scope grants narrower ones), anonymous access next to scoped
 * tools, the `authenticate` hook after token verification (it sees the
 * caller, may refuse, may rename the principal, and runs on GET and DELETE
 * too), a custom verifier, and the fetch adapter (which needs its resource
 * named). Over an in-memory link (like stdio) there are no tokens: handlers
 * see no `ctx.auth` and scopes are not enforced.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLinkPair,
  InvalidTokenError,
  McpServer,
  protectedResource,
  serveLink,
  type AuthInfo,
  type ProtectedResourceOptions,
} from '../../../src/index.js';
import { HttpError } from '../../../src/node.js';
import { Client, LinkClientTransport } from '../../../src/client.js';
import { serveHttp, type RunningHttpServer } from '../../../src/node.js';
import { createFetchHandler } from '../../../src/fetch.js';
import { startAuthorizationServer, type RunningAuthorizationServer } from '../../helpers/authorization-server.js';
import { meta, rpc, standardHeaders } from '../../helpers/http.js';
import { bearer, CLIENTS, protectedTools, RESOURCE_SCOPES } from '../../helpers/protected-tessera.js';
import { quietLogger } from '../../helpers/results.js';

let as: RunningAuthorizationServer;
const servers: RunningHttpServer[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer({ resourceScopes: RESOURCE_SCOPES, clients: CLIENTS });
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await as?.close();
});

function build(): McpServer {
  const server = new McpServer({ name: 'options', version: '1.0.0' }, { logger: quietLogger() });
  protectedTools(server);
  return server;
}

async function serve(options: Partial<ProtectedResourceOptions>, extra: Parameters<typeof serveHttp>[1] = {}): Promise<RunningHttpServer> {
  const http = await serveHttp(build(), { port: 0, auth: protectedResource({ issuer: as.issuer, logger: { warn: () => undefined }, ...options }), ...extra });
  servers.push(http);
  return http;
}

function textOf(reply: { response?: Record<string, unknown> }): string {
  return JSON.stringify(reply.response);
}

describe('a scope hierarchy', () => {
  it('lets a broad scope stand for the narrower ones it implies, transitively', async () => {
    const { url } = await serve({ scopes: ['mcp:read'], impliedScopes: { admin: ['mcp:write', 'deploy'], 'mcp:write': ['mcp:read'] } });
    const admin = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'admin' });
    const reply = await rpc(url, 'tools/call', { name: 'rotate-keys', arguments: {} }, { headers: bearer(admin) });
    expect(reply.status).toBe(200);
    expect(textOf(reply)).toContain('rotated');
    const writer = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:write' });
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(writer) })).status).toBe(200);
    expect((await rpc(url, 'tools/call', { name: 'deploy', arguments: { service: 'x' } }, { headers: bearer(writer), skipValidation: true })).status).toBe(403);
  });
});

describe('anonymous access', () => {
  it('lets requests without a token in, except those whose operation needs a scope (401 naming it)', async () => {
    const { url } = await serve({ allowAnonymous: true });
    const anonymous = await rpc(url, 'tools/call', { name: 'whoami', arguments: {} });
    expect(anonymous.status).toBe(200);
    expect(textOf(anonymous)).toContain('\\"principal\\":null');
    const scoped = await rpc(url, 'tools/call', { name: 'deploy', arguments: { service: 'x' } }, { skipValidation: true });
    expect(scoped.status).toBe(401);
    expect(scoped.headers.get('www-authenticate')).toContain('scope="deploy"');
    // A token that is sent is still checked.
    expect((await rpc(url, 'tools/list', {}, { headers: bearer('garbage'), skipValidation: true })).status).toBe(401);
  });
});

describe('the authenticate hook after the token', () => {
  it('sees the verified caller, may refuse with HttpError, may name the principal — on POST, GET and DELETE', async () => {
    const seen: Array<{ method: string | undefined; auth: AuthInfo | undefined }> = [];
    const { url } = await serve(
      {},
      {
        authenticate: (header, auth) => {
          seen.push({ method: header('mcp-method') ?? header('mcp-session-id'), auth });
          if (auth?.clientId === 'service-b') throw new HttpError(403, 'service-b is suspended', { 'x-reason': 'suspended' });
          return auth ? `tenant-1:${auth.subject}` : undefined;
        },
      },
    );
    const a = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    const said = JSON.parse(JSON.parse(textOf(await rpc(url, 'tools/call', { name: 'whoami', arguments: {} }, { headers: bearer(a) }))).result.content[0].text);
    expect(said.principal).toBe('tenant-1:service-a');
    expect(seen.at(-1)!.auth).toMatchObject({ subject: 'service-a', clientId: 'service-a', scopes: ['mcp:read'] });

    const b = await as.clientCredentialsToken({ clientId: 'service-b', resource: url, scope: 'mcp:read' });
    const refused = await rpc(url, 'tools/list', {}, { headers: bearer(b), skipValidation: true });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-reason')).toBe('suspended');

    const before = seen.length;
    const get = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': 'nope', ...bearer(a) } });
    const del = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': 'nope', ...bearer(a) } });
    expect([get.status, del.status]).toEqual([404, 404]);
    expect(seen.length).toBe(before + 2);
  });
});

describe('a verifier of your own', () => {
  it('supplies the claims; the issuer, audience and expiry checks still apply', async () => {
    let url = '';
    const verifier = {
      verify: async (token: string) => {
        if (token === 'good') return { iss: as.issuer, aud: url, exp: Math.floor(Date.now() / 1000) + 60, sub: 'api-key-user', client_id: 'key-1', scope: 'mcp:read' };
        if (token === 'foreign') return { iss: as.issuer, aud: 'https://other.example', exp: Math.floor(Date.now() / 1000) + 60 };
        if (token === 'broken') throw new Error('database down');
        throw new InvalidTokenError('Unknown API key');
      },
    };
    ({ url } = await serve({ verifier }));
    expect(textOf(await rpc(url, 'tools/call', { name: 'whoami', arguments: {} }, { headers: bearer('good') }))).toContain('api-key-user');
    const unknown = await rpc(url, 'tools/list', {}, { headers: bearer('nope'), skipValidation: true });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toContain('Unknown API key');
    expect((await rpc(url, 'tools/list', {}, { headers: bearer('foreign'), skipValidation: true })).status).toBe(401);
    expect((await rpc(url, 'tools/list', {}, { headers: bearer('broken'), skipValidation: true })).status).toBe(503);
  });
});

describe('the fetch adapter', () => {
  it('protects its endpoint and serves the metadata when routed there', async () => {
    const resource = 'https://mcp.example.com/tenant/mcp';
    const handler = createFetchHandler(build(), { auth: protectedResource({ issuer: as.issuer, resource }), allowedHosts: ['mcp.example.com'] });
    const metadata = await handler(new Request('https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp', { headers: { host: 'mcp.example.com' } }));
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ resource, authorization_servers: [as.issuer] });
    const params = { _meta: meta() };
    const refused = await handler(
      new Request(resource, { method: 'POST', headers: { host: 'mcp.example.com', ...standardHeaders('tools/list', params) }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params }) }),
    );
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp"');
    const token = await as.clientCredentialsToken({ clientId: 'service-a', resource, scope: 'mcp:read' });
    const accepted = await handler(
      new Request(resource, {
        method: 'POST',
        headers: { host: 'mcp.example.com', ...standardHeaders('tools/list', params), ...bearer(token) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params }),
      }),
    );
    expect(accepted.status).toBe(200);
  });
});

describe('without HTTP', () => {
  it('has no ctx.auth and enforces no scopes over a message link (stdio works the same)', async () => {
    const [serverEnd, clientEnd] = createLinkPair();
    serveLink(build(), serverEnd);
    const client = new Client({ name: 'local', version: '1' }, { era: 'modern' });
    await client.connect(new LinkClientTransport(clientEnd, 'memory'));
    try {
      const said = JSON.parse(((await client.callTool('whoami')).content[0] as { text: string }).text);
      expect(said).toEqual({ principal: null, auth: null });
      expect(((await client.callTool('deploy', { service: 'local' })).content[0] as { text: string }).text).toBe('deployed local for undefined');
    } finally {
      await client.close();
    }
  });
});
