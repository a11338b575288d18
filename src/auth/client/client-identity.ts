/**
 * The client's identity at an authorization server, in the spec's order of
 * preference: credentials registered beforehand, a Client ID Metadata
 * Document URL when the server accepts them, Dynamic Client Registration
 * (RFC 7591) when it offers it. Identities are per issuer: one registered
 * with another authorization server is never presented here.
 */

import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';
import { isLoopback, libraryOptions, stepError, type HttpOptions } from './http.js';
import type { RegisteredClient, StoredAuthorization } from './token-store.js';

/** Credentials the app got from the authorization server's operator. */
export interface PreRegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** For `private_key_jwt` (RFC 7523): a private key, as a CryptoKey or a PKCS#8 PEM. */
  privateKey?: CryptoKey | string;
  /** The key's JWS algorithm (default ES256 for a PEM). */
  signingAlgorithm?: string;
  /** Force a token endpoint auth method instead of choosing from the server's list. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
  /** The issuer these credentials belong to; using them with another authorization server is refused. */
  issuer?: string;
}

/** What the client says about itself when it registers (RFC 7591 §2, OIDC Registration). */
export interface ClientMetadata {
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  software_id?: string;
  software_version?: string;
  /** `native` for desktop apps and CLIs (loopback redirects), `web` for remote web apps; derived from the redirect URI when absent. */
  application_type?: 'native' | 'web';
  [field: string]: unknown;
}

export interface IdentityOptions {
  preRegistered: PreRegisteredClient | undefined;
  /** An https URL serving this client's metadata document (CIMD). */
  metadataDocumentUrl: string | undefined;
  metadata: ClientMetadata;
  /** The redirect URI the grant uses (authorization code), if any. */
  redirectUri: string | undefined;
  /** The grant types to register. */
  grantTypes: string[];
}

/** The `application_type` for a redirect URI: loopback or a private scheme means a native app. */
export function applicationTypeFor(redirectUri: string | undefined): 'native' | 'web' {
  if (redirectUri === undefined) return 'native';
  const url = new URL(redirectUri);
  return url.protocol === 'https:' && !isLoopback(url) ? 'web' : 'native';
}

function validMetadataDocumentUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && parsed.pathname.length > 1 && !parsed.hash;
  } catch {
    return false;
  }
}

/** The auth method to register with: public unless the server only takes confidential clients. */
function registrationAuthMethod(as: oauth.AuthorizationServer): string {
  const supported = as.token_endpoint_auth_methods_supported;
  if (!Array.isArray(supported) || supported.includes('none')) return 'none';
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'none';
}

/**
 * Finds or makes the identity to use with `as`, recording a new one in
 * `record.clients` (the caller saves the record).
 */
