/**
 * The client signing in against a real authorization server (oidc-provider)
 * and a protected MCP server that checks tokens against its JWKS: the whole
 * authorization code flow, refresh after expiry (server-side and by the
 * client's clock), step-up to a new scope, a changed authorization server,
 * a denied consent — and no fallback to the 2025 handshake on a 401.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationError, Client, MemoryTokenStore, OAuthProvider, TransportError, canonicalResource, type OAuthProviderOptions } from '../../../src/client.js';
import { startAuthorizationServer, TestBrowser, type RunningAuthorizationServer } from '../../helpers/authorization-server.js';
import { startProtectedServer, type ProtectedServerOptions, type RunningProtectedServer } from '../../helpers/protected-mcp-server.js';

const info = { name: 'auth-tests', version: '1.0.0' };
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function authorizationServer(options: Parameters<typeof startAuthorizationServer>[0] = {}): Promise<RunningAuthorizationServer> {
  const as = await startAuthorizationServer(options);
  closers.push(() => as.close());
  return as;
}

async function protectedServer(as: RunningAuthorizationServer, options: Partial<ProtectedServerOptions> = {}): Promise<RunningProtectedServer> {
  const server = await startProtectedServer({ issuer: as.issuer, jwksUrl: as.jwksUrl, ...options });
  closers.push(() => server.close());
  return server;
}

async function connect(server: RunningProtectedServer, options: OAuthProviderOptions): Promise<Client> {
  const client = await new Client(info, { auth: new OAuthProvider(options) }).connect(server.url);
  closers.push(() => client.close());
  return client;
}

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((c) => c.text ?? '').join('');
}

describe('signing in with the authorization code flow', () => {
  it('discovers, registers, signs the user in with PKCE and resource, and sends the token only in the Authorization header', async () => {
    const as = await authorizationServer();
    const server = await protectedServer(as);
    const browser = new TestBrowser();
    const store = new MemoryTokenStore();
    const client = await connect(server, { signIn: browser, store });

    expect(textOf(await client.callTool('whoami'))).toBe('hello from a protected server');

    expect(browser.visited).toHaveLength(1);
    const query = browser.visited[0]!.searchParams;
    expect(query.get('response_type')).toBe('code');
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get('state')).toBeTruthy();
    expect(query.get('resource')).toBe(server.resource);
    // The challenge's scope, plus offline_access because the authorization server lists it.
    expect(query.get('scope')?.split(' ').sort()).toEqual(['mcp:read', 'offline_access']);
    expect(as.log.registrations).toHaveLength(1);
    expect(as.log.grants.map((g) => g.grantType)).toEqual(['authorization_code']);

    // First request without a token (401), then with the bearer token.
    expect(server.log.requests[0]).toMatchObject({ status: 401 });
    expect(server.log.requests[0]!.authorization).toBeUndefined();
    const signedIn = server.log.requests.filter((r) => r.status === 200);
    expect(signedIn.length).toBeGreaterThan(0);
    for (const request of signedIn) expect(request.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);

    const stored = await store.get(canonicalResource(server.url));
    expect(stored?.issuer).toBe(as.issuer);
    expect(stored?.tokens?.refreshToken).toBeTruthy();
    expect(stored?.clients[as.issuer]?.source).toBe('dynamic');
  });

  it('reuses a stored token without signing in again', async () => {
    const as = await authorizationServer();
    const server = await protectedServer(as);
    const store = new MemoryTokenStore();
    const first = new TestBrowser();
    await (await connect(server, { signIn: first, store })).callTool('whoami');
    const second = new TestBrowser();
    await (await connect(server, { signIn: second, store })).callTool('whoami');
    expect(first.visited).toHaveLength(1);
    expect(second.visited).toHaveLength(0);
    expect(as.log.registrations).toHaveLength(1);
  });

  it('refreshes when the server says the token expired, keeping the rotated refresh token', async () => {
    const as = await authorizationServer();
    const server = await protectedServer(as);
    const browser = new TestBrowser();
    const store = new MemoryTokenStore();
    const client = await connect(server, { signIn: browser, store });
    await client.callTool('whoami');
    const before = (await store.get(canonicalResource(server.url)))!.tokens!;

    server.expireTokensSeen();
    expect(textOf(await client.callTool('whoami'))).toBe('hello from a protected server');

    const after = (await store.get(canonicalResource(server.url)))!.tokens!;
    expect(browser.visited).toHaveLength(1);
    expect(as.log.grants.map((g) => g.grantType)).toEqual(['authorization_code', 'refresh_token']);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).toBeTruthy();
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });

  it('refreshes before sending once its own clock says the token expired', async () => {
    const as = await authorizationServer();
    const server = await protectedServer(as);
    let clock = Date.now();
    const store = new MemoryTokenStore();
    const client = await connect(server, { signIn: new TestBrowser(), store, now: () => clock });
    await client.callTool('whoami');
    const refusals = server.log.requests.filter((r) => r.status === 401).length;

    clock += 301_000; // past the 300 s access token lifetime
    await client.callTool('whoami');

    expect(as.log.grants.map((g) => g.grantType)).toEqual(['authorization_code', 'refresh_token']);
    expect(server.log.requests.filter((r) => r.status === 401)).toHaveLength(refusals);
  });

  it('steps up on 403 insufficient_scope with the union of the scopes asked before and those challenged', async () => {
    const as = await authorizationServer();
    const server = await protectedServer(as, { scopeFor: (method) => (method === 'tools/call' ? ['mcp:write'] : ['mcp:read']) });
    const browser = new TestBrowser();
    const client = await connect(server, { signIn: browser });
    await client.listTools();
    expect(textOf(await client.callTool('whoami'))).toBe('hello from a protected server');

    expect(browser.visited).toHaveLength(2);
    expect(browser.visited[0]!.searchParams.get('scope')?.split(' ').sort()).toEqual(['mcp:read', 'offline_access']);
    expect(browser.visited[1]!.searchParams.get('scope')?.split(' ').sort()).toEqual(['mcp:read', 'mcp:write', 'offline_access']);
    expect(server.log.requests.some((r) => r.status === 403 && r.method === 'tools/call')).toBe(true);
  });

  it('gives up stepping up after the retry cap with an AuthorizationError', async () => {
    const as = await authorizationServer();
    // A scope the authorization server never grants: re-authorizing cannot help.
    const server = await protectedServer(as, { scopeFor: (method) => (method === 'tools/call' ? ['mcp:admin'] : ['mcp:read']) });
    const browser = new TestBrowser();
    const client = await connect(server, { signIn: browser, maxStepUps: 2 });
    const failure = await client.callTool('whoami').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthorizationError);
    expect(failure).toMatchObject({ step: 'step-up', error: 'insufficient_scope', status: 403 });
    expect(browser.visited.length).toBeLessThanOrEqual(3);
  });

  it('registers again, and never shows the old client id, when the server moves to another authorization server', async () => {
    const first = await authorizationServer();
    const second = await authorizationServer();
    const server = await protectedServer(first);
    const browser = new TestBrowser();
    const store = new MemoryTokenStore();
    const client = await connect(server, { signIn: browser, store });
    await client.callTool('whoami');
    const oldClientId = first.log.registrations[0]!;

    server.useAuthorizationServer(second.issuer, second.jwksUrl);
    expect(textOf(await client.callTool('whoami'))).toBe('hello from a protected server');

    expect(second.log.registrations).toHaveLength(1);
    expect(second.log.registrations[0]).not.toBe(oldClientId);
    expect(browser.visited).toHaveLength(2);
    expect(browser.visited[1]!.origin).toBe(new URL(second.issuer).origin);
    expect(browser.visited[1]!.searchParams.get('client_id')).toBe(second.log.registrations[0]);
    expect(second.log.grants.every((g) => g.clientId !== oldClientId)).toBe(true);
    const stored = await store.get(canonicalResource(server.url));
    expect(stored?.issuer).toBe(second.issuer);
    expect(Object.keys(stored?.clients ?? {}).sort()).toEqual([first.issuer, second.issuer].sort());
  });

  it('signs in once, not again and again, when the server refuses the token it was just issued', async () => {
    const as = await authorizationServer();
    const other = await authorizationServer();
    // Checks tokens against another server's keys: every token fails.
    const server = await protectedServer(as, { jwksUrl: other.jwksUrl });
    const browser = new TestBrowser();
    const failure = await new Client(info, { auth: new OAuthProvider({ signIn: browser }) }).connect(server.url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthorizationError);
    expect(failure).toMatchObject({ step: 'resource', error: 'invalid_token', status: 401 });
    expect(browser.visited).toHaveLength(1);
  });

  it('binds tokens with DPoP when the authorization server offers it, with a fresh proof on every request and on refresh', async () => {
    const as = await authorizationServer({ dpop: true });
    const server = await protectedServer(as, { dpop: true });
    const store = new MemoryTokenStore();
    const client = await connect(server, { signIn: new TestBrowser(), store });
    expect(textOf(await client.callTool('whoami'))).toBe('hello from a protected server');
    server.expireTokensSeen();
    expect(textOf(await client.callTool('whoami'))).toBe('hello from a protected server');

    const stored = await store.get(canonicalResource(server.url));
    expect(stored?.tokens?.tokenType).toBe('dpop');
    expect(stored?.dpopKey?.privateKey).toBeDefined();
    expect(as.log.grants.map((g) => g.grantType)).toEqual(['authorization_code', 'refresh_token']);
    const presented = server.log.requests.filter((r) => r.status === 200);
    expect(presented.length).toBeGreaterThan(1);
    for (const request of presented) expect(request.authorization).toMatch(/^DPoP /);
    const proofs = presented.map((r) => r.proofJti);
    expect(new Set(proofs).size).toBe(proofs.length);
  });

  it('reports a denied consent as an AuthorizationError, and asks for no token', async () => {
    const as = await authorizationServer();
    const server = await protectedServer(as);
    const browser = new TestBrowser();
    browser.decision = 'deny';
    const failure = await new Client(info, { auth: new OAuthProvider({ signIn: browser }) }).connect(server.url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthorizationError);
    expect(failure).toMatchObject({ step: 'authorization', error: 'access_denied' });
    expect(as.log.grants).toHaveLength(0);
    // Never retried as a 2025 server.
    expect(server.log.requests.some((r) => r.method === 'initialize')).toBe(false);
  });

  it('cancels a sign-in in progress through its AbortSignal', async () => {
    const as = await authorizationServer();
    const server = await protectedServer(as);
    const controller = new AbortController();
    const waiting = {
      redirectUri: () => 'http://127.0.0.1:9/callback',
      authorize: () => {
        controller.abort(new Error('the user closed the window'));
        return new Promise<URL>(() => undefined); // a browser that never comes back
      },
    };
    const failure = await new Client(info, { auth: new OAuthProvider({ signIn: waiting, signal: controller.signal }) })
      .connect(server.url)
      .catch((error: unknown) => error);
    expect((failure as Error).message).toContain('the user closed the window');
  });
});

describe('a sign-in that never finishes', () => {
  it('ends with an AuthorizationError once signInTimeoutMs has passed, never a hang', async () => {
    const as = await authorizationServer();
    const server = await protectedServer(as);
    const never = { redirectUri: () => 'http://127.0.0.1:9/callback', authorize: () => new Promise<URL>(() => undefined) };
    const failure = await new Client(info, { auth: new OAuthProvider({ signIn: never, signInTimeoutMs: 200 }) }).connect(server.url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthorizationError);
    expect(failure).toMatchObject({ step: 'authorization-response', error: 'timeout' });
  });
});

describe('a 401 without an auth provider', () => {
  it('is a TransportError with status 401, and the client does not fall back to initialize', async () => {
    const as = await authorizationServer();
    const server = await protectedServer(as);
    const failure = await new Client(info).connect(server.url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportError);
    expect((failure as TransportError).status).toBe(401);
    expect(server.log.requests.map((r) => r.method)).toEqual(['server/discover']);
  });
});
