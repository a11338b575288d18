/**
 * JWT access tokens (RFC 9068) as Tessera's resource server verifies them:
 * real tokens from oidc-provider, and tokens forged with jose — signed with
 * another key, `alg: none`, HMAC with the public key as the secret, expired,
 * not yet valid, for another audience, from another issuer, of the wrong
 * `typ` — each refused with 401 `invalid_token` before any handler runs. A
 * key rotation at the authorization server is picked up without a restart;
 * the issuer's keys are fetched once, and never for an issuer not trusted.
 */

import { exportJWK, generateKeyPair, SignJWT, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtAccessTokens, McpServer, protectedResource, type JwtAccessTokenOptions, type ProtectedResourceOptions } from '../../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../../src/node.js';
import { parseChallenges } from '../../../src/auth/client/www-authenticate.js';
import { startAuthorizationServer, type RunningAuthorizationServer } from '../../helpers/authorization-server.js';
import { rpc } from '../../helpers/http.js';
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

/** What the authorization server's metadata and key set were asked for, by path. */
function countingFetch(): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fetch: (input, init) => {
      calls.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
      return fetch(input, init);
    },
  };
}

async function protectedServer(jwt: JwtAccessTokenOptions = {}, options: Partial<ProtectedResourceOptions> = {}): Promise<RunningHttpServer> {
  const server = new McpServer({ name: 'jwt-tests', version: '1.0.0' }, { logger: quietLogger() });
  protectedTools(server);
  const http = await serveHttp(server, { port: 0, auth: protectedResource({ issuer: as.issuer, verifier: jwtAccessTokens(jwt), logger: { warn: () => undefined }, ...options }) });
  servers.push(http);
  return http;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** Claims as the authorization server issues them for `resource`. */
function claimsFor(resource: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { iss: as.issuer, aud: resource, sub: 'mallory', client_id: 'service-a', scope: 'mcp:read', iat: now(), exp: now() + 300, jti: crypto.randomUUID(), ...overrides };
}

async function status(url: string, token: string): Promise<{ status: number; error?: string; description?: string }> {
  const reply = await rpc(url, 'tools/list', {}, { headers: bearer(token), skipValidation: true });
  const header = reply.headers.get('www-authenticate');
  const params = header ? parseChallenges(header)[0]!.params : {};
  return { status: reply.status, error: params.error, description: params.error_description };
}

describe('forged tokens', () => {
  let url: string;
  beforeAll(async () => {
    url = (await protectedServer()).url;
  });

  it('accepts the real thing', async () => {
    const token = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    expect(await status(url, token.accessToken)).toEqual({ status: 200, error: undefined, description: undefined });
  });

  it('refuses a token signed with another key under the real kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claimsFor(url)).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: as.signingKid }).sign(privateKey);
    expect(await status(url, forged)).toMatchObject({ status: 401, error: 'invalid_token', description: expect.stringContaining('signature') });
  });

  it('refuses a token signed with a key the issuer never published', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claimsFor(url)).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'attacker-key' }).sign(privateKey);
    expect(await status(url, forged)).toMatchObject({ status: 401, error: 'invalid_token', description: expect.stringContaining('key') });
  });

  it('refuses alg: none', async () => {
    const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${part({ alg: 'none', typ: 'at+jwt' })}.${part(claimsFor(url))}.`;
    expect(await status(url, unsigned)).toMatchObject({ status: 401, error: 'invalid_token', description: expect.stringContaining('algorithm') });
  });

  it('refuses HS256 keyed with the public key (algorithm confusion)', async () => {
    const jwks = (await (await fetch(as.jwksUrl)).json()) as { keys: JWK[] };
    const secret = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
    const forged = await new SignJWT(claimsFor(url)).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: as.signingKid }).sign(secret);
    expect(await status(url, forged)).toMatchObject({ status: 401, error: 'invalid_token', description: expect.stringContaining('algorithm') });
  });

  it('refuses an expired token, but tolerates a few seconds of clock skew', async () => {
    expect(await status(url, await as.signAccessToken(claimsFor(url, { exp: now() - 60, iat: now() - 360 })))).toMatchObject({
      status: 401,
      error: 'invalid_token',
      description: expect.stringContaining('expired'),
    });
    expect((await status(url, await as.signAccessToken(claimsFor(url, { exp: now() - 3 })))).status).toBe(200);
  });

  it('refuses a token that is not valid yet (nbf)', async () => {
    expect(await status(url, await as.signAccessToken(claimsFor(url, { nbf: now() + 120 })))).toMatchObject({ status: 401, error: 'invalid_token' });
  });

  it('refuses a real token issued for another resource (RFC 8707 audience)', async () => {
    const other = await as.clientCredentialsToken({ clientId: 'service-a', resource: 'http://127.0.0.1:1/other-mcp', scope: 'mcp:read' });
    expect(await status(url, other.accessToken)).toMatchObject({ status: 401, error: 'invalid_token', description: expect.stringContaining('not for this resource') });
  });

  it('refuses a token naming another issuer, without fetching anything from it', async () => {
    expect(await status(url, await as.signAccessToken(claimsFor(url, { iss: 'https://evil.example' })))).toMatchObject({
      status: 401,
      error: 'invalid_token',
      description: expect.stringContaining('issuer'),
    });
  });

  it('refuses a token without exp, and one whose typ is not at+jwt (RFC 9068 §4)', async () => {
    const { exp: _exp, ...forever } = claimsFor(url);
    expect(await status(url, await as.signAccessToken(forever))).toMatchObject({ status: 401, error: 'invalid_token' });
    expect(await status(url, await as.signAccessToken(claimsFor(url), { typ: 'JWT' }))).toMatchObject({ status: 401, description: expect.stringContaining('typ') });
    expect((await status(url, await as.signAccessToken(claimsFor(url), { typ: 'application/at+jwt' }))).status).toBe(200);
  });

  it('refuses what is not a JWT at all', async () => {
    expect(await status(url, 'not-a-jwt')).toMatchObject({ status: 401, error: 'invalid_token' });
  });

  it('compares audiences as exact strings (RFC 7519 §4.1.3): a query, a fragment or another spelling names another resource', async () => {
    const shouted = url.replace('http://127.0.0.1', 'HTTP://127.0.0.1');
    for (const aud of [`${url}?tenant=evil`, `${url}#evil`, `${url}/`, shouted, [`${url}?tenant=evil`, 'https://elsewhere.example']]) {
      expect(await status(url, await as.signAccessToken(claimsFor(url, { aud }))), JSON.stringify(aud)).toMatchObject({
        status: 401,
        error: 'invalid_token',
        description: expect.stringContaining('not for this resource'),
      });
    }
    // The resource the metadata names, alone or among others.
    expect((await status(url, await as.signAccessToken(claimsFor(url, { aud: ['https://elsewhere.example', url] })))).status).toBe(200);
  });

  it('refuses a token issued in the future (iat) beyond the clock skew, as it refuses nbf', async () => {
    expect(await status(url, await as.signAccessToken(claimsFor(url, { iat: now() + 86_400, exp: now() + 90_000 })))).toMatchObject({
      status: 401,
      error: 'invalid_token',
      description: expect.stringContaining('issued in the future'),
    });
    expect(await status(url, await as.signAccessToken(claimsFor(url, { iat: now() + 120 })))).toMatchObject({ status: 401, error: 'invalid_token' });
    // Within clockToleranceSeconds (10 s): a clock a little ahead is not a forgery.
    expect((await status(url, await as.signAccessToken(claimsFor(url, { iat: now() + 3 })))).status).toBe(200);
  });
});

