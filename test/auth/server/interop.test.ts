/**
 * Clients signing in to Tessera's own protected server through a real
 * authorization server (oidc-provider), each completing an MRTR tool whose
 * state is bound to the caller they signed in as:
 *
 * - Tessera's client (OAuthProvider): discovery from the 401, registration,
 *   the code flow, the MRTR rounds; step-up on a tool's 403; DPoP-bound
 *   tokens with a proof per request; a token refreshed in the middle of a
 *   flow, whose state still opens (same issuer, subject and client).
 * - The official TypeScript SDK client 2.4.0 with its OAuthClientProvider:
 *   the same sign-in, then the same MRTR tool.
 */

import { Client as OfficialClient, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, MemoryTokenStore, OAuthProvider, type OAuthProviderOptions } from '../../../src/client.js';
import { TestBrowser } from '../../helpers/authorization-server.js';
import { startProtectedTessera, type ProtectedTessera, type ProtectedTesseraOptions } from '../../helpers/protected-tessera.js';

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function protectedTessera(options: ProtectedTesseraOptions = {}): Promise<ProtectedTessera> {
  const t = await startProtectedTessera(options);
  closers.push(() => t.close());
  return t;
}

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((c) => c.text ?? '').join('');
}

async function tesseraClient(t: ProtectedTessera, auth: OAuthProviderOptions, onForm?: () => void): Promise<Client> {
  const client = new Client(
    { name: 'tessera-interop', version: '1.0.0' },
    {
      auth: new OAuthProvider(auth),
      elicitation: {
        form: async () => {
          onForm?.();
          return { action: 'accept', content: { ok: true } };
        },
      },
    },
  );
  await client.connect(t.url);
  closers.push(() => client.close());
  return client;
}

describe("Tessera's client against Tessera's protected server", () => {
  it('signs in from the 401 and completes an MRTR tool as the signed-in user', async () => {
    const t = await protectedTessera();
    const browser = new TestBrowser();
    browser.user = 'alice';
    const client = await tesseraClient(t, { signIn: browser });
    expect(textOf(await client.callTool('confirm', { item: 'release' }))).toMatch(/^release: confirmed by alice/);

    expect(browser.visited).toHaveLength(1);
    expect(browser.visited[0]!.searchParams.get('resource')).toBe(t.url);
    expect(browser.visited[0]!.searchParams.get('scope')?.split(' ')).toContain('mcp:read');
    expect(t.requests[0]).toMatchObject({ status: 401 });
    const calls = t.requests.filter((r) => r.method === 'tools/call');
    expect(calls.map((r) => r.status)).toEqual([200, 200]); // the round, then the retry with state
    for (const call of calls) expect(call.authorization).toMatch(/^Bearer /);
  });

  it("steps up on the tool's 403 insufficient_scope with the union of scopes, then the tool runs", async () => {
    const t = await protectedTessera();
    const browser = new TestBrowser();
    const client = await tesseraClient(t, { signIn: browser });
    expect(textOf(await client.callTool('deploy', { service: 'api' }))).toBe('deployed api for alice');
    expect(t.requests.some((r) => r.method === 'tools/call' && r.status === 403)).toBe(true);
    expect(browser.visited).toHaveLength(2);
    expect(browser.visited[1]!.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'deploy']));
  });

  it('binds its tokens with DPoP, a fresh proof on every request of the flow', async () => {
    const t = await protectedTessera({ authorizationServer: { dpop: true } });
    const store = new MemoryTokenStore();
    const client = await tesseraClient(t, { signIn: new TestBrowser(), store });
    expect(textOf(await client.callTool('confirm', { item: 'keys' }))).toMatch(/^keys: confirmed by alice/);
    const accepted = t.requests.filter((r) => r.status === 200 && r.method !== undefined);
    expect(accepted.length).toBeGreaterThan(1);
    for (const request of accepted) expect(request.authorization).toMatch(/^DPoP /);
    expect((await store.get(t.url))?.tokens?.tokenType).toBe('dpop');
  });

  it('keeps its flow when the token is refreshed between rounds: the state is bound to the caller, not the token', async () => {
    const t = await protectedTessera();
    let clock = Date.now();
    const store = new MemoryTokenStore();
    const client = await tesseraClient(t, { signIn: new TestBrowser(), store, now: () => clock }, () => {
      clock += 301_000; // the answer takes the user five minutes: the token has expired by the retry
    });
    await client.listTools();
    const before = (await store.get(t.url))!.tokens!.accessToken;
    expect(textOf(await client.callTool('confirm', { item: 'late' }))).toMatch(/^late: confirmed by alice/);
    const after = (await store.get(t.url))!.tokens!.accessToken;
    expect(after).not.toBe(before);
    expect(t.as.log.grants.map((g) => g.grantType)).toEqual(['authorization_code', 'refresh_token']);
  });
});

