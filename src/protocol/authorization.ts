/**
 * The seam between the HTTP transport and the resource-server side of
 * authorization (auth/server implements it): the caller a verified access
 * token names, and the one question the transport asks of every HTTP request
 * — GET and DELETE as well as POST — may it go on, and as whom? The transport
 * knows nothing of tokens, keys or scopes beyond this.
 */

/** The caller of a request, as its verified access token says (handlers see it as `ctx.auth`). */
export interface AuthInfo {
  /** `sub`: whom the token is about (a user; for the client credentials grant, the client itself, also when `sub` is absent). */
  readonly subject: string | undefined;
  /** `client_id` (or `azp`): the application holding the token. */
  readonly clientId: string | undefined;
  /** `iss`: the authorization server that issued it. */
  readonly issuer: string | undefined;
  /** The scopes the token grants, as it lists them. */
  readonly scopes: readonly string[];
  /** When the token expires, in seconds since the epoch. */
  readonly expiresAt: number | undefined;
  /** The thumbprint of the key a DPoP-bound token is bound to (`cnf.jkt`, RFC 9449), checked against this request's proof. */
  readonly keyThumbprint: string | undefined;
  /** Every claim as verified: the JWT's payload, or the introspection response. The token itself is never kept. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** One HTTP request to a protected resource, as authorization needs to see it. */
export interface ProtectedRequest {
  /** The HTTP method (a DPoP proof names it). */
  readonly method: string;
  /** Request header lookup, lower-case names. */
  header(name: string): string | undefined;
  /** The request target as received: path and query (a token in the query is refused). */
  readonly target: string;
  /** The scopes this request's operation needs (its tool's, prompt's or resource's); empty for most. */
  readonly scopes: readonly string[];
}

/** The request may go on, as this caller (both undefined when anonymous access is allowed and no token came). */
export interface Authorized {
  readonly ok: true;
  readonly auth: AuthInfo | undefined;
  /** Who is bound into sealed state, tasks and 2025 sessions: issuer, subject and client together. */
  readonly principal: string | undefined;
}

/** The request is refused before it reaches the server. */
export interface AuthorizationRefusal {
  readonly ok: false;
  /** 400 (malformed), 401 (no token, or an invalid one), 403 (insufficient scope), 503 (the token cannot be checked now). */
  readonly status: number;
  /** The `WWW-Authenticate` challenge, and whatever else the refusal carries. */
  readonly headers: Readonly<Record<string, string>>;
  /** One line for the JSON-RPC error in the body. */
  readonly message: string;
}

/** Authorization for one endpoint, whose URL is settled. */
export interface EndpointAuthorization {
  /** The canonical URL of the protected resource: the audience its tokens must name (RFC 8707). */
  readonly resource: string;
  authorize(request: ProtectedRequest): Promise<Authorized | AuthorizationRefusal>;
  /** The Protected Resource Metadata document when `path` is one of its well-known paths (RFC 9728), else undefined. */
  metadataAt(path: string): Readonly<Record<string, unknown>> | undefined;
}

/** What the HTTP transports take as their `auth` option. */
export interface HttpAuthorization {
  /**
   * Settles the resource for an endpoint: the one configured, else
   * `endpoint` (the URL `serveHttp` listens on). Called once per transport;
   * throws a TypeError when there is neither.
   */
  forEndpoint(endpoint: string | undefined): EndpointAuthorization;
}

/** A scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Checks scope names given in code (a definition's `scopes`, the resource server's options); throws a TypeError naming `owner`. */
export function checkScopeNames(scopes: readonly string[], owner: string): readonly string[] {
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) {
      throw new TypeError(`${owner}: ${JSON.stringify(scope)} is not an OAuth scope (printable ASCII, no spaces, quotes or backslashes)`);
    }
  }
  return scopes;
}