describe('configuration', () => {
  it('takes audience aliases, exactly as written, and typ JWT when told to', async () => {
    const { url } = await protectedServer({ requireAccessTokenType: false }, { audiences: ['api://mcp'] });
    expect((await status(url, await as.signAccessToken(claimsFor(url, { aud: 'api://mcp' }), { typ: 'JWT' }))).status).toBe(200);
    expect((await status(url, await as.signAccessToken(claimsFor(url, { aud: 'api://mcp/' }), { typ: 'JWT' }))).status).toBe(401);
  });

  it('refuses to be configured with none or an HMAC algorithm', () => {
    expect(() => jwtAccessTokens({ algorithms: ['HS256'] })).toThrow(TypeError);
    expect(() => jwtAccessTokens({ algorithms: ['ES256', 'none'] })).toThrow(TypeError);
    expect(() => jwtAccessTokens({ jwksUri: 'http://keys.example.com/jwks' })).toThrow(/https/);
  });

  it('needs a resource when it cannot know its own URL, and one a client can reach', async () => {
    const { createFetchHandler } = await import('../../../src/fetch.js');
    const server = new McpServer({ name: 'x', version: '1' }, { logger: quietLogger() });
    expect(() => createFetchHandler(server, { auth: protectedResource({ issuer: as.issuer }) })).toThrow(/resource/);
    await expect(serveHttp(server, { port: 0, host: '0.0.0.0', auth: protectedResource({ issuer: as.issuer }) })).rejects.toThrow(/public URL/);
    expect(() => protectedResource({ issuer: [] })).toThrow(/issuer/);
    expect(() => protectedResource({ issuer: as.issuer, scopes: ['offline_access'] })).toThrow(/offline_access/);
    expect(() => protectedResource({ issuer: as.issuer, scopes: ['two words'] })).toThrow(/not an OAuth scope/);
  });
});

