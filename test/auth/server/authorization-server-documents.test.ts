/**
 * What the resource server fetches from an authorization server — its
 * metadata (RFC 8414), its key set (RFC 7517) and introspection answers
 * (RFC 7662) — fetched so that neither a failing nor a hostile authorization
 * server can use it against itself or against the server:
 *
 * - after a failed fetch of a document, at most one attempt per interval
 *   (`jwksCooldownMs`), the requests meanwhile answered 503 with Retry-After;
 * - concurrent first requests share one fetch of each document;
 * - every answer is read within a size limit (1 MiB) and a time limit.
 *
 * The authorization server is a node:http server on 127.0.0.1 whose answers
 * each test steers; the clock is protectedResource's, moved by the tests
 * (fetches are counted, never timed).
 */

import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jwtAccessTokens, McpServer, protectedResource, tokenIntrospection, type JwtAccessTokenOptions, type TokenVerifier } from '../../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../../src/node.js';
import { deferred } from '../../helpers/deferred.js';
import { MiB, paddedJson, startHostile, type HostileServer } from '../../helpers/hostile-http.js';
import { rpc } from '../../helpers/http.js';
import { bearer } from '../../helpers/protected-tessera.js';
import { quietLogger } from '../../helpers/results.js';

const METADATA_PATH = '/.well-known/oauth-authorization-server';
const COOLDOWN_MS = 30_000;

let signingKey: CryptoKey;
let publicJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

type Route = (res: ServerResponse, body: string) => unknown;

/** An authorization server whose every path answers as the test says; what it was asked is in `received`. */
async function authorizationServer(routes: Record<string, Route>): Promise<HostileServer & { routes: Record<string, Route>; asked(path: string): number }> {
  const server = await startHostile((req, res, _message, received) => {
    const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
    if (!route) return res.writeHead(404).end();
    return route(res, received.at(-1)!.body);
  });
  closers.push(() => server.close());
  return Object.assign(server, { routes, asked: (path: string) => server.received.filter((r) => r.url === path).length });
}

function json(value: unknown): Route {
  return (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

const failing: Route = (res) => res.writeHead(500).end('down');

function metadataOf(origin: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { issuer: origin, jwks_uri: `${origin}/jwks`, introspection_endpoint: `${origin}/introspect`, ...extra };
}

interface Protected {
  url: string;
  /** The clock protectedResource and the verifier read. */
  clock: { now: number };
}

async function protectedServer(issuer: string, verifier: TokenVerifier): Promise<Protected> {
  const clock = { now: Date.now() };
  const server = new McpServer({ name: 'documents', version: '1.0.0' }, { logger: quietLogger() });
  server.tool('whoami', {}, async (_args, ctx) => ctx.auth?.subject ?? 'nobody');
  const http: RunningHttpServer = await serveHttp(server, {
    port: 0,
    auth: protectedResource({ issuer, verifier, clock: () => clock.now, logger: { warn: () => undefined } }),
  });
  closers.push(() => http.close());
  return { url: http.url, clock };
}

async function tokenFor(issuer: string, resource: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: issuer, aud: resource, sub: 'alice', client_id: 'app', scope: 'mcp:read', iat: now, exp: now + 3600 })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
    .sign(signingKey);
}

async function call(url: string, token: string): Promise<{ status: number; retryAfter: string | null }> {
  const reply = await rpc(url, 'tools/list', {}, { headers: bearer(token), skipValidation: true });
  return { status: reply.status, retryAfter: reply.headers.get('retry-after') };
}

function jwt(options: JwtAccessTokenOptions = {}): TokenVerifier {
  return jwtAccessTokens({ jwksCooldownMs: COOLDOWN_MS, ...options });
}

describe('a failing key set', () => {
  it('is fetched at most once per jwksCooldownMs; the requests meanwhile get 503 with Retry-After', async () => {
    const as = await authorizationServer({ '/jwks': failing });
    const { url, clock } = await protectedServer(as.origin, jwt({ jwksUri: `${as.origin}/jwks` }));
    const token = await tokenFor(as.origin, url);

    const first = await call(url, token);
    expect(first).toEqual({ status: 503, retryAfter: '30' });
    for (let i = 0; i < 30; i++) {
      clock.now += 500;
      const reply = await call(url, token);
      expect(reply.status).toBe(503);
      // What is left of the back-off, in whole seconds.
      expect(Number(reply.retryAfter)).toBe(Math.ceil((COOLDOWN_MS - (i + 1) * 500) / 1000));
    }
    expect(as.asked('/jwks')).toBe(1);

    // Once the interval has passed, one more attempt; still failing, another interval.
    clock.now += COOLDOWN_MS;
    expect((await call(url, token)).status).toBe(503);
    expect((await call(url, token)).status).toBe(503);
    expect(as.asked('/jwks')).toBe(2);

    // The authorization server recovers: the next attempt after the interval gets the keys.
    as.routes['/jwks'] = json({ keys: [publicJwk] });
    expect((await call(url, token)).status).toBe(503);
    clock.now += COOLDOWN_MS;
    expect((await call(url, token)).status).toBe(200);
    expect((await call(url, token)).status).toBe(200);
    expect(as.asked('/jwks')).toBe(3);
  });

  it('found through failing metadata: the metadata is fetched at most once per interval too', async () => {
    const as = await authorizationServer({ [METADATA_PATH]: failing, '/.well-known/openid-configuration': failing });
    const { url, clock } = await protectedServer(as.origin, jwt());
    const token = await tokenFor(as.origin, url);
    for (let i = 0; i < 20; i++) expect((await call(url, token)).status).toBe(503);
    // One discovery: the RFC 8414 location, then the OpenID one.
    expect(as.received.map((r) => r.url)).toEqual([METADATA_PATH, '/.well-known/openid-configuration']);

    as.routes[METADATA_PATH] = json(metadataOf(as.origin));
    as.routes['/jwks'] = json({ keys: [publicJwk] });
    clock.now += COOLDOWN_MS;
    expect((await call(url, token)).status).toBe(200);
    expect(as.asked(METADATA_PATH)).toBe(2);
    expect(as.asked('/jwks')).toBe(1);
  });

  it('a token naming a key the set lacks makes at most one fetch per interval', async () => {
    const as = await authorizationServer({ '/jwks': json({ keys: [publicJwk] }) });
    const { url, clock } = await protectedServer(as.origin, jwt({ jwksUri: `${as.origin}/jwks` }));
    expect((await call(url, await tokenFor(as.origin, url))).status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const unknownKid = await new SignJWT({ iss: as.origin, aud: url, sub: 'x', iat: now, exp: now + 3600 })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'rotated-away' })
      .sign(signingKey);
    clock.now += COOLDOWN_MS;
    for (let i = 0; i < 10; i++) expect((await call(url, unknownKid)).status).toBe(401);
    expect(as.asked('/jwks')).toBe(2);
  });
});

