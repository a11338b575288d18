/**
 * OAuth 2.1 for an MCP client, end to end. `OAuthProvider` wraps the HTTP
 * transport's fetch: requests carry the stored token (in the Authorization
 * header only, DPoP-bound when the authorization server offers it); a 401
 * leads to discovery (protected resource metadata, then authorization server
 * metadata), a client identity, and the app's grant — the authorization code
 * flow with the user by default; a 403 `insufficient_scope` re-authorizes
 * with the union of scopes, a bounded number of times; an expired token is
 * refreshed first. Everything remembered goes through a TokenStore.
 */

import * as oauth from 'oauth4webapi';
import { authorizationCode, type UserAuthorization } from './authorization-code-grant.js';
import { discoverAuthorizationServer } from './authorization-server-metadata.js';
import type { HttpAuthProvider } from './auth-provider.js';
import { clientAuthentication } from './client-authentication.js';
import { resolveClientIdentity, type ClientMetadata, type PreRegisteredClient } from './client-identity.js';
import { advertisesDpop, dpopHandle, dpopKeyPair } from './dpop.js';
import { AuthorizationError } from './errors.js';
import { requestTokens, type Grant, type GrantContext } from './grant.js';
import { guardedFetch, type HostResolver } from './guarded-fetch.js';
import { assertSecure, libraryOptions, type HttpOptions } from './http.js';
import { canonicalResource, discoverResourceMetadata } from './resource-metadata.js';
import { selectScopes } from './scopes.js';
import { MemoryTokenStore, type RegisteredClient, type StoredAuthorization, type StoredTokens, type TokenStore } from './token-store.js';
import { readChallenge, type ResourceChallenge } from './www-authenticate.js';

export interface OAuthProviderOptions {
  /** How the user signs in (authorization code with PKCE). Needed unless `grant` says otherwise. */
  signIn?: UserAuthorization;
  /** A non-interactive grant instead: `clientCredentials()`, `jwtBearer(…)`, `identityAssertion(…)`. */
  grant?: Grant;
  /** Credentials registered beforehand (used first, and only with their authorization server). */
  client?: PreRegisteredClient;
  /** This client's metadata document URL (CIMD), used where the authorization server accepts them. */
  clientMetadataUrl?: string;
  /** What the client says about itself when it registers dynamically. */
  clientMetadata?: ClientMetadata;
  /** Scopes to ask for instead of those the server suggests (step-up still adds what it challenges). */
  scopes?: string[];
  /** Where sign-ins are kept (default: in memory, for this process only). */
  store?: TokenStore;
  /** Bind tokens with DPoP when the authorization server supports ES256 proofs (default true). */
  dpop?: boolean;
  /** Ask for `offline_access` (a refresh token) when the authorization server lists it (default true). */
  offlineAccess?: boolean;
  /** How many times one request may re-authorize for more scope on 403 `insufficient_scope` (default 2). */
  maxStepUps?: number;
  /**
   * The fetch for authorization servers and metadata (default: the
   * transport's). While it is the runtime's own fetch, on Node the sign-in
   * connects over node:http(s) to the addresses it checked instead; a fetch
   * of your own gets each request after the check, and resolves the name
   * again itself.
   */
  fetch?: typeof fetch;
  /** Allow plain http to hosts other than loopback. Never in production. */
  allowInsecureRequests?: boolean;
  /**
   * Hosts the sign-in may reach although they are, or resolve to, loopback,
   * private, link-local or other non-public addresses (an authorization
   * server on the company network): host names or IP addresses as written in
   * URLs, or `true` for any. Otherwise such a URL is refused (an
   * AuthorizationError, `error` `private_address`) unless the MCP server
   * itself is named by such an address or by `localhost`.
   */
  allowPrivateNetwork?: boolean | readonly string[];
  /**
   * How host names are resolved for that check (default: node:dns on Node,
   * Deno and Bun; browsers and workers have none, and check only URLs that
   * name an address). On Node, with the runtime's fetch, the connection goes
   * to the address checked.
   */
  resolveHost?: HostResolver;
  /** Longest one request of the sign-in (metadata, registration, token) may take, its answer included, in ms (default 30000). */
  requestTimeoutMs?: number;
  /** Cancels any sign-in in progress. */
  signal?: AbortSignal;
  /** Longest a sign-in may take, the user's part included, in ms (default 10 minutes). */
  signInTimeoutMs?: number;
  /** The clock, in ms since the epoch (tests move it to expire tokens). */
  now?: () => number;
}