/** The official SDK's OAuth client provider, as an app implements it, with TestBrowser as the user's browser. */
class BrowserProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private information: Parameters<NonNullable<OAuthClientProvider['saveClientInformation']>>[0] | undefined;
  private saved: Parameters<OAuthClientProvider['saveTokens']>[0] | undefined;
  private verifier = '';
  private discovery: Parameters<NonNullable<OAuthClientProvider['saveDiscoveryState']>>[0] | undefined;

  get redirectUrl(): string {
    return 'http://127.0.0.1:9/callback';
  }

  get clientMetadata(): OAuthClientProvider['clientMetadata'] {
    return {
      client_name: 'official-sdk-interop',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): typeof this.information {
    return this.information;
  }

  saveClientInformation(information: NonNullable<typeof this.information>): void {
    this.information = information;
  }

  tokens(): typeof this.saved {
    return this.saved;
  }

  saveTokens(tokens: NonNullable<typeof this.saved>): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  // Kept with the verifier, so the SDK can check the code goes back to the authorization server that issued it.
  saveDiscoveryState(state: NonNullable<typeof this.discovery>): void {
    this.discovery = state;
  }

  discoveryState(): typeof this.discovery {
    return this.discovery;
  }
}

function officialClient(asked: string[]): OfficialClient {
  const client = new OfficialClient(
    { name: 'official-oauth-interop', version: '0.1.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { ok: true } };
  });
  return client;
}

describe("the official SDK client (2.4.0) against Tessera's protected server", () => {
  it('signs in through oidc-provider with its OAuth provider and completes an MRTR tool as that user', async () => {
    const t = await protectedTessera();
    const provider = new BrowserProvider();
    const asked: string[] = [];

    // First connect: the 401 starts the sign-in; the SDK sends the user to the authorization URL and stops.
    const first = officialClient(asked);
    const failure = await first.connect(new StreamableHTTPClientTransport(new URL(t.url), { authProvider: provider })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(t.url);

    // The user signs in and consents; the app hands the redirect back to the transport.
    const browser = new TestBrowser(provider.redirectUrl);
    browser.user = 'carol';
    const landing = await browser.follow(provider.authorizationUrl!, provider.redirectUrl);
    const transport = new StreamableHTTPClientTransport(new URL(t.url), { authProvider: provider });
    await transport.finishAuth(landing.searchParams);

    const client = officialClient(asked);
    await client.connect(transport);
    closers.push(() => client.close());
    const result = (await client.callTool({ name: 'confirm', arguments: { item: 'invoice' } })) as { content: Array<{ type: string; text?: string }> };
    expect(textOf(result)).toMatch(/^invoice: confirmed by carol/);
    expect(asked).toEqual(['Confirm invoice?']);
    const calls = t.requests.filter((r) => r.method === 'tools/call');
    expect(calls.map((r) => r.status)).toEqual([200, 200]);
    for (const call of calls) expect(call.authorization).toMatch(/^Bearer /);
  });
});