describe("the issuer's keys", () => {
  it('are found through the metadata and fetched once; a verified token is not checked again', async () => {
    const counting = countingFetch();
    const { url } = await protectedServer({ fetch: counting.fetch });
    const token = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    for (let i = 0; i < 5; i++) expect((await status(url, token.accessToken)).status).toBe(200);
    const second = await as.clientCredentialsToken({ clientId: 'service-b', resource: url, scope: 'mcp:read' });
    expect((await status(url, second.accessToken)).status).toBe(200);
    // oidc-provider answers the RFC 8414 location, the first the spec says to try.
    expect(counting.calls).toEqual(['/.well-known/oauth-authorization-server', '/jwks']);
  });

  it('are never fetched for a token from an issuer this server does not trust', async () => {
    const counting = countingFetch();
    const { url } = await protectedServer({ fetch: counting.fetch });
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claimsFor(url, { iss: 'http://127.0.0.1:1' })).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' }).sign(privateKey);
    expect((await status(url, forged)).status).toBe(401);
    expect(counting.calls).toEqual([]);
  });

  it('rotate at the authorization server without a restart: a token under the new key is accepted', async () => {
    const { url } = await protectedServer({ jwksCooldownMs: 0 });
    const before = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    expect((await status(url, before.accessToken)).status).toBe(200);
    const oldKid = as.signingKid;

    await as.rotateSigningKey();
    expect(as.signingKid).not.toBe(oldKid);
    const after = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    expect(JSON.parse(Buffer.from(after.accessToken.split('.')[0]!, 'base64url').toString()).kid).toBe(as.signingKid);
    expect((await status(url, after.accessToken)).status).toBe(200);
    // The old key is still published: its tokens still verify.
    expect((await status(url, before.accessToken)).status).toBe(200);
  });

  it('stop verifying tokens of a key that left the set once the set is fetched again', async () => {
    const { url } = await protectedServer({ jwksCooldownMs: 0, jwksMaxAgeMs: 0, cacheMs: 0 });
    const before = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    expect((await status(url, before.accessToken)).status).toBe(200);
    await as.rotateSigningKey({ keepOld: false });
    expect(await status(url, before.accessToken)).toMatchObject({ status: 401, error: 'invalid_token' });
    const after = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    expect((await status(url, after.accessToken)).status).toBe(200);
  });

  it('are taken from jwksUri when given, without discovery', async () => {
    const counting = countingFetch();
    const { url } = await protectedServer({ fetch: counting.fetch, jwksUri: as.jwksUrl });
    const token = await as.clientCredentialsToken({ clientId: 'service-a', resource: url, scope: 'mcp:read' });
    expect((await status(url, token.accessToken)).status).toBe(200);
    expect(counting.calls).toEqual(['/jwks']);
  });
});

describe('keys of another kind', () => {
  it('verifies RS256 and EdDSA tokens from a key set it was pointed at', async () => {
    for (const alg of ['RS256', 'EdDSA'] as const) {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      const publicJwk = { ...(await exportJWK(publicKey)), kid: `k-${alg}`, alg, use: 'sig' };
      const keys = new (await import('node:http')).Server((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] })));
      await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve));
      try {
        const jwksUri = `http://127.0.0.1:${(keys.address() as { port: number }).port}/jwks`;
        const { url } = await protectedServer({ jwksUri });
        const signer = await importJWK(await exportJWK(privateKey), alg);
        const token = await new SignJWT(claimsFor(url)).setProtectedHeader({ alg, typ: 'at+jwt', kid: `k-${alg}` }).sign(signer);
        expect((await status(url, token)).status, alg).toBe(200);
      } finally {
        keys.close();
      }
    }
  });
});
