/**
 * A real OAuth 2.1 authorization server for tests: panva's oidc-provider on
 * 127.0.0.1 (port 0) with PKCE, resource indicators (RFC 8707) and JWT access
 * tokens per resource, refresh token rotation, dynamic client registration,
 * RFC 9207 `iss`, DPoP when asked for, and a login + consent step that a test drives over HTTP
 * (`TestBrowser` plays the user's browser: it follows redirects, keeps
 * cookies, and approves or denies at the consent screen).
 *
 * Reused by the server-side authorization tests: static clients (a service
 * using client credentials, apps for several users, a resource server that
 * introspects), tokens minted straight from the token endpoint
 * (`clientCredentialsToken`, `userToken`, DPoP-bound when given a key),
 * opaque tokens with introspection, and a signing key rotation that a
 * resource server must pick up without a restart (`rotateSigningKey`).
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientMetadata, type Configuration, type KoaContextWithOIDC, type ResponseType } from 'oidc-provider';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { AuthorizationRequest, UserAuthorization } from '../../src/client.js';
import { dpopProof, type DpopKey } from './dpop.js';

export interface AuthorizationServerOptions {
  /** Scopes a resource server may be granted (default mcp:read mcp:write). */
  resourceScopes?: string[];
  /** Access token lifetime, in seconds (default 300). */
  accessTokenTtl?: number;
  /** Offer DPoP (RFC 9449): tokens asked for with a proof are bound to its key (default off). */
  dpop?: boolean;
  /** Clients registered from the start (`client_id`, `client_secret`, `grant_types`, `redirect_uris`…). */
  clients?: StaticClient[];
  /** Access tokens as JWTs (default) or opaque handles that only introspection can read. */
  accessTokenFormat?: 'jwt' | 'opaque';
}

export interface StaticClient extends ClientMetadata {
  client_id: string;
  client_secret?: string;
  grant_types?: string[];
  redirect_uris?: string[];
  response_types?: ResponseType[];
  token_endpoint_auth_method?: ClientMetadata['token_endpoint_auth_method'];
}

