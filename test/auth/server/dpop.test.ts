/**
 * DPoP-bound access tokens (RFC 9449) at Tessera's resource server: real
 * tokens bound by oidc-provider to the test's key (`cnf.jkt`), presented
 * with the DPoP scheme and a proof per request. Without the proof, with a
 * proof for another request, token or key, replayed or stale, or as a
 * Bearer token, they are refused with 401 and a DPoP challenge.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer, protectedResource } from '../../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../../src/node.js';
import { parseChallenges } from '../../../src/auth/client/www-authenticate.js';
import { startAuthorizationServer, type IssuedToken, type RunningAuthorizationServer } from '../../helpers/authorization-server.js';
import { dpopProof, makeDpopKey, type DpopKey } from '../../helpers/dpop.js';
import { rpc } from '../../helpers/http.js';
import { bearer, CLIENTS, protectedTools, RESOURCE_SCOPES } from '../../helpers/protected-tessera.js';
import { quietLogger } from '../../helpers/results.js';

let as: RunningAuthorizationServer;
let http: RunningHttpServer;
let key: DpopKey;
let bound: IssuedToken;

async function serve(dpop: 'optional' | 'required'): Promise<RunningHttpServer> {
  const server = new McpServer({ name: 'dpop-tests', version: '1.0.0' }, { logger: quietLogger() });
  protectedTools(server);
  return serveHttp(server, { port: 0, auth: protectedResource({ issuer: as.issuer, scopes: ['mcp:read'], dpop, logger: { warn: () => undefined } }) });
}

beforeAll(async () => {
  as = await startAuthorizationServer({ resourceScopes: RESOURCE_SCOPES, clients: CLIENTS, dpop: true });
  http = await serve('optional');
  key = await makeDpopKey();
  bound = await as.clientCredentialsToken({ clientId: 'service-a', resource: http.url, scope: 'mcp:read', dpopKey: key });
});

afterAll(async () => {
  await http?.close();
  await as?.close();
});

async function call(headers: Record<string, string>, url = http.url): Promise<{ status: number; scheme?: string; params: Record<string, string> }> {
  const reply = await rpc(url, 'tools/list', {}, { headers, skipValidation: true });
  const header = reply.headers.get('www-authenticate');
  const challenge = header ? parseChallenges(header)[0] : undefined;
  return { status: reply.status, scheme: challenge?.scheme, params: challenge?.params ?? {} };
}

describe('a DPoP-bound token', () => {
  it('is bound to the key the token request proved (token_type DPoP, cnf.jkt)', () => {
    expect(bound.tokenType).toBe('DPoP');
    const claims = JSON.parse(Buffer.from(bound.accessToken.split('.')[1]!, 'base64url').toString());
    expect(claims.cnf).toEqual({ jkt: key.thumbprint });
  });

  it('is accepted with the DPoP scheme and a proof for this request and token', async () => {
    const proof = await dpopProof(key, 'POST', http.url, bound.accessToken);
    expect((await call({ authorization: `DPoP ${bound.accessToken}`, dpop: proof })).status).toBe(200);
  });

  it('is refused without a proof, with a DPoP challenge naming the algorithms', async () => {
    const refused = await call({ authorization: `DPoP ${bound.accessToken}` });
    expect(refused).toMatchObject({ status: 401, scheme: 'dpop', params: { error: 'invalid_dpop_proof', resource_metadata: expect.stringContaining('oauth-protected-resource') } });
    expect(refused.params.algs).toContain('ES256');
  });

  it('is refused as a plain Bearer token (it would be usable by whoever stole it)', async () => {
    const refused = await call(bearer(bound));
    expect(refused).toMatchObject({ status: 401, scheme: 'dpop', params: { error: 'invalid_token' } });
  });

  it.each([
    ['another method', async () => dpopProof(key, 'GET', http.url, bound.accessToken), 'another HTTP method'],
    ['another URL', async () => dpopProof(key, 'POST', 'http://127.0.0.1:1/mcp', bound.accessToken), 'another URL'],
    ['another token', async () => dpopProof(key, 'POST', http.url, 'some-other-token'), 'another access token'],
    ['another key', async () => dpopProof(await makeDpopKey(), 'POST', http.url, bound.accessToken), 'another key'],
    ['no ath', async () => dpopProof(key, 'POST', http.url), 'another access token'],
    ['a stale iat', async () => dpopProof(key, 'POST', http.url, bound.accessToken, { claims: { iat: Math.floor(Date.now() / 1000) - 600 } }), 'too old'],
    ['the wrong typ', async () => dpopProof(key, 'POST', http.url, bound.accessToken, { header: { typ: 'JWT' } }), 'typ'],
  ])('is refused with a proof for %s', async (_what, make, says) => {
    const refused = await call({ authorization: `DPoP ${bound.accessToken}`, dpop: await make() });
    expect(refused.status).toBe(401);
    expect(refused.params.error).toBe('invalid_dpop_proof');
    expect(refused.params.error_description).toContain(says);
  });

  it('is refused when its proof is presented a second time (jti replay)', async () => {
    const proof = await dpopProof(key, 'POST', http.url, bound.accessToken);
    expect((await call({ authorization: `DPoP ${bound.accessToken}`, dpop: proof })).status).toBe(200);
    const replayed = await call({ authorization: `DPoP ${bound.accessToken}`, dpop: proof });
    expect(replayed).toMatchObject({ status: 401, params: { error: 'invalid_dpop_proof', error_description: expect.stringContaining('used before') } });
  });

  it('is refused with two proofs', async () => {
    const one = await dpopProof(key, 'POST', http.url, bound.accessToken);
    const two = await dpopProof(key, 'POST', http.url, bound.accessToken);
    expect((await call({ authorization: `DPoP ${bound.accessToken}`, dpop: `${one}, ${two}` })).params.error).toBe('invalid_dpop_proof');
  });
});

describe('an unbound token', () => {
  it('is refused with the DPoP scheme (no downgrade either way)', async () => {
    const plain = await as.clientCredentialsToken({ clientId: 'service-a', resource: http.url, scope: 'mcp:read' });
    expect(plain.tokenType).toBe('Bearer');
    expect((await call(bearer(plain))).status).toBe(200);
    const proof = await dpopProof(key, 'POST', http.url, plain.accessToken);
    expect(await call({ authorization: `DPoP ${plain.accessToken}`, dpop: proof })).toMatchObject({ status: 401, params: { error: 'invalid_token' } });
  });

  it('is refused where DPoP is required, and the metadata says it is', async () => {
    const strict = await serve('required');
    try {
      const plain = await as.clientCredentialsToken({ clientId: 'service-a', resource: strict.url, scope: 'mcp:read' });
      expect(await call(bearer(plain), strict.url)).toMatchObject({ status: 401, scheme: 'dpop', params: { error: 'invalid_token' } });
      expect((await call({}, strict.url)).scheme).toBe('dpop');
      const metadata = (await (await fetch(`${new URL(strict.url).origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
      expect(metadata.dpop_bound_access_tokens_required).toBe(true);
      const boundHere = await as.clientCredentialsToken({ clientId: 'service-a', resource: strict.url, scope: 'mcp:read', dpopKey: key });
      expect((await call({ authorization: `DPoP ${boundHere.accessToken}`, dpop: await dpopProof(key, 'POST', strict.url, boundHere.accessToken) }, strict.url)).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
