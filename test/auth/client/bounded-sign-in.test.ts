/**
 * Every answer the sign-in reads — authorization server metadata, the
 * registration response (RFC 7591), the token response (RFC 6749 §5.1) — is
 * read within a size limit (1 MiB) and a time limit (`requestTimeoutMs`,
 * per request, its body included): a hostile authorization server that
 * streams without end, or answers and then stalls, gets an AuthorizationError
 * of the step it broke, and the download stops.
 *
 * The MCP server and the authorization server are node:http servers on
 * 127.0.0.1 whose answers each test sets.
 */

import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationError, Client, OAuthProvider, clientCredentials, type OAuthProviderOptions } from '../../../src/client.js';
import { MiB, paddedJson, startHostile, type HostileServer } from '../../helpers/hostile-http.js';

const info = { name: 'bounded-sign-in', version: '1.0.0' };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

type Route = (res: ServerResponse) => unknown;

const json =
  (value: unknown, status = 200): Route =>
  (res) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

/** The head of an answer, then nothing: the body never ends. */
const stalls: Route = (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"access_token":"');
};

interface Setup {
  mcp: HostileServer;
  as: HostileServer & { routes: Record<string, Route> };
}

async function setup(): Promise<Setup> {
  const routes: Record<string, Route> = {};
  const as = Object.assign(
    await startHostile((req, res) => {
      const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
      return route ? route(res) : res.writeHead(404).end();
    }),
    { routes },
  );
  closers.push(() => as.close());
  const mcp = await startHostile((_req, res) => res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${as.origin}/prm"` }).end());
  closers.push(() => mcp.close());
  routes['/prm'] = json({ resource: mcp.url, authorization_servers: [as.origin] });
  routes['/.well-known/oauth-authorization-server'] = json({
    issuer: as.origin,
    token_endpoint: `${as.origin}/token`,
    registration_endpoint: `${as.origin}/register`,
    code_challenge_methods_supported: ['S256'],
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
  });
  routes['/register'] = json({ client_id: 'registered', client_secret: 'secret', token_endpoint_auth_method: 'client_secret_basic' }, 201);
  return { mcp, as };
}

async function signIn(mcp: HostileServer, options: OAuthProviderOptions = {}): Promise<unknown> {
  const auth = new OAuthProvider({ grant: clientCredentials(), ...options });
  return new Client(info, { auth, requestTimeoutMs: 30_000 }).connect(mcp.url).then(
    () => 'connected',
    (error: unknown) => error,
  );
}

describe('answers read within 1 MiB', () => {
  it.each([
    ['/.well-known/oauth-authorization-server', 'authorization-server-metadata'],
    ['/register', 'client-registration'],
    ['/token', 'token'],
  ])('%s streaming 64 MiB: an AuthorizationError at %s, and the download stops', async (path, step) => {
    const { mcp, as } = await setup();
    const answer = paddedJson(path === '/token' ? { access_token: 'x', token_type: 'bearer' } : path === '/register' ? { client_id: 'registered' } : { issuer: as.origin }, 64 * MiB);
    as.routes[path] = answer;
    const failure = await signIn(mcp);
    expect(failure).toBeInstanceOf(AuthorizationError);
    expect(failure).toMatchObject({ step, error: 'response_too_large' });
    expect((failure as Error).message).toContain(`${as.origin}${path}`);
    expect(await answer.finished).toBeLessThan(64 * MiB);
  });
});

describe('answers read within requestTimeoutMs', () => {
  it('a token endpoint that answers and then stalls: an AuthorizationError at the token step, not a wait for the whole sign-in', async () => {
    const { mcp, as } = await setup();
    as.routes['/token'] = stalls;
    const failure = await signIn(mcp, { requestTimeoutMs: 300, signInTimeoutMs: 15_000 });
    expect(failure).toBeInstanceOf(AuthorizationError);
    expect(failure).toMatchObject({ step: 'token', error: 'timeout' });
    expect((failure as Error).message).toContain(`${as.origin}/token did not answer within 300 ms`);
  });

  it('metadata that never comes: an AuthorizationError at its step', async () => {
    const { mcp, as } = await setup();
    as.routes['/.well-known/oauth-authorization-server'] = () => undefined; // no answer at all
    const failure = await signIn(mcp, { requestTimeoutMs: 300, signInTimeoutMs: 15_000 });
    expect(failure).toMatchObject({ step: 'authorization-server-metadata', error: 'timeout' });
  });
});
