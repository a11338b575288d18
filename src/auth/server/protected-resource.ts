/**
 * An MCP endpoint as an OAuth 2.1 protected resource: `protectedResource()`
 * is what the HTTP transports take as `auth`. It is configured once (whose
 * tokens to trust, how to verify them, what every request needs) and settled
 * per endpoint (the resource URL: the one given, else the one `serveHttp`
 * listens on), then asked about every request (request-guard.ts).
 */

import { checkScopeNames, type EndpointAuthorization, type HttpAuthorization } from '../../protocol/authorization.js';
import { canonicalResource } from '../../protocol/oauth-urls.js';
import { MemoryRedemptionStore, type RedemptionStore } from '../../stores/redemption-store.js';
import { ASYMMETRIC_ALGORITHMS, jwtAccessTokens } from './jwt-verifier.js';
import { RequestGuard, type AuthLogger } from './request-guard.js';
import { resourceMetadataDocument, resourceMetadataPaths, resourceMetadataUrl } from './resource-metadata.js';
import { ScopeHierarchy } from './scopes.js';
import type { TokenVerifier } from './token-verifier.js';

export type { AuthLogger };

export interface ProtectedResourceOptions {
  /** The authorization server(s) whose tokens are accepted, by issuer identifier: the metadata's `authorization_servers`. */
  issuer: string | readonly string[];
  /**
   * The canonical URL of this MCP endpoint, e.g. `https://mcp.example.com/mcp`:
   * the audience tokens must name (RFC 8707). Default: the URL `serveHttp`
   * listens on; `createNodeHandler` and `createFetchHandler` need it given.
   */
  resource?: string;
  /** How tokens are checked (default: `jwtAccessTokens()`; or `tokenIntrospection(…)`, or your own). */
  verifier?: TokenVerifier;
  /** Scopes every request needs, whatever it calls; a tool's, prompt's or resource's own `scopes` come on top. */
  scopes?: readonly string[];
  /** `scopes_supported` in the metadata: what a client asks for to start (default: `scopes`, when given). */
  scopesSupported?: readonly string[];
  /** The scope hierarchy: a broad scope → the narrower scopes it grants as well (e.g. `{ admin: ['read', 'write'] }`). */
  impliedScopes?: Readonly<Record<string, readonly string[]>>;
  /** Other `aud` values that name this resource (an authorization server that calls it `api://mcp`), compared exactly as written. */
  audiences?: readonly string[];
  /** Let requests without a token in, anonymously, unless what they call needs scopes (default false: 401). */
  allowAnonymous?: boolean;
  /** DPoP (RFC 9449): `optional` (default; a bound token still needs its proof) or `required` (bound tokens only). */
  dpop?: 'optional' | 'required';
  /** Algorithms DPoP proofs may use (default: the asymmetric ones). */
  dpopAlgorithms?: readonly string[];
  /** How old a DPoP proof may be, in seconds (default 60). */
  dpopProofMaxAgeSeconds?: number;
  /** Where DPoP proof ids are remembered against replay; share one across instances (default: this process's memory). */
  dpopReplay?: RedemptionStore;
  /** Clock skew tolerated on `exp`, `nbf`, `iat` and proofs' `iat`, in seconds (default 10). */
  clockToleranceSeconds?: number;
  /** `resource_name` in the metadata. */
  resourceName?: string;
  /** `resource_documentation` in the metadata. */
  resourceDocumentation?: string;
  logger?: AuthLogger;
  /** Milliseconds since the epoch; injectable for tests. */
  clock?: () => number;
}

const stderrLogger: AuthLogger = { warn: (message, detail) => console.error(`[tessera] ${message}`, ...(detail === undefined ? [] : [detail])) };

const UNSPECIFIED_HOSTS = new Set(['0.0.0.0', '[::]']);

class ProtectedResource implements HttpAuthorization {
  private readonly issuers: readonly string[];
  private readonly scopes: readonly string[];
  private readonly scopesSupported: readonly string[] | undefined;
  private readonly hierarchy: ScopeHierarchy;
  private readonly verifier: TokenVerifier;
  private readonly dpopAlgorithms: readonly string[];
  private readonly dpopReplay: RedemptionStore;
  private readonly clock: () => number;

