/**
 * The sign-in cannot be steered into a private network (MCP security best
 * practices, "Server-Side Request Forgery"; RFC 9728 §7.7): a remote MCP
 * server whose 401 or metadata names loopback, private, link-local or other
 * non-public addresses gets an AuthorizationError saying which and why, and
 * nothing is fetched there. A server that is itself local (development)
 * still signs in against a local authorization server; the app may allow a
 * host; on Node the connection goes to the address that was checked.
 *
 * The "remote" server is `https://mcp.example.com/mcp`, served by a hostile
 * server on 127.0.0.1 through the client's fetch. That fetch lets nothing
 * leave loopback: a URL the old code would have fetched elsewhere is
 * recorded and refused by it, never sent. Listeners on loopback count the
 * connections they accept.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationError, Client, OAuthProvider, clientCredentials, type OAuthProviderOptions } from '../../../src/client.js';
import { startAuthorizationServer, TestBrowser } from '../../helpers/authorization-server.js';
import { startHostile, type HostileServer } from '../../helpers/hostile-http.js';
import { startProtectedServer } from '../../helpers/protected-mcp-server.js';

const info = { name: 'ssrf-tests', version: '1.0.0' };
const REMOTE = 'https://mcp.example.com/mcp';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A listener on a loopback address that counts the connections it accepts and answers 404. */
async function trap(host = '127.0.0.1', port = 0): Promise<{ url: string; port: number; accepted: () => number }> {
  let accepted = 0;
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  server.on('connection', () => accepted++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const bound = (server.address() as AddressInfo).port;
  return { url: `http://${host}:${bound}`, port: bound, accepted: () => accepted };
}

/** The remote MCP server: 401 naming `resourceMetadata`, and its own Protected Resource Metadata listing `authorizationServers`. */
async function remoteServer(resourceMetadata: string | undefined, authorizationServers: string[] = ['https://auth.example.com']): Promise<HostileServer> {
  const server = await startHostile((req, res) => {
    if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: REMOTE, authorization_servers: authorizationServers }));
    }
    const metadata = resourceMetadata === undefined ? '' : `, resource_metadata="${resourceMetadata}"`;
    return res.writeHead(401, { 'www-authenticate': `Bearer scope="mcp:read"${metadata}` }).end();
  });
  closers.push(() => server.close());
  return server;
}

/**
 * The client's fetch: mcp.example.com goes to the hostile server, loopback goes
 * through, and anything else is recorded and refused here, so no test sends
 * a packet beyond this machine whatever the code under test does.
 */
function loopbackOnlyFetch(remote: HostileServer): { fetch: typeof fetch; refused: string[] } {
  const refused: string[] = [];
  const routed = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.hostname === 'mcp.example.com') return fetch(`${remote.origin}${url.pathname}${url.search}`, init);
    if (['127.0.0.1', '127.0.0.2', '[::1]', 'localhost'].includes(url.hostname)) return fetch(input, init);
    refused.push(url.href);
    throw new TypeError('fetch failed', { cause: new Error('the test lets nothing leave loopback') });
  }) as typeof fetch;
  return { fetch: routed, refused };
}

async function signInFailure(remote: HostileServer, options: OAuthProviderOptions = {}): Promise<{ failure: unknown; refused: string[] }> {
  const { fetch: routed, refused } = loopbackOnlyFetch(remote);
  const auth = new OAuthProvider({ grant: clientCredentials(), client: { clientId: 'c', clientSecret: 's' }, ...options });
  const failure = await new Client(info, { auth, requestTimeoutMs: 20_000 })
    .connect(REMOTE, { fetch: routed })
    .then(
      () => 'connected',
      (error: unknown) => error,
    );
  return { failure, refused };
}

