/**
 * The pieces of the flow, each against the rule it implements (MCP
 * authorization spec, RFC 6750, 8414, 8707, 9207, 9728): challenge parsing,
 * where metadata is looked for and in which order, the `resource` and
 * `issuer` checks, PKCE refusal, RFC 9207 `iss` handling, scope selection,
 * the DCR `application_type`, client_secret_basic encoding.
 */

import { describe, expect, it } from 'vitest';
import { authorizationCode, type UserAuthorization } from '../../../src/auth/client/authorization-code-grant.js';
import { assertPkceSupported, authorizationServerMetadataUrls, discoverAuthorizationServer } from '../../../src/auth/client/authorization-server-metadata.js';
import { clientSecretBasic } from '../../../src/auth/client/client-authentication.js';
import { applicationTypeFor } from '../../../src/auth/client/client-identity.js';
import { AuthorizationError } from '../../../src/auth/client/errors.js';
import type { HttpOptions } from '../../../src/auth/client/http.js';
import { canonicalResource, discoverResourceMetadata, resourceCovers, resourceMetadataUrls } from '../../../src/auth/client/resource-metadata.js';
import { selectScopes } from '../../../src/auth/client/scopes.js';
import { parseChallenges, readChallenge } from '../../../src/auth/client/www-authenticate.js';
import * as oauth from 'oauth4webapi';

/** A fetch that serves fixed JSON documents by URL and records what was asked. */
function fakeFetch(documents: Record<string, unknown>): { http: HttpOptions; asked: string[] } {
  const asked: string[] = [];
  const fetchImpl = (async (input: string | URL | Request) => {
    const url = input instanceof Request ? input.url : String(input);
    asked.push(url);
    if (!(url in documents)) return new Response('not found', { status: 404 });
    return Response.json(documents[url]);
  }) as typeof fetch;
  return { http: { fetch: fetchImpl, signal: undefined, allowInsecureRequests: false }, asked };
}