interface RenewalReason {
  /** The token the server refused, if one was sent. */
  refused: StoredTokens | undefined;
  stepUp: boolean;
}

/** Seconds before expiry at which a token is treated as expired (clock skew, time in flight). */
const EXPIRY_MARGIN_MS = 10_000;

function drain(response: Response): Promise<void> {
  return response.body?.cancel().catch(() => undefined) ?? Promise.resolve();
}

function requestUrl(input: string | URL | Request): string {
  return input instanceof Request ? input.url : String(input);
}

function tokensFrom(response: oauth.TokenEndpointResponse, requested: string[] | undefined, now: number): StoredTokens {
  const tokens: StoredTokens = { accessToken: response.access_token, tokenType: response.token_type };
  if (response.refresh_token !== undefined) tokens.refreshToken = response.refresh_token;
  if (typeof response.expires_in === 'number') tokens.expiresAt = now + response.expires_in * 1000;
  const granted = typeof response.scope === 'string' ? response.scope.split(' ').filter(Boolean) : requested;
  if (granted !== undefined) tokens.scopes = granted;
  return tokens;
}

function libraryClient(registered: RegisteredClient): oauth.Client {
  const client: oauth.Client = { client_id: registered.clientId };
  if (registered.tokenEndpointAuthMethod !== undefined) client.token_endpoint_auth_method = registered.tokenEndpointAuthMethod;
  return client;
}

export class OAuthProvider implements HttpAuthProvider {
  private readonly store: TokenStore;
  private readonly grant: Grant | undefined;
  private readonly now: () => number;
  /** Sign-ins under way, by server: concurrent 401s share one. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** DPoP handles by server: they remember the servers' nonces. */
  private readonly handles = new Map<string, oauth.DPoPHandle>();

  constructor(private readonly options: OAuthProviderOptions = {}) {
    this.store = options.store ?? new MemoryTokenStore();
    this.grant = options.grant ?? (options.signIn ? authorizationCode(options.signIn) : undefined);
    this.now = options.now ?? Date.now;
  }

  wrapFetch(base: typeof fetch): typeof fetch {
    return (input, init) => this.send(base, input, init);
  }

  /** Forgets the sign-in for a server (tokens and registrations). */
  async signOut(serverUrl: string | URL): Promise<void> {
    const key = canonicalResource(serverUrl);
    this.handles.delete(key);
    await this.store.delete(key);
  }

  private async send(base: typeof fetch, input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
    const url = requestUrl(input);
    const key = canonicalResource(url);
    const maxStepUps = this.options.maxStepUps ?? 2;
    let stepUps = 0;
    let renewed = false;
    let nonceRetried = false;
    for (;;) {
      const record = await this.store.get(key);
      let tokens = record?.tokens;
      if (record && tokens && this.expired(tokens)) tokens = await this.refreshExpired(key, record, base, init?.signal ?? undefined);
      const response = tokens && record ? await this.sendWithToken(base, url, init, tokens, key, record) : await base(input, init);
      // Ending a session (DELETE) is never worth a sign-in.
      if ((response.status !== 401 && response.status !== 403) || init?.method === 'DELETE') return response;
      const challenge = readChallenge(response);
      // A plain 403 is the server's answer, not a request to authorize again.
      if (response.status === 403 && challenge.error !== 'insufficient_scope') return response;
      await drain(response);
      if (response.status === 401 && tokens && challenge.error === 'use_dpop_nonce' && !nonceRetried) {
        nonceRetried = true; // the DPoP handle has taken the server's nonce (RFC 9449 §9)
        continue;
      }
      if (response.status === 401) {
        // A token obtained a moment ago and refused: asking the user again would not help.
        if (renewed) {
          throw new AuthorizationError(`${url} refuses the access token it was just issued${challenge.errorDescription ? `: ${challenge.errorDescription}` : ''}`, {
            step: 'resource',
            error: challenge.error ?? 'invalid_token',
            description: challenge.errorDescription,
            status: 401,
          });
        }
        renewed = true;
      } else {
        if (stepUps >= maxStepUps) {
          throw new AuthorizationError(
            `${url} needs more scope (${challenge.scopes?.join(' ') ?? 'unnamed'}) than re-authorizing ${stepUps} time${stepUps === 1 ? '' : 's'} obtained`,
            { step: 'step-up', error: 'insufficient_scope', description: challenge.errorDescription, status: 403 },
          );
        }
        stepUps++;
      }
      await this.renewOnce(key, url, challenge, { refused: tokens, stepUp: response.status === 403 }, base, init?.signal ?? undefined);
    }
  }

