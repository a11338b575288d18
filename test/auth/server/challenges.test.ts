/**
 * Tessera as a protected resource, over real HTTP, against a real
 * authorization server (oidc-provider): the Protected Resource Metadata
 * (RFC 9728) at both well-known URLs, and every refusal the MCP spec and
 * RFC 6750 call for — 401 with `resource_metadata` and the scopes needed,
 * 400 for a broken `Authorization` header or a token in the query string,
 * 403 `insufficient_scope` — on POST, GET and DELETE alike.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer, protectedResource } from '../../../src/index.js';
import { serveHttp } from '../../../src/node.js';
import { rpc, standardHeaders, meta } from '../../helpers/http.js';
import { rawMcpPostLines } from '../../helpers/raw-http.js';
import { bearer, startProtectedTessera, type ProtectedTessera } from '../../helpers/protected-tessera.js';
import { quietLogger } from '../../helpers/results.js';
import { parseChallenges } from '../../../src/auth/client/www-authenticate.js';

let t: ProtectedTessera;
let metadataUrl: string;

beforeAll(async () => {
  t = await startProtectedTessera();
  metadataUrl = `${new URL(t.url).origin}/.well-known/oauth-protected-resource/mcp`;
});

afterAll(async () => {
  await t?.close();
});

/** The Bearer challenge of a response, its parameters by name. */
function challengeOf(headers: Headers): { scheme: string; params: Record<string, string> } {
  const header = headers.get('www-authenticate');
  expect(header, 'a WWW-Authenticate header').toBeTruthy();
  const [challenge] = parseChallenges(header!);
  return challenge!;
}

