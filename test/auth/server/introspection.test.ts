/**
 * Opaque access tokens checked with token introspection (RFC 7662) at a
 * real authorization server (oidc-provider issuing opaque tokens): the
 * resource server authenticates as its own client, takes an active token's
 * answer as its claims (audience still checked), remembers answers briefly,
 * and refuses revoked or unknown tokens; a failing introspection is 503.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer, protectedResource, tokenIntrospection, type TokenIntrospectionOptions } from '../../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../../src/node.js';
import { startAuthorizationServer, type RunningAuthorizationServer } from '../../helpers/authorization-server.js';
import { rpc } from '../../helpers/http.js';
import { bearer, CLIENTS, protectedTools, RESOURCE_SCOPES } from '../../helpers/protected-tessera.js';
import { quietLogger } from '../../helpers/results.js';

let as: RunningAuthorizationServer;
const servers: RunningHttpServer[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer({ resourceScopes: RESOURCE_SCOPES, clients: CLIENTS, accessTokenFormat: 'opaque' });
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await as?.close();
});

function countingFetch(): { fetch: typeof fetch; introspections: () => number } {
  const calls: string[] = [];
  return {
    introspections: () => calls.filter((path) => path.endsWith('/introspection')).length,
    fetch: (input, init) => {
      calls.push(new URL(String(input)).pathname);
      return fetch(input, init);
    },
  };
}

async function serve(options: Partial<TokenIntrospectionOptions> = {}): Promise<RunningHttpServer> {
  const server = new McpServer({ name: 'introspecting', version: '1.0.0' }, { logger: quietLogger() });
  protectedTools(server);
  const verifier = tokenIntrospection({ clientId: 'the-resource-server', clientSecret: 'the-resource-server-secret', ...options });
  const http = await serveHttp(server, { port: 0, auth: protectedResource({ issuer: as.issuer, scopes: ['mcp:read'], verifier, logger: { warn: () => undefined } }) });
  servers.push(http);
  return http;
}

async function revoke(token: string): Promise<void> {
  const response = await fetch(`${as.issuer}/token/revocation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('service-a:service-a-secret').toString('base64')}` },
    body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
  });
  expect(response.status).toBe(200);
}

describe('token introspection', () => {
  it('accepts an active opaque token, and the handler sees the caller the introspection describes', async () => {
    const { url } = await serve();
    const token = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read mcp:write' });
    expect(token.accessToken.split('.')).toHaveLength(1); // opaque: not a JWT
    const reply = await rpc(url, 'tools/call', { name: 'whoami', arguments: {} }, { headers: bearer(token) });
    expect(reply.status).toBe(200);
    const said = JSON.parse((reply.response!.result as { content: Array<{ text: string }> }).content[0]!.text);
    expect(said.auth).toEqual({ subject: 'service-a', clientId: 'service-a', issuer: as.issuer, scopes: ['mcp:read', 'mcp:write'] });
  });

  it('asks once for a token used again and again (short cache)', async () => {
    const counting = countingFetch();
    const { url } = await serve({ fetch: counting.fetch });
    const token = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    for (let i = 0; i < 4; i++) expect((await rpc(url, 'tools/list', {}, { headers: bearer(token) })).status).toBe(200);
    expect(counting.introspections()).toBe(1);
  });

  it('refuses a revoked token once its answer is no longer remembered (cacheMs: 0 asks every time)', async () => {
    const { url } = await serve({ cacheMs: 0 });
    const token = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    expect((await rpc(url, 'tools/list', {}, { headers: bearer(token) })).status).toBe(200);
    await revoke(token.accessToken);
    const refused = await rpc(url, 'tools/list', {}, { headers: bearer(token), skipValidation: true });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(refused.headers.get('www-authenticate')).toContain('not active');
  });

  it('refuses an unknown token, and an active one issued for another resource', async () => {
    const { url } = await serve();
    expect((await rpc(url, 'tools/list', {}, { headers: bearer('made-up-token-value'), skipValidation: true })).status).toBe(401);
    const other = await as.clientCredentialsToken({ clientId: 'service-a', resource: 'http://127.0.0.1:1/elsewhere', scope: 'mcp:read' });
    const refused = await rpc(url, 'tools/list', {}, { headers: bearer(other), skipValidation: true });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('not for this resource');
  });

  it('answers 503, not 401, when the authorization server refuses the resource server itself', async () => {
    const { url } = await serve({ clientSecret: 'wrong-secret' });
    const token = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    const reply = await rpc(url, 'tools/list', {}, { headers: bearer(token), skipValidation: true });
    expect(reply.status).toBe(503);
  });

  it('is configured with the credentials it introspects with, and an https endpoint', () => {
    expect(() => tokenIntrospection({ clientId: '', clientSecret: 'x' })).toThrow(TypeError);
    expect(() => tokenIntrospection({ clientId: 'a', clientSecret: 'b', endpoint: 'http://as.example.com/introspect' })).toThrow(/https/);
  });
});