export async function resolveClientIdentity(
  as: oauth.AuthorizationServer,
  record: StoredAuthorization,
  options: IdentityOptions,
  http: HttpOptions,
): Promise<RegisteredClient> {
  const issuer = as.issuer;
  const pre = options.preRegistered;
  if (pre) {
    const boundTo = pre.issuer ?? Object.entries(record.clients).find(([, c]) => c.source === 'pre-registered')?.[0];
    if (boundTo !== undefined && boundTo !== issuer) {
      throw new AuthorizationError(
        `The pre-registered client ${pre.clientId} belongs to ${boundTo}, but this server now uses ${issuer}; get credentials for ${issuer}`,
        { step: 'client-registration', error: 'invalid_client' },
      );
    }
    const registered: RegisteredClient = { clientId: pre.clientId, source: 'pre-registered' };
    if (pre.clientSecret !== undefined) registered.clientSecret = pre.clientSecret;
    if (pre.tokenEndpointAuthMethod !== undefined) registered.tokenEndpointAuthMethod = pre.tokenEndpointAuthMethod;
    record.clients[issuer] = registered;
    return registered;
  }

  const known = record.clients[issuer];
  const redirectStillRegistered = options.redirectUri === undefined || known?.redirectUris === undefined || known.redirectUris.includes(options.redirectUri);
  if (known && known.source !== 'pre-registered' && redirectStillRegistered) return known;

  if (options.metadataDocumentUrl !== undefined && as.client_id_metadata_document_supported === true) {
    if (!validMetadataDocumentUrl(options.metadataDocumentUrl)) {
      throw new AuthorizationError(`The client metadata document URL ${options.metadataDocumentUrl} must be an https URL with a path`, {
        step: 'client-registration',
      });
    }
    const registered: RegisteredClient = { clientId: options.metadataDocumentUrl, tokenEndpointAuthMethod: 'none', source: 'metadata-document' };
    record.clients[issuer] = registered;
    return registered;
  }

  if (typeof as.registration_endpoint !== 'string') {
    throw new AuthorizationError(
      `No client identity for ${issuer}: it offers neither Client ID Metadata Documents nor dynamic registration; give a pre-registered client id`,
      { step: 'client-registration' },
    );
  }
  const metadata: Record<string, unknown> = {
    client_name: 'MCP client',
    ...options.metadata,
    application_type: options.metadata.application_type ?? applicationTypeFor(options.redirectUri),
    grant_types: options.grantTypes,
    response_types: options.redirectUri === undefined ? [] : ['code'],
    token_endpoint_auth_method: registrationAuthMethod(as),
  };
  if (options.redirectUri !== undefined) metadata.redirect_uris = [options.redirectUri];
  let answer: Record<string, unknown>;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(as, metadata as Partial<oauth.Client>, libraryOptions(http));
    answer = await readRegistration(response);
  } catch (error) {
    throw registrationError(issuer, error, http);
  }
  const registered: RegisteredClient = { clientId: answer.client_id as string, source: 'dynamic' };
  if (typeof answer.client_secret === 'string') registered.clientSecret = answer.client_secret;
  if (typeof answer.token_endpoint_auth_method === 'string') registered.tokenEndpointAuthMethod = answer.token_endpoint_auth_method;
  if (options.redirectUri !== undefined) {
    registered.redirectUris = Array.isArray(answer.redirect_uris) ? (answer.redirect_uris as string[]) : [options.redirectUri];
  }
  record.clients[issuer] = registered;
  return registered;
}

/**
 * The registration response (RFC 7591 §3.2.1). Read here rather than by the
 * library, which also insists on `client_secret_expires_at` next to a secret —
 * a field deployed servers often leave out, and one this client never needs.
 */
async function readRegistration(response: Response): Promise<Record<string, unknown>> {
  if (response.status !== 201 && response.status !== 200) {
    let body: Record<string, unknown> = {};
    try {
      body = (await response.json()) as Record<string, unknown>;
    } catch {
      // no OAuth error body
    }
    const error = typeof body.error === 'string' ? body.error : undefined;
    const description = typeof body.error_description === 'string' ? body.error_description : undefined;
    const redirect = error === 'invalid_redirect_uri' ? ' (it rejected the redirect URI)' : '';
    throw new AuthorizationError(`Registration was refused with HTTP ${response.status}${redirect}${error ? `: ${error}` : ''}${description ? ` — ${description}` : ''}`, {
      step: 'client-registration',
      error,
      description,
      status: response.status,
    });
  }
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null || typeof body.client_id !== 'string' || body.client_id === '') {
    throw new AuthorizationError('The registration response has no client_id', { step: 'client-registration' });
  }
  return body;
}

function registrationError(issuer: string, error: unknown, http: HttpOptions): AuthorizationError {
  http.signal?.throwIfAborted();
  if (error instanceof AuthorizationError) return error;
  const refused = stepError(error, 'client-registration');
  if (refused) return refused;
  if (error instanceof oauth.ResponseBodyError) {
    const redirect = error.error === 'invalid_redirect_uri' ? ' (it rejected the redirect URI)' : '';
    return new AuthorizationError(`Registering with ${issuer} failed${redirect}: ${error.error}${error.error_description ? ` — ${error.error_description}` : ''}`, {
      step: 'client-registration',
      error: error.error,
      description: error.error_description,
      status: error.status,
      cause: error,
    });
  }
  return new AuthorizationError(`Registering with ${issuer} failed: ${(error as Error).message}`, { step: 'client-registration', cause: error });
}
