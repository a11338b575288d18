/**
 * What the client remembers about signing in to one MCP server, and where it
 * keeps it. Everything is plain JSON so a store can be a file, a keychain
 * entry or a database row. Client registrations are kept per authorization
 * server `issuer` (spec: credentials are never reused with another
 * authorization server); tokens belong to the issuer that issued them.
 */

/** A client identity at one authorization server. */
export interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** How the client authenticates at the token endpoint (RFC 7591 names). */
  tokenEndpointAuthMethod?: string;
  redirectUris?: string[];
  /** Where the identity came from. */
  source: 'pre-registered' | 'metadata-document' | 'dynamic';
}

export interface StoredTokens {
  accessToken: string;
  /** `bearer` or `dpop` (lower case, as RFC 6749 token types compare). */
  tokenType: string;
  refreshToken?: string;
  /** When the access token expires, in ms since the epoch. */
  expiresAt?: number;
  /** The scopes granted (the token response's `scope`, else those requested). */
  scopes?: string[];
}

export interface StoredAuthorization {
  /** The issuer of the authorization server the tokens come from. */
  issuer?: string;
  /** That server's metadata, so a later run can refresh without discovery. */
  authorizationServer?: Record<string, unknown>;
  /** The protected resource the tokens are for (RFC 8707 `resource`). */
  resource?: string;
  /** Client registrations, by authorization server issuer. */
  clients: Record<string, RegisteredClient>;
  tokens?: StoredTokens;
  /** The scopes last requested (step-up adds to them). */
  requestedScopes?: string[];
  /** The DPoP key pair tokens are bound to (RFC 9449), as JWKs. */
  dpopKey?: { publicKey: JsonWebKey; privateKey: JsonWebKey };
}

/** Where sign-ins are kept, keyed by the MCP server's canonical URL. */
export interface TokenStore {
  get(server: string): Promise<StoredAuthorization | undefined>;
  set(server: string, value: StoredAuthorization): Promise<void>;
  delete(server: string): Promise<void>;
}

/** The default: kept for the life of the process, nowhere else. */
export class MemoryTokenStore implements TokenStore {
  private readonly entries = new Map<string, StoredAuthorization>();

  async get(server: string): Promise<StoredAuthorization | undefined> {
    const entry = this.entries.get(server);
    return entry === undefined ? undefined : structuredClone(entry);
  }

  async set(server: string, value: StoredAuthorization): Promise<void> {
    this.entries.set(server, structuredClone(value));
  }

  async delete(server: string): Promise<void> {
    this.entries.delete(server);
  }
}