  private expired(tokens: StoredTokens): boolean {
    return tokens.expiresAt !== undefined && tokens.expiresAt - EXPIRY_MARGIN_MS <= this.now();
  }

  private async sendWithToken(
    base: typeof fetch,
    url: string,
    init: RequestInit | undefined,
    tokens: StoredTokens,
    key: string,
    record: StoredAuthorization,
  ): Promise<Response> {
    const dpop = tokens.tokenType === 'dpop' ? await this.handleFor(key, record) : undefined;
    const headers = new Headers(init?.headers);
    const body = (init?.body ?? null) as oauth.ProtectedResourceRequestBody;
    try {
      // The library puts the token in the Authorization header (Bearer or DPoP, with a fresh proof) and nowhere else.
      return await oauth.protectedResourceRequest(tokens.accessToken, init?.method ?? 'GET', new URL(url), headers, body, {
        [oauth.customFetch]: (target, options) => base(target, options as RequestInit),
        [oauth.allowInsecureRequests]: true,
        ...(init?.signal ? { signal: init.signal } : {}),
        ...(dpop ? { DPoP: dpop } : {}),
      });
    } catch (error) {
      if (error instanceof oauth.WWWAuthenticateChallengeError) return error.response;
      throw error;
    }
  }

  private async handleFor(key: string, record: StoredAuthorization): Promise<oauth.DPoPHandle> {
    let handle = this.handles.get(key);
    if (!handle) {
      handle = dpopHandle(await dpopKeyPair(record));
      this.handles.set(key, handle);
    }
    return handle;
  }

  /** The flow's HTTP for a sign-in to `serverUrl`: every request through the guard (no private addresses, bounded answers). */
  private http(serverUrl: string, signals: Array<AbortSignal | undefined>, base: typeof fetch, timeout: AbortSignal): HttpOptions {
    const all = [...signals, this.options.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
    const fetch = this.options.fetch ?? base;
    return {
      fetch: guardedFetch({
        serverUrl,
        fetch,
        runtimeFetch: fetch === globalThis.fetch,
        resolve: this.options.resolveHost,
        allowPrivateNetwork: this.options.allowPrivateNetwork ?? false,
        timeoutMs: this.options.requestTimeoutMs ?? 30_000,
      }),
      signal: AbortSignal.any(all),
      allowInsecureRequests: this.options.allowInsecureRequests === true,
    };
  }

  /** Runs one sign-in or refresh within `signInTimeoutMs`; running out of time is an AuthorizationError, not a bare abort. */
  private async bounded<T>(serverUrl: string, signal: AbortSignal | undefined, base: typeof fetch, run: (http: HttpOptions) => Promise<T>): Promise<T> {
    const limit = this.options.signInTimeoutMs ?? 10 * 60_000;
    const timeout = AbortSignal.timeout(limit);
    try {
      return await run(this.http(serverUrl, [signal], base, timeout));
    } catch (error) {
      if (timeout.aborted && !(error instanceof AuthorizationError) && !signal?.aborted && !this.options.signal?.aborted) {
        throw new AuthorizationError(`Signing in did not finish within ${Math.round(limit / 1000)} s`, { step: 'authorization-response', error: 'timeout', cause: error });
      }
      throw error;
    }
  }

  /** An expired token with a refresh token: refresh quietly; on failure forget the tokens (the next 401 signs in). */
  private async refreshExpired(key: string, record: StoredAuthorization, base: typeof fetch, signal: AbortSignal | undefined): Promise<StoredTokens | undefined> {
    const as = record.authorizationServer as oauth.AuthorizationServer | undefined;
    if (record.tokens?.refreshToken && as) {
      try {
        return await this.bounded(key, signal, base, (http) => this.refresh(key, record, as, http));
      } catch (error) {
        if (!(error instanceof AuthorizationError)) throw error;
      }
    }
    delete record.tokens;
    await this.store.set(key, record);
    return undefined;
  }

  private renewOnce(
    key: string,
    url: string,
    challenge: ResourceChallenge,
    reason: RenewalReason,
    base: typeof fetch,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const renewal = this.bounded(url, signal, base, (http) => this.renew(key, url, challenge, reason, http)).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, renewal);
    return renewal;
  }