  constructor(private readonly options: ProtectedResourceOptions) {
    this.issuers = typeof options.issuer === 'string' ? [options.issuer] : [...(options.issuer ?? [])];
    if (this.issuers.length === 0) throw new TypeError('protectedResource: name at least one issuer (the metadata must list an authorization server)');
    for (const issuer of this.issuers) {
      if (!URL.canParse(issuer) || !/^https?:$/.test(new URL(issuer).protocol)) throw new TypeError(`protectedResource: issuer ${JSON.stringify(issuer)} is not an http(s) URL`);
    }
    this.scopes = checkScopeNames(options.scopes ?? [], 'protectedResource scopes');
    this.scopesSupported = options.scopesSupported ? checkScopeNames(options.scopesSupported, 'protectedResource scopesSupported') : options.scopes;
    // Refresh tokens are no resource requirement (MCP: SHOULD NOT appear in challenges or scopes_supported).
    for (const scope of [...this.scopes, ...(this.scopesSupported ?? [])]) {
      if (scope === 'offline_access') throw new TypeError('protectedResource: offline_access is not a scope of a resource; leave it to clients');
    }
    this.hierarchy = new ScopeHierarchy(options.impliedScopes);
    this.verifier = options.verifier ?? jwtAccessTokens();
    this.dpopAlgorithms = options.dpopAlgorithms ?? ASYMMETRIC_ALGORITHMS;
    this.dpopReplay = options.dpopReplay ?? new MemoryRedemptionStore(options.clock);
    this.clock = options.clock ?? (() => Date.now());
  }

  forEndpoint(endpoint: string | undefined): EndpointAuthorization {
    const given = this.options.resource ?? endpoint;
    if (given === undefined) {
      throw new TypeError('auth: set `resource` to the public URL of this MCP endpoint (e.g. https://mcp.example.com/mcp); only serveHttp knows its own');
    }
    let resource: string;
    try {
      resource = canonicalResource(given);
    } catch {
      throw new TypeError(`auth: resource ${JSON.stringify(given)} is not a URL`);
    }
    if (UNSPECIFIED_HOSTS.has(new URL(resource).hostname)) {
      throw new TypeError(`auth: ${resource} is no URL a client can reach; set \`resource\` to the public URL of this MCP endpoint`);
    }
    const dpopRequired = this.options.dpop === 'required';
    return new RequestGuard({
      resource,
      metadataPaths: resourceMetadataPaths(resource),
      metadata: resourceMetadataDocument({
        resource,
        authorizationServers: this.issuers,
        scopesSupported: this.scopesSupported,
        resourceName: this.options.resourceName,
        resourceDocumentation: this.options.resourceDocumentation,
        dpopAlgorithms: this.dpopAlgorithms,
        dpopRequired,
      }),
      challenges: { resourceMetadataUrl: resourceMetadataUrl(resource), dpopAlgorithms: this.dpopAlgorithms },
      verifier: this.verifier,
      context: {
        resource,
        audiences: [resource, ...(this.options.audiences ?? [])],
        issuers: this.issuers,
        clockToleranceSeconds: this.options.clockToleranceSeconds ?? 10,
        now: this.clock,
      },
      // Exact strings (RFC 7519 §4.1.3): the canonical resource the metadata names, and the aliases as configured.
      acceptedAudiences: new Set([resource, ...(this.options.audiences ?? [])]),
      scopes: this.scopes,
      hierarchy: this.hierarchy,
      allowAnonymous: this.options.allowAnonymous === true,
      dpopRequired,
      proofRules: {
        algorithms: this.dpopAlgorithms,
        maxAgeSeconds: this.options.dpopProofMaxAgeSeconds ?? 60,
        clockToleranceSeconds: this.options.clockToleranceSeconds ?? 10,
        replay: this.dpopReplay,
      },
      logger: this.options.logger ?? stderrLogger,
    });
  }
}

/** This endpoint as a protected resource: pass it as `auth` to `serveHttp`, `createNodeHandler` or `createFetchHandler`. */
export function protectedResource(options: ProtectedResourceOptions): HttpAuthorization {
  return new ProtectedResource(options);
}
