/**
 * A grant is how the client gets tokens once it knows the authorization
 * server and its own identity there: the authorization code flow with the
 * user, or one of the non-interactive grants (client credentials, JWT
 * bearer, identity assertion). Each is a small object; the provider runs
 * whichever the app chose. This file also holds what every grant shares: the
 * token request with its DPoP nonce retry and its errors.
 */

import * as oauth from 'oauth4webapi';
import { AuthorizationError, type AuthorizationStep } from './errors.js';
import { libraryOptions, stepError, type HttpOptions } from './http.js';

export interface GrantContext {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  /** The RFC 8707 resource: the MCP server's identifier from its metadata. */
  resource: string;
  /** The scopes to ask for; undefined to omit `scope`. */
  scopes: string[] | undefined;
  http: HttpOptions;
  /** Set when the token is to be DPoP-bound (RFC 9449). */
  dpop: oauth.DPoPHandle | undefined;
}

export interface Grant {
  /** The grant type registered for this client (RFC 7591 `grant_types`). */
  readonly grantTypes: string[];
  /** True for grants that ask for refresh tokens and `offline_access`. */
  readonly userFacing: boolean;
  /** The redirect URI, for grants that have one (it is registered with the client; `registered`: those registered before). */
  redirectUri?(registered?: readonly string[]): Promise<string>;
  obtain(context: GrantContext): Promise<oauth.TokenEndpointResponse>;
}

/** The options for one token endpoint request. */
export function tokenRequestOptions(context: GrantContext, extra: Record<string, string> = {}): oauth.TokenEndpointRequestOptions {
  const additionalParameters: Record<string, string> = { resource: context.resource, ...extra };
  return { ...libraryOptions(context.http), additionalParameters, ...(context.dpop ? { DPoP: context.dpop } : {}) };
}

/**
 * Sends a token request and reads the answer; a `use_dpop_nonce` error is
 * retried once with the server's nonce (RFC 9449 §8: the handle has cached it).
 */
export async function requestTokens(
  send: () => Promise<Response>,
  read: (response: Response) => Promise<oauth.TokenEndpointResponse>,
  http: HttpOptions,
  step: AuthorizationStep = 'token',
): Promise<oauth.TokenEndpointResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read(await send());
    } catch (error) {
      if (attempt === 0 && oauth.isDPoPNonceError(error)) continue;
      throw tokenError(error, http, step);
    }
  }
}

export function tokenError(error: unknown, http: HttpOptions, step: AuthorizationStep): unknown {
  if (http.signal?.aborted) return http.signal.reason;
  if (error instanceof AuthorizationError) return error;
  const refused = stepError(error, step);
  if (refused) return refused;
  if (error instanceof oauth.ResponseBodyError) {
    const description = error.error_description ? ` — ${error.error_description}` : '';
    return new AuthorizationError(`The token endpoint refused the request: ${error.error}${description}`, {
      step,
      error: error.error,
      description: error.error_description,
      status: error.status,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new AuthorizationError(`The token request failed: ${message}`, { step, cause: error });
}

export function scopeParameter(scopes: string[] | undefined): Record<string, string> {
  return scopes && scopes.length > 0 ? { scope: scopes.join(' ') } : {};
}