  /** Gets a new token for `url`: refresh when that can work, else the whole flow. */
  private async renew(key: string, url: string, challenge: ResourceChallenge, reason: RenewalReason, http: HttpOptions): Promise<void> {
    assertSecure(url, http, 'challenge'); // a token never travels over plain http to a remote host
    const record: StoredAuthorization = (await this.store.get(key)) ?? { clients: {} };
    // Another request renewed the token meanwhile: use that one.
    if (record.tokens && record.tokens.accessToken !== reason.refused?.accessToken) return;

    const resource = await discoverResourceMetadata(url, challenge.resourceMetadata, http);
    const as = await discoverAuthorizationServer(resource.authorizationServers[0]!, http);
    if (record.issuer !== undefined && record.issuer !== as.issuer) {
      // The server moved to another authorization server: nothing from the old one is used there.
      delete record.tokens;
      delete record.requestedScopes;
    }
    record.issuer = as.issuer;
    record.authorizationServer = as as Record<string, unknown>;
    record.resource = resource.resource;

    if (!reason.stepUp && reason.refused && record.tokens?.refreshToken) {
      try {
        await this.refresh(key, record, as, http);
        return;
      } catch (error) {
        if (!(error instanceof AuthorizationError)) throw error;
        delete record.tokens; // the refresh token is no good: sign in again
      }
    }

    const grant = this.grant;
    if (!grant) {
      throw new AuthorizationError(`${url} requires signing in, and this client has no way to (give the auth provider a signIn or a grant)`, {
        step: 'challenge',
        error: challenge.error,
        status: challenge.status,
      });
    }
    const redirectUri = await grant.redirectUri?.(record.clients[as.issuer]?.redirectUris);
    const registered = await resolveClientIdentity(
      as,
      record,
      {
        preRegistered: this.options.client,
        metadataDocumentUrl: this.options.clientMetadataUrl,
        metadata: this.options.clientMetadata ?? {},
        redirectUri,
        grantTypes: grant.grantTypes,
      },
      http,
    );
    await this.store.set(key, record); // a registration outlives a failed sign-in

    const scopes = selectScopes({
      configured: this.options.scopes,
      challenged: challenge.scopes,
      resourceScopes: resource.scopesSupported,
      serverScopes: as.scopes_supported,
      previous: reason.stepUp ? (record.requestedScopes ?? record.tokens?.scopes) : undefined,
      offlineAccess: grant.userFacing && this.options.offlineAccess !== false,
    });
    const context: GrantContext = {
      as,
      client: libraryClient(registered),
      clientAuth: await clientAuthentication(as, registered, this.options.client),
      resource: resource.resource,
      scopes,
      http,
      dpop: this.options.dpop !== false && advertisesDpop(as) ? await this.handleFor(key, record) : undefined,
    };
    const response = await grant.obtain(context);
    record.tokens = tokensFrom(response, scopes, this.now());
    if (scopes !== undefined) record.requestedScopes = scopes;
    else delete record.requestedScopes;
    await this.store.set(key, record);
  }

  /** The refresh token grant; a rotated refresh token replaces the old one, an absent one keeps it. */
  private async refresh(key: string, record: StoredAuthorization, as: oauth.AuthorizationServer, http: HttpOptions): Promise<StoredTokens> {
    const current = record.tokens!;
    const registered = record.clients[as.issuer];
    if (!registered) throw new AuthorizationError(`No client registration for ${as.issuer} to refresh with`, { step: 'refresh' });
    const client = libraryClient(registered);
    const clientAuth = await clientAuthentication(as, registered, this.options.client);
    const dpop = current.tokenType === 'dpop' ? await this.handleFor(key, record) : undefined;
    const options: oauth.TokenEndpointRequestOptions = {
      ...libraryOptions(http),
      additionalParameters: { resource: record.resource ?? key },
      ...(dpop ? { DPoP: dpop } : {}),
    };
    const response = await requestTokens(
      () => oauth.refreshTokenGrantRequest(as, client, clientAuth, current.refreshToken!, options),
      (answer) => oauth.processRefreshTokenResponse(as, client, answer),
      http,
      'refresh',
    );
    const tokens = tokensFrom(response, current.scopes ?? record.requestedScopes, this.now());
    tokens.refreshToken ??= current.refreshToken;
    record.tokens = tokens;
    await this.store.set(key, record);
    return tokens;
  }
}