describe('concurrent first requests', () => {
  it('share one fetch of the metadata and one of the key set', async () => {
    const metadataHeld = deferred();
    const jwksArrived = deferred();
    const jwksHeld = deferred();
    const as = await authorizationServer({
      [METADATA_PATH]: async (res) => {
        await metadataHeld.promise;
        json(metadataOf(as.origin))(res, '');
      },
      '/jwks': async (res) => {
        jwksArrived.resolve();
        await jwksHeld.promise;
        json({ keys: [publicJwk] })(res, '');
      },
    });
    // Counts the requests that reached the verifier, so the metadata is released only once all ten wait on it.
    const inner = jwt();
    let entered = 0;
    const counting: TokenVerifier = { verify: (token, context) => (entered++, inner.verify(token, context)) };
    const { url } = await protectedServer(as.origin, counting);
    const token = await tokenFor(as.origin, url);

    const replies = Array.from({ length: 10 }, () => call(url, token));
    for (let i = 0; i < 500 && entered < 10; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(entered).toBe(10);
    metadataHeld.resolve();
    await jwksArrived.promise;
    jwksHeld.resolve();
    expect((await Promise.all(replies)).map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(as.asked(METADATA_PATH)).toBe(1);
    expect(as.asked('/jwks')).toBe(1);
  });
});

describe('documents read within limits', () => {
  it('a 64 MiB key set is refused (503) after the first MiB, and the download stops', async () => {
    const keys = paddedJson({ keys: [publicJwk] }, 64 * MiB);
    const as = await authorizationServer({ '/jwks': keys });
    const { url } = await protectedServer(as.origin, jwt({ jwksUri: `${as.origin}/jwks` }));
    expect((await call(url, await tokenFor(as.origin, url))).status).toBe(503);
    expect(await keys.finished).toBeLessThan(64 * MiB);
  });

  it('so is 64 MiB of metadata', async () => {
    const as = await authorizationServer({});
    const metadata = paddedJson(metadataOf(as.origin), 64 * MiB);
    as.routes[METADATA_PATH] = metadata;
    as.routes['/jwks'] = json({ keys: [publicJwk] });
    const { url } = await protectedServer(as.origin, jwt());
    expect((await call(url, await tokenFor(as.origin, url))).status).toBe(503);
    expect(await metadata.finished).toBeLessThan(64 * MiB);
    expect(as.asked('/jwks')).toBe(0);
  });

  it('and a 64 MiB introspection answer', async () => {
    const as = await authorizationServer({});
    const { url } = await protectedServer(as.origin, tokenIntrospection({ clientId: 'rs', clientSecret: 's', endpoint: `${as.origin}/introspect`, cacheMs: 0 }));
    const answer = paddedJson({ active: true, iss: as.origin, aud: url, sub: 'alice', exp: Math.floor(Date.now() / 1000) + 3600 }, 64 * MiB);
    as.routes['/introspect'] = answer;
    expect((await call(url, 'opaque-token')).status).toBe(503);
    expect(await answer.finished).toBeLessThan(64 * MiB);
    // The same answer, small, is accepted: it is the size that was refused.
    as.routes['/introspect'] = json({ active: true, iss: as.origin, aud: url, sub: 'alice', exp: Math.floor(Date.now() / 1000) + 3600 });
    expect((await call(url, 'opaque-token')).status).toBe(200);
  });

  it('a key set whose body trickles and never ends is given up at the timeout (503), not waited on', async () => {
    const as = await authorizationServer({
      '/jwks': (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"keys":['); // and nothing more
      },
    });
    const { url } = await protectedServer(as.origin, jwt({ jwksUri: `${as.origin}/jwks`, timeoutMs: 300 }));
    expect((await call(url, await tokenFor(as.origin, url))).status).toBe(503);
  });
});