describe('WWW-Authenticate (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1)', () => {
  it('reads scheme and parameters, quoted or not, with commas inside quotes', () => {
    const [bearer] = parseChallenges('Bearer realm="mcp, inc", error=invalid_token, scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource"');
    expect(bearer).toEqual({
      scheme: 'bearer',
      params: { realm: 'mcp, inc', error: 'invalid_token', scope: 'a b', resource_metadata: 'https://x/.well-known/oauth-protected-resource' },
    });
  });

  it('keeps several challenges apart and prefers Bearer/DPoP over others', () => {
    const response = new Response(null, { status: 401, headers: { 'www-authenticate': 'Basic realm="x", Bearer scope="mcp:read", error="insufficient_scope"' } });
    const challenge = readChallenge(response);
    expect(challenge.scheme).toBe('bearer');
    expect(challenge.scopes).toEqual(['mcp:read']);
    expect(challenge.error).toBe('insufficient_scope');
    expect(challenge.resourceMetadata).toBeUndefined();
  });

  it('handles escaped quotes and an empty header', () => {
    expect(parseChallenges('Bearer error_description="say \\"hi\\""')[0]!.params.error_description).toBe('say "hi"');
    expect(readChallenge(new Response(null, { status: 401 })).scheme).toBeUndefined();
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('tries the path-based well-known URI, then the root one', () => {
    expect(resourceMetadataUrls('https://mcp.example.com/tenant/mcp')).toEqual([
      'https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp',
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    ]);
    expect(resourceMetadataUrls('https://mcp.example.com/')).toEqual(['https://mcp.example.com/.well-known/oauth-protected-resource']);
  });

  it('uses only the URL from the challenge when there is one', async () => {
    const hinted = 'https://mcp.example.com/custom/prm.json';
    const { http, asked } = fakeFetch({ [hinted]: { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://as.example.com'] } });
    const found = await discoverResourceMetadata('https://mcp.example.com/mcp', hinted, http);
    expect(found.authorizationServers).toEqual(['https://as.example.com']);
    expect(asked).toEqual([hinted]);
  });

  it('moves to the root URI when the path-based one is missing', async () => {
    const { http, asked } = fakeFetch({
      'https://mcp.example.com/.well-known/oauth-protected-resource': { resource: 'https://mcp.example.com', authorization_servers: ['https://as.example.com'] },
    });
    const found = await discoverResourceMetadata('https://mcp.example.com/mcp', undefined, http);
    expect(found.resource).toBe('https://mcp.example.com');
    expect(asked).toHaveLength(2);
  });

  it('refuses metadata for another resource', async () => {
    const { http } = fakeFetch({
      'https://mcp.example.com/.well-known/oauth-protected-resource/mcp': { resource: 'https://evil.example.com/mcp', authorization_servers: ['https://as.example.com'] },
    });
    await expect(discoverResourceMetadata('https://mcp.example.com/mcp', undefined, http)).rejects.toMatchObject({ step: 'resource-metadata', error: 'invalid_resource' });
  });

  it('accepts the server itself or a parent path on the same origin, nothing else', () => {
    expect(resourceCovers('https://mcp.example.com/mcp', 'https://mcp.example.com/mcp')).toBe(true);
    expect(resourceCovers('https://mcp.example.com', 'https://mcp.example.com/mcp')).toBe(true);
    expect(resourceCovers('https://mcp.example.com/mc', 'https://mcp.example.com/mcp')).toBe(false);
    expect(resourceCovers('https://mcp.example.com:8443/mcp', 'https://mcp.example.com/mcp')).toBe(false);
    expect(resourceCovers('http://mcp.example.com/mcp', 'https://mcp.example.com/mcp')).toBe(false);
  });

  it('canonical resource URIs have no fragment, no query, no trailing slash (RFC 8707 §2)', () => {
    expect(canonicalResource('HTTPS://MCP.Example.com/mcp/?x=1#frag')).toBe('https://mcp.example.com/mcp');
    expect(canonicalResource('https://mcp.example.com/')).toBe('https://mcp.example.com');
    expect(canonicalResource('https://mcp.example.com:443/mcp')).toBe('https://mcp.example.com/mcp');
  });
});

describe('authorization server metadata (RFC 8414, OIDC Discovery)', () => {
  it('tries the spec’s locations in order, for issuers with and without a path', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com/tenant1')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
    expect(authorizationServerMetadataUrls('https://auth.example.com')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
  });

  it('falls through to OIDC discovery when RFC 8414 metadata is missing', async () => {
    const issuer = 'https://auth.example.com/tenant1';
    const { http, asked } = fakeFetch({
      'https://auth.example.com/tenant1/.well-known/openid-configuration': { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token` },
    });
    const as = await discoverAuthorizationServer(issuer, http);
    expect(as.token_endpoint).toBe(`${issuer}/token`);
    expect(asked).toHaveLength(3);
  });

  it('refuses a document whose issuer differs from the one the URL was built from, by simple string comparison', async () => {
    const issuer = 'https://auth.example.com';
    const { http } = fakeFetch({ 'https://auth.example.com/.well-known/oauth-authorization-server': { issuer: `${issuer}/`, token_endpoint: `${issuer}/token` } });
    await expect(discoverAuthorizationServer(issuer, http)).rejects.toMatchObject({ step: 'authorization-server-metadata', error: 'invalid_issuer' });
  });

  it('refuses plain http endpoints on a remote host', async () => {
    const issuer = 'https://auth.example.com';
    const { http } = fakeFetch({ 'https://auth.example.com/.well-known/oauth-authorization-server': { issuer, token_endpoint: 'http://auth.example.com/token' } });
    await expect(discoverAuthorizationServer(issuer, http)).rejects.toBeInstanceOf(AuthorizationError);
  });

  it('refuses to proceed without code_challenge_methods_supported listing S256', () => {
    expect(() => assertPkceSupported({ issuer: 'https://a' })).toThrow(/PKCE/);
    expect(() => assertPkceSupported({ issuer: 'https://a', code_challenge_methods_supported: ['plain'] })).toThrow(/PKCE/);
    expect(() => assertPkceSupported({ issuer: 'https://a', code_challenge_methods_supported: ['S256'] })).not.toThrow();
  });
});

describe('the authorization response (RFC 9207, state)', () => {
  const issuer = 'https://auth.example.com';

  /** Runs the grant against a user agent that answers with `answer(state)`; resolves with the error, or "exchanged". */
  async function respond(metadata: Partial<oauth.AuthorizationServer>, answer: (state: string) => Record<string, string>): Promise<unknown> {
    let exchanged = false;
    const user: UserAuthorization = {
      redirectUri: () => 'http://127.0.0.1:9/callback',
      authorize: async ({ url }) => new URLSearchParams(answer(url.searchParams.get('state')!)),
    };
    const http: HttpOptions = {
      fetch: (async () => {
        exchanged = true;
        return Response.json({ access_token: 't', token_type: 'Bearer' });
      }) as typeof fetch,
      signal: undefined,
      allowInsecureRequests: false,
    };
    const as = { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, code_challenge_methods_supported: ['S256'], ...metadata };
    try {
      await authorizationCode(user).obtain({ as, client: { client_id: 'c' }, clientAuth: oauth.None(), resource: 'https://mcp.example.com/mcp', scopes: undefined, http, dpop: undefined });
      return exchanged ? 'exchanged' : 'not exchanged';
    } catch (error) {
      return exchanged ? 'exchanged despite an error' : error;
    }
  }

  it('accepts a matching iss, and an absent one when not promised', async () => {
    expect(await respond({ authorization_response_iss_parameter_supported: true }, (state) => ({ code: 'x', state, iss: issuer }))).toBe('exchanged');
    expect(await respond({}, (state) => ({ code: 'x', state }))).toBe('exchanged');
  });

  it('rejects a missing iss the metadata promised, a wrong one, and a normalised variant, without using the code', async () => {
    for (const [metadata, iss] of [
      [{ authorization_response_iss_parameter_supported: true }, undefined],
      [{ authorization_response_iss_parameter_supported: true }, 'https://evil.example.com'],
      [{}, 'https://evil.example.com'],
      [{ authorization_response_iss_parameter_supported: true }, `${issuer}/`],
    ] as const) {
      const failure = await respond(metadata, (state) => ({ code: 'x', state, ...(iss ? { iss } : {}) }));
      expect(failure).toMatchObject({ step: 'authorization-response', error: 'invalid_issuer' });
    }
  });

  it('never shows the error fields of an answer from the wrong issuer', async () => {
    const failure = (await respond({}, (state) => ({ error: 'access_denied', error_description: 'click evil.example', state, iss: 'https://evil.example.com' }))) as AuthorizationError;
    expect(failure.step).toBe('authorization-response');
    expect(failure.description).toBeUndefined();
    expect(failure.message).not.toContain('click evil.example');
  });

  it('rejects a wrong state, and reports the server’s error for a trusted answer', async () => {
    expect(await respond({}, () => ({ code: 'x', state: 'other' }))).toMatchObject({ step: 'authorization-response' });
    expect(await respond({}, (state) => ({ error: 'access_denied', state, iss: issuer }))).toMatchObject({ step: 'authorization', error: 'access_denied' });
  });
});

describe('scope selection', () => {
  const none = { configured: undefined, challenged: undefined, resourceScopes: undefined, serverScopes: undefined, previous: undefined, offlineAccess: true };

  it('uses the challenge, else scopes_supported, else omits scope', () => {
    expect(selectScopes({ ...none, challenged: ['a'], resourceScopes: ['b', 'c'] })).toEqual(['a']);
    expect(selectScopes({ ...none, resourceScopes: ['b', 'c'] })).toEqual(['b', 'c']);
    expect(selectScopes(none)).toBeUndefined();
  });

  it('adds offline_access only when the authorization server lists it', () => {
    expect(selectScopes({ ...none, challenged: ['a'], serverScopes: ['a', 'offline_access'] })).toEqual(['a', 'offline_access']);
    expect(selectScopes({ ...none, challenged: ['a'], serverScopes: ['a'] })).toEqual(['a']);
    expect(selectScopes({ ...none, challenged: ['a'], serverScopes: ['offline_access'], offlineAccess: false })).toEqual(['a']);
  });

  it('steps up with the union of the previous request and the challenge, not scopes_supported', () => {
    expect(selectScopes({ ...none, previous: ['mcp:basic'], challenged: ['mcp:write'], resourceScopes: ['mcp:profile'] })).toEqual(['mcp:basic', 'mcp:write']);
  });
});

describe('client registration and authentication', () => {
  it('registers loopback redirects as native apps and remote https ones as web apps', () => {
    expect(applicationTypeFor('http://127.0.0.1:4000/callback')).toBe('native');
    expect(applicationTypeFor('http://localhost:4000/callback')).toBe('native');
    expect(applicationTypeFor('https://app.example.com/oauth/callback')).toBe('web');
    expect(applicationTypeFor(undefined)).toBe('native');
  });

  it('client_secret_basic keeps unreserved characters and encodes the rest (RFC 6749 §2.3.1)', () => {
    const headers = new Headers();
    void clientSecretBasic('s:e cret')({ issuer: 'https://a' }, { client_id: 'pre-registered.client_1~' }, new URLSearchParams(), headers);
    const decoded = atob(headers.get('authorization')!.slice('Basic '.length));
    expect(decoded).toBe('pre-registered.client_1~:s%3Ae%20cret');
  });
});