describe('a remote server steering the sign-in inside', () => {
  it('is refused a resource_metadata URL on a loopback address: no connection is made', async () => {
    const redis = await trap();
    const remote = await remoteServer(`${redis.url}/`);
    const { failure } = await signInFailure(remote);
    expect(failure).toBeInstanceOf(AuthorizationError);
    expect(failure).toMatchObject({ step: 'resource-metadata', error: 'private_address' });
    expect((failure as Error).message).toContain(`${redis.url}/`);
    expect((failure as Error).message).toContain('127.0.0.1 is a loopback address');
    expect(redis.accepted()).toBe(0);
  });

  it.each([
    ['https://169.254.169.254/latest/meta-data/', 'link-local'],
    ['https://10.0.0.5/admin', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://100.64.0.1/', 'carrier-grade NAT'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://[fd00::1]/', 'unique local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[::ffff:a9fe:a9fe]/', 'link-local'], // IPv4-mapped 169.254.169.254
    ['https://[::]/', 'unspecified'],
  ])('is refused resource_metadata %s (%s) before anything is fetched', async (target, kind) => {
    const remote = await remoteServer(target);
    const { failure, refused } = await signInFailure(remote);
    expect(failure).toMatchObject({ step: 'resource-metadata', error: 'private_address' });
    expect((failure as Error).message).toContain(target);
    expect((failure as Error).message).toContain(kind);
    expect(refused).toEqual([]);
  });

  it('is refused authorization_servers on loopback or private addresses', async () => {
    const internal = await trap('127.0.0.2');
    for (const [issuer, kind] of [
      [internal.url, 'loopback'],
      ['https://192.168.1.1', 'private'],
    ] as const) {
      const remote = await remoteServer(undefined, [issuer]);
      const { failure, refused } = await signInFailure(remote);
      expect(failure, issuer).toMatchObject({ step: 'authorization-server-metadata', error: 'private_address' });
      expect((failure as Error).message).toContain(issuer);
      expect((failure as Error).message).toContain(kind);
      expect(refused).toEqual([]);
    }
    expect(internal.accepted()).toBe(0);
  });

  it('is refused a host name that resolves to a private address', async () => {
    const remote = await remoteServer(undefined, ['https://auth.internal.example']);
    const asked: string[] = [];
    const resolveHost = async (hostname: string): Promise<string[]> => {
      asked.push(hostname);
      // One public address among them is not enough: every address must be public.
      return hostname === 'auth.internal.example' ? ['93.184.215.14', '10.1.2.3'] : ['93.184.215.14'];
    };
    const { failure, refused } = await signInFailure(remote, { resolveHost });
    expect(failure).toMatchObject({ step: 'authorization-server-metadata', error: 'private_address' });
    expect((failure as Error).message).toContain('auth.internal.example resolves to 10.1.2.3, a private address');
    expect(asked).toContain('auth.internal.example');
    expect(refused).toEqual([]);
  });

  it('gives up on a resolver that never answers within requestTimeoutMs, and fetches nothing', async () => {
    const remote = await remoteServer(undefined, ['https://auth.example.com']);
    const { failure, refused } = await signInFailure(remote, { resolveHost: () => new Promise<string[]>(() => undefined), requestTimeoutMs: 300 });
    expect(failure).toMatchObject({ step: 'authorization-server-metadata', error: 'timeout' });
    expect(refused).toEqual([]);
  });

  it('is refused localhost by name, whatever it resolves to', async () => {
    const local = await trap();
    const remote = await remoteServer(`http://localhost:${local.port}/prm`);
    const { failure } = await signInFailure(remote);
    expect(failure).toMatchObject({ step: 'resource-metadata', error: 'private_address' });
    expect((failure as Error).message).toContain('localhost is a loopback name');
    expect(local.accepted()).toBe(0);
  });
});

describe('allowPrivateNetwork', () => {
  it('lets the sign-in reach the hosts it lists, and only those', async () => {
    const internal = await trap('127.0.0.2');
    const remote = await remoteServer(`${internal.url}/prm`);
    const { failure } = await signInFailure(remote, { allowPrivateNetwork: ['127.0.0.2'] });
    // Reached: it answered 404, so no metadata.
    expect(failure).toMatchObject({ step: 'resource-metadata' });
    expect((failure as AuthorizationError).error).not.toBe('private_address');
    expect(internal.accepted()).toBe(1);

    const other = await trap();
    const elsewhere = await remoteServer(`${other.url}/prm`);
    expect((await signInFailure(elsewhere, { allowPrivateNetwork: ['127.0.0.2'] })).failure).toMatchObject({ error: 'private_address' });
    expect(other.accepted()).toBe(0);
    // true: any host.
    expect((await signInFailure(elsewhere, { allowPrivateNetwork: true })).failure).toMatchObject({ step: 'resource-metadata' });
    expect(other.accepted()).toBe(1);
  });
});

describe('local development', () => {
  it('a server on loopback still signs the user in against an authorization server on loopback', async () => {
    const as = await startAuthorizationServer();
    closers.push(() => as.close());
    const server = await startProtectedServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
    closers.push(() => server.close());
    const client = await new Client(info, { auth: new OAuthProvider({ signIn: new TestBrowser() }) }).connect(server.url);
    closers.push(() => client.close());
    const result = await client.callTool('whoami');
    expect((result.content[0] as { text: string }).text).toBe('hello from a protected server');
    expect(as.log.grants.map((g) => g.grantType)).toEqual(['authorization_code']);
  });
});

describe('on Node, the address checked is the address connected to', () => {
  it('resolves a host name once per request and connects to the address the resolver gave, never asking DNS again', async () => {
    // The metadata is on 127.0.0.2; the system's answer for localhost (the hosts file) is 127.0.0.1, where a decoy listens on the same port.
    const server = await startHostile((req, res) => res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="http://localhost:${port}/prm"` }).end());
    closers.push(() => server.close());
    const real = await trap('127.0.0.2');
    const port = real.port;
    const decoy = await trap('127.0.0.1', port);
    const asked: string[] = [];
    const resolveHost = async (hostname: string): Promise<string[]> => {
      asked.push(hostname);
      return ['127.0.0.2'];
    };
    const failure = await new Client(info, { auth: new OAuthProvider({ grant: clientCredentials(), client: { clientId: 'c' }, resolveHost }) })
      .connect(server.url)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ step: 'resource-metadata' }); // the 404
    expect(asked).toEqual(['localhost']);
    expect(real.accepted()).toBe(1);
    expect(decoy.accepted()).toBe(0);
  });
});