describe('Protected Resource Metadata (RFC 9728)', () => {
  it('is served at the path-based and the root well-known URL, without a token', async () => {
    for (const url of [metadataUrl, `${new URL(t.url).origin}/.well-known/oauth-protected-resource`]) {
      const response = await fetch(url);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual({
        resource: t.url,
        authorization_servers: [t.as.issuer],
        scopes_supported: ['mcp:read'],
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: expect.arrayContaining(['ES256', 'RS256', 'EdDSA']),
      });
    }
  });

  it('answers HEAD and OPTIONS, refuses other methods with 405 and Allow, and 404s other well-known paths', async () => {
    const head = await fetch(metadataUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const options = await fetch(metadataUrl, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const post = await fetch(metadataUrl, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await fetch(`${metadataUrl}/other`)).status).toBe(404);
    expect((await fetch(`${new URL(t.url).origin}/.well-known/oauth-authorization-server`)).status).toBe(404);
  });

  it('keeps the Host check (DNS rebinding) but not the Origin check on the public document', async () => {
    const fromPage = await fetch(metadataUrl, { headers: { origin: 'https://app.example.com' } });
    expect(fromPage.status).toBe(200);
  });

  it('is not served by a server without auth', async () => {
    const server = new McpServer({ name: 'open', version: '1' }, { logger: quietLogger() });
    const open = await serveHttp(server, { port: 0 });
    try {
      expect((await fetch(`${new URL(open.url).origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
    } finally {
      await open.close();
    }
  });
});

describe('401: no token', () => {
  it('challenges with resource_metadata and the scopes the request needs, no error code, and the request id in the body', async () => {
    const reply = await rpc(t.url, 'tools/list', {}, { id: 'list-1', skipValidation: true });
    expect(reply.status).toBe(401);
    const challenge = challengeOf(reply.headers);
    expect(challenge.scheme).toBe('bearer');
    expect(challenge.params).toEqual({ resource_metadata: metadataUrl, scope: 'mcp:read' });
    expect(reply.response).toMatchObject({ jsonrpc: '2.0', id: 'list-1', error: { code: -32600 } });
  });

  it("names a tool's own scopes next to the server's in the challenge", async () => {
    const reply = await rpc(t.url, 'tools/call', { name: 'rotate-keys', arguments: {} }, { skipValidation: true });
    expect(reply.status).toBe(401);
    expect(challengeOf(reply.headers).params.scope).toBe('mcp:read deploy mcp:write');
  });

  it('treats an unknown scheme (Basic) as no token', async () => {
    const reply = await rpc(t.url, 'tools/list', {}, { headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' }, skipValidation: true });
    expect(reply.status).toBe(401);
    expect(challengeOf(reply.headers).params.error).toBeUndefined();
  });

  it('authenticates before reading the body: a malformed body without a token is still 401', async () => {
    const reply = await rpc(t.url, 'tools/list', {}, { rawBody: '{not json', skipValidation: true });
    expect(reply.status).toBe(401);
  });

  it('authenticates GET and DELETE on their own', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(t.url, { method, headers: { accept: 'text/event-stream', 'mcp-session-id': 'anything', 'mcp-protocol-version': '2025-11-25' } });
      expect(response.status, method).toBe(401);
      expect(challengeOf(response.headers).params.resource_metadata).toBe(metadataUrl);
    }
  });
});

describe('400: a malformed request', () => {
  it.each([
    ['Bearer', 'no token'],
    ['Bearer    ', 'no token'],
    ['Bearer two tokens', 'two parts'],
    ['Bearer tok"en', 'a quote'],
    ['Bearer a, Bearer b', 'two headers joined'],
  ])('refuses Authorization: %s (%s) with invalid_request', async (authorization) => {
    const reply = await rpc(t.url, 'tools/list', {}, { headers: { authorization }, skipValidation: true });
    expect(reply.status).toBe(400);
    const challenge = challengeOf(reply.headers);
    expect(challenge.params.error).toBe('invalid_request');
    expect(challenge.params.resource_metadata).toBe(metadataUrl);
  });

  it('refuses two Authorization header lines, valid + junk or valid + valid, with invalid_request (node:http keeps only one of them)', async () => {
    const token = (await t.serviceToken('service-a')).accessToken;
    expect((await rawMcpPostLines(t.url, [['Authorization', `Bearer ${token}`]])).status).toBe(200);
    for (const second of ['Bearer junk', `Bearer ${token}`, '']) {
      const reply = await rawMcpPostLines(t.url, [
        ['Authorization', `Bearer ${token}`],
        ['authorization', second],
      ]);
      expect(reply.status, second).toBe(400);
      expect(parseChallenges(String(reply.headers['www-authenticate']))[0]!.params.error).toBe('invalid_request');
      expect(t.requests.at(-1)).toMatchObject({ status: 400 });
    }
  });

  it('never takes a token from the query string, even next to a valid header', async () => {
    const token = await t.serviceToken('service-a');
    const params = { _meta: meta() };
    const response = await fetch(`${t.url}?access_token=${token.accessToken}`, {
      method: 'POST',
      headers: { ...standardHeaders('tools/list', params), ...bearer(token) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params }),
    });
    expect(response.status).toBe(400);
    expect(challengeOf(response.headers).params.error).toBe('invalid_request');
    expect(challengeOf(response.headers).params.error_description).toContain('query string');
  });
});

describe('accepted tokens and ctx.auth', () => {
  it("lets a valid token through, and the handler sees its caller: subject, client, issuer, scopes", async () => {
    const token = await t.serviceToken('service-a', 'mcp:read mcp:write');
    const reply = await rpc(t.url, 'tools/call', { name: 'whoami', arguments: {} }, { headers: bearer(token) });
    expect(reply.status).toBe(200);
    const said = JSON.parse((reply.response!.result as { content: Array<{ text: string }> }).content[0]!.text);
    expect(said.auth).toEqual({ subject: 'service-a', clientId: 'service-a', issuer: t.as.issuer, scopes: ['mcp:read', 'mcp:write'] });
    expect(JSON.parse(said.principal)).toEqual([t.as.issuer, 'service-a', 'service-a']);
  });

  it('shows the caller to a handler whose notifications are held (it may ask what the request did not declare)', async () => {
    const token = await t.serviceToken('service-a', 'mcp:read');
    const reply = await rpc(t.url, 'tools/call', { name: 'whoami-may-sample', arguments: {} }, { headers: bearer(token) });
    expect(reply.status).toBe(200);
    const said = JSON.parse((reply.response!.result as { content: Array<{ text: string }> }).content[0]!.text);
    expect(said.auth).toEqual({ subject: 'service-a', clientId: 'service-a' });
  });

  it('knows a signed-in user from the client acting for them', async () => {
    const token = await t.userToken('alice', 'app-1');
    const reply = await rpc(t.url, 'tools/call', { name: 'whoami', arguments: {} }, { headers: bearer(token) });
    const said = JSON.parse((reply.response!.result as { content: Array<{ text: string }> }).content[0]!.text);
    expect(said.auth).toMatchObject({ subject: 'alice', clientId: 'app-1' });
  });

  it('takes the scheme name in any case', async () => {
    const token = await t.serviceToken('service-a');
    const reply = await rpc(t.url, 'tools/list', {}, { headers: { authorization: `bEaReR ${token.accessToken}` } });
    expect(reply.status).toBe(200);
  });
});

describe('403: insufficient scope', () => {
  it('lists every scope the operation needs in one challenge, before the tool runs', async () => {
    const token = await t.serviceToken('service-a', 'mcp:read deploy');
    const reply = await rpc(t.url, 'tools/call', { name: 'rotate-keys', arguments: {} }, { headers: bearer(token), skipValidation: true, id: 7 });
    expect(reply.status).toBe(403);
    const challenge = challengeOf(reply.headers);
    expect(challenge.params).toMatchObject({ error: 'insufficient_scope', scope: 'mcp:read deploy mcp:write', resource_metadata: metadataUrl });
    expect(challenge.params.error_description).toContain('deploy mcp:write');
    expect(reply.response).toMatchObject({ id: 7, error: { code: -32600 } });
  });

  it("refuses the server's own scope too, and passes once the token has it all", async () => {
    const none = await t.serviceToken('service-a', 'deploy');
    expect((await rpc(t.url, 'tools/list', {}, { headers: bearer(none), skipValidation: true })).status).toBe(403);
    const enough = await t.serviceToken('service-a', 'mcp:read deploy');
    const reply = await rpc(t.url, 'tools/call', { name: 'deploy', arguments: { service: 'api' } }, { headers: bearer(enough) });
    expect(reply.status).toBe(200);
    expect(JSON.stringify(reply.response)).toContain('deployed api for service-a');
  });

  it('gates prompts, resources, templates and completions by their own scopes', async () => {
    const reader = await t.serviceToken('service-a', 'mcp:read');
    const admin = await t.serviceToken('service-a', 'mcp:read admin');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['prompts/get', { name: 'secret-prompt' }],
      ['resources/read', { uri: 'memo://private' }],
      ['resources/read', { uri: 'vault://gold' }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'secret-prompt' }, argument: { name: 'x', value: '' } }],
    ];
    for (const [method, params] of calls) {
      const refused = await rpc(t.url, method, params, { headers: bearer(reader), skipValidation: true });
      expect(refused.status, `${method} ${JSON.stringify(params)}`).toBe(403);
      expect(challengeOf(refused.headers).params.scope).toBe('mcp:read admin');
      const allowed = await rpc(t.url, method, params, { headers: bearer(admin) });
      expect(allowed.status, `${method} ${JSON.stringify(params)}`).toBe(200);
    }
    expect((await rpc(t.url, 'resources/read', { uri: 'memo://public' }, { headers: bearer(reader) })).status).toBe(200);
  });

  it("gates subscribing to a resource's updates by its scopes, in both eras", async () => {
    const reader = await t.serviceToken('service-a', 'mcp:read');
    const listen = await rpc(t.url, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['memo://public', 'vault://x'] } }, { headers: bearer(reader), skipValidation: true });
    expect(listen.status).toBe(403);
    expect(challengeOf(listen.headers).params.scope).toBe('mcp:read admin');

    const { legacyInitialize, legacyPost, sessionHeaders } = await import('../../helpers/legacy-http.js');
    const { sessionId } = await legacyInitialize(t.url, { headers: bearer(reader) });
    const subscribe = await legacyPost(t.url, { jsonrpc: '2.0', id: 5, method: 'resources/subscribe', params: { uri: 'memo://private' } }, { ...sessionHeaders(sessionId), ...bearer(reader) }, { skipValidation: true });
    expect(subscribe.status).toBe(403);
    const allowed = await legacyPost(t.url, { jsonrpc: '2.0', id: 6, method: 'resources/subscribe', params: { uri: 'memo://public' } }, { ...sessionHeaders(sessionId), ...bearer(reader) });
    expect(allowed.status).toBe(200);
  });

  it('lists every tool to every caller: scopes are obtained by step-up, so a tool the token cannot call yet stays discoverable', async () => {
    const reader = await t.serviceToken('service-b', 'mcp:read');
    const reply = await rpc(t.url, 'tools/list', {}, { headers: bearer(reader) });
    const names = (reply.response!.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['whoami', 'deploy', 'rotate-keys']));
    // Scopes are the server's business: not published in the tool descriptors.
    expect(JSON.stringify(reply.response)).not.toContain('"scopes"');
  });
});

describe('503: the token cannot be checked now', () => {
  it('says so without a challenge when the authorization server is unreachable', async () => {
    const server = new McpServer({ name: 'orphan', version: '1' }, { logger: quietLogger() });
    server.tool('echo', {}, async () => 'hi');
    const warnings: string[] = [];
    const http = await serveHttp(server, { port: 0, auth: protectedResource({ issuer: 'http://127.0.0.1:9/', logger: { warn: (m) => void warnings.push(m) } }) });
    try {
      const token = await t.serviceToken('service-a');
      const reply = await rpc(http.url, 'tools/list', {}, { headers: bearer(token), skipValidation: true });
      expect(reply.status).toBe(401); // another issuer: refused before any key is fetched
      const forged = await t.as.signAccessToken({ iss: 'http://127.0.0.1:9/', aud: http.url, exp: Math.floor(Date.now() / 1000) + 60, sub: 'x' });
      const unavailable = await rpc(http.url, 'tools/list', {}, { headers: bearer(forged), skipValidation: true });
      expect(unavailable.status).toBe(503);
      expect(unavailable.headers.get('www-authenticate')).toBeNull();
      // The metadata fetch failed: none again before jwksCooldownMs (30 s by default), which Retry-After says.
      expect(unavailable.headers.get('retry-after')).toBe('30');
      expect(unavailable.response).toMatchObject({ error: { code: -32603 } });
      expect(warnings.join('\n')).toContain('Could not check an access token');
    } finally {
      await http.close();
    }
  });
});