/** A confidential client for the client credentials grant. */
export function serviceClient(clientId: string, clientSecret = `${clientId}-secret`): StaticClient {
  return { client_id: clientId, client_secret: clientSecret, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' };
}

/** A public app whose users sign in with the authorization code flow (PKCE), redirecting to TestBrowser's default URI. */
export function appClient(clientId: string, redirectUri = 'http://127.0.0.1:9/callback'): StaticClient {
  return { client_id: clientId, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' };
}

/** A resource server's own client at the authorization server, for token introspection (no grants). */
export function introspectingClient(clientId: string, clientSecret = `${clientId}-secret`): StaticClient {
  return { client_id: clientId, client_secret: clientSecret, grant_types: [], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' };
}

export interface IssuedToken {
  accessToken: string;
  tokenType: string;
  scope: string | undefined;
}

/** What the server saw, for assertions. */
export interface AuthorizationServerLog {
  /** client_id of every registration. */
  registrations: string[];
  /** The query of every authorization request. */
  authorizations: URLSearchParams[];
  /** grant_type and client_id of every successful token request. */
  grants: Array<{ grantType: string; clientId: string | undefined }>;
}

export interface RunningAuthorizationServer {
  issuer: string;
  jwksUrl: string;
  log: AuthorizationServerLog;
  /** The provider in use (a new one after `rotateSigningKey`). */
  readonly provider: Provider;
  /** The `kid` tokens are signed with now. */
  readonly signingKid: string;
  /** A token for a client, by the client credentials grant, for `resource` (DPoP-bound when `dpopKey` is given). */
  clientCredentialsToken(request: { clientId: string; clientSecret?: string; resource: string; scope?: string; dpopKey?: DpopKey }): Promise<IssuedToken>;
  /** A token for `user` through `clientId` (a public app client), by the authorization code flow with PKCE and consent. */
  userToken(request: { user: string; clientId: string; resource: string; scope: string; redirectUri?: string }): Promise<IssuedToken>;
  /**
   * Starts signing with a new key, as an operator rotating keys does: the key
   * set publishes the new key first and, with `keepOld` (default true), the
   * old one after it. Sessions and grants of the old provider are gone.
   */
  rotateSigningKey(options?: { keepOld?: boolean }): Promise<void>;
  /**
   * Signs claims with the authorization server's current key, as its tokens
   * are (`typ: at+jwt`, its `kid`): for tests that need one claim wrong and
   * everything else right (expired, another audience, another issuer).
   */
  signAccessToken(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

interface InteractionView {
  uid: string;
  prompt: string;
  missingScopes: string[];
  missingResourceScopes: Record<string, string[]>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startAuthorizationServer(options: AuthorizationServerOptions = {}): Promise<RunningAuthorizationServer> {
  const resourceScopes = (options.resourceScopes ?? ['mcp:read', 'mcp:write']).join(' ');
  const log: AuthorizationServerLog = { registrations: [], authorizations: [], grants: [] };
  let provider: Provider | undefined;
  const server: Server = createServer((req, res) => {
    void route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let keys: JsonWebKey[] = [await ecSigningKey('test-es256')];
  const configure = (): Configuration => ({
    clients: options.clients ?? [],
    clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
    scopes: ['openid', 'offline_access', ...resourceScopes.split(' ')],
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: options.dpop === true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => ({
          scope: resourceScopes,
          audience: resourceIndicator,
          accessTokenTTL: options.accessTokenTtl ?? 300,
          accessTokenFormat: options.accessTokenFormat ?? 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    pkce: { required: () => true },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, accountId) => ({ accountId, claims: async () => ({ sub: accountId }) }),
    jwks: { keys },
    cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
    ttl: {
      AccessToken: options.accessTokenTtl ?? 300,
      ClientCredentials: options.accessTokenTtl ?? 300,
      Interaction: 600,
      Session: 600,
      Grant: 600,
      AuthorizationCode: 60,
      RefreshToken: 3600,
    },
  });
  let callback!: ReturnType<Provider['callback']>;
  const start = (): void => {
    provider = new Provider(issuer, configure());
    provider.on('registration_create.success', (_ctx, client) => log.registrations.push(client.clientId));
    provider.on('authorization.accepted', (ctx) => log.authorizations.push(new URLSearchParams(ctx.querystring)));
    provider.on('grant.success', (ctx) => {
      const params = ctx.oidc.params as Record<string, unknown> | undefined;
      log.grants.push({ grantType: String(params?.grant_type ?? ''), clientId: ctx.oidc.client?.clientId });
    });
    callback = provider.callback();
  };
  start();

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    const match = /^\/interaction\/([^/]+)(?:\/(login|confirm|abort))?$/.exec(url.pathname);
    if (!match) return callback(req, res);
    try {
      const details = await provider!.interactionDetails(req, res);
      const action = match[2];
      if (!action) {
        const view: InteractionView = {
          uid: details.uid,
          prompt: details.prompt.name,
          missingScopes: (details.prompt.details.missingOIDCScope as string[] | undefined) ?? [],
          missingResourceScopes: (details.prompt.details.missingResourceScopes as Record<string, string[]> | undefined) ?? {},
        };
        return sendJson(res, 200, view);
      }
      if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST only' });
      const form = new URLSearchParams(await readBody(req));
      if (action === 'abort') {
        return await provider!.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user said no' }, { mergeWithLastSubmission: false });
      }
      if (action === 'login') {
        return await provider!.interactionFinished(req, res, { login: { accountId: form.get('user') ?? 'alice' } }, { mergeWithLastSubmission: false });
      }
      // confirm: grant exactly what is missing
      const grant = details.grantId ? await provider!.Grant.find(details.grantId) : new provider!.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
      const missingOidc = (details.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
      if (missingOidc.length > 0) grant!.addOIDCScope(missingOidc.join(' '));
      for (const [resource, scopes] of Object.entries((details.prompt.details.missingResourceScopes as Record<string, string[]> | undefined) ?? {})) {
        grant!.addResourceScope(resource, scopes.join(' '));
      }
      const grantId = await grant!.save();
      return await provider!.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    } catch (error) {
      sendJson(res, 400, { error: 'interaction_failed', error_description: (error as Error).message });
    }
  }

  async function token(form: Record<string, string>, headers: Record<string, string> = {}): Promise<IssuedToken> {
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) throw new Error(`The token endpoint said ${response.status}: ${JSON.stringify(json)}`);
    return { accessToken: String(json.access_token), tokenType: String(json.token_type), scope: typeof json.scope === 'string' ? json.scope : undefined };
  }

  let rotations = 0;
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    log,
    get provider() {
      return provider!;
    },
    get signingKid() {
      return String((keys[0] as { kid: string }).kid);
    },
    clientCredentialsToken: async ({ clientId, clientSecret, resource, scope, dpopKey }) => {
      const secret = clientSecret ?? `${clientId}-secret`;
      const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` };
      if (dpopKey) headers.dpop = await dpopProof(dpopKey, 'POST', `${issuer}/token`);
      return token({ grant_type: 'client_credentials', resource, ...(scope ? { scope } : {}) }, headers);
    },
    userToken: async ({ user, clientId, resource, scope, redirectUri = 'http://127.0.0.1:9/callback' }) => {
      const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
      const challenge = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString('base64url');
      const url = new URL(`${issuer}/auth`);
      for (const [name, value] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope, resource, code_challenge: challenge, code_challenge_method: 'S256', state: 'test-state' })) {
        url.searchParams.set(name, value);
      }
      const browser = new TestBrowser(redirectUri);
      browser.user = user;
      const landing = await browser.follow(url, redirectUri);
      const code = landing.searchParams.get('code');
      if (!code) throw new Error(`No code in the redirect: ${landing.href}`);
      return token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, client_id: clientId, resource });
    },
    rotateSigningKey: async ({ keepOld = true } = {}) => {
      rotations += 1;
      const fresh = await ecSigningKey(`test-es256-${rotations}`);
      keys = keepOld ? [fresh, ...keys] : [fresh];
      start();
    },
    signAccessToken: async (claims, header = {}) => {
      const key = await importJWK(keys[0] as JWK, 'ES256');
      return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: String((keys[0] as { kid: string }).kid), ...header } as never).sign(key);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined),
  };
}

async function ecSigningKey(kid: string): Promise<JsonWebKey> {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  // WebCrypto's key_ops ("sign") would be published with the public key and stop verifiers using it.
  const { key_ops: _ops, ext: _ext, ...jwk } = await crypto.subtle.exportKey('jwk', pair.privateKey);
  return { ...jwk, alg: 'ES256', use: 'sig', kid } as JsonWebKey;
}

/** What the test's user does at the consent screen. */
export type ConsentDecision = 'approve' | 'deny';

/**
 * The user's browser, driven by the test: follows the authorization URL
 * through login and consent by plain HTTP (cookies kept), and hands back the
 * redirect to the client's redirect URI. Bounded: at most 20 hops.
 */
export class TestBrowser implements UserAuthorization {
  decision: ConsentDecision = 'approve';
  user = 'alice';
  /** Every authorization URL the client sent the user to. */
  readonly visited: URL[] = [];
  /** Every consent screen seen: the scopes it asked for, by resource. */
  readonly consents: InteractionView[] = [];
  private readonly cookies = new Map<string, string>();

  constructor(private readonly redirect = 'http://127.0.0.1:9/callback') {}

  redirectUri(): string {
    return this.redirect;
  }

  async authorize(request: AuthorizationRequest): Promise<URL> {
    this.visited.push(request.url);
    return this.follow(request.url, request.redirectUri);
  }

  /** Follows `start` until the authorization server sends the browser to `redirectUri`. */
  async follow(start: URL, redirectUri: string): Promise<URL> {
    let next: { url: URL; method: 'GET' | 'POST'; body?: string } = { url: start, method: 'GET' };
    for (let hop = 0; hop < 20; hop++) {
      if (next.url.href.startsWith(redirectUri)) return next.url;
      const response = await fetch(next.url, {
        method: next.method,
        redirect: 'manual',
        headers: {
          cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
          ...(next.body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(next.body !== undefined ? { body: next.body } : {}),
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
      }
      const location = response.headers.get('location');
      if (location) {
        await response.body?.cancel();
        next = { url: new URL(location, next.url), method: 'GET' };
        continue;
      }
      const text = await response.text();
      if (response.status !== 200 || !/^\/interaction\/[^/]+$/.test(next.url.pathname)) {
        throw new Error(`The browser got HTTP ${response.status} at ${next.url.href}: ${text.slice(0, 300)}`);
      }
      const view = JSON.parse(text) as InteractionView;
      const base = `${next.url.origin}/interaction/${view.uid}`;
      if (view.prompt === 'login') {
        next = { url: new URL(`${base}/login`), method: 'POST', body: new URLSearchParams({ user: this.user }).toString() };
      } else {
        this.consents.push(view);
        next = { url: new URL(`${base}/${this.decision === 'approve' ? 'confirm' : 'abort'}`), method: 'POST', body: '' };
      }
    }
    throw new Error(`The browser gave up after 20 hops from ${start.href}`);
  }
}
