/**
 * The authorization code grant with PKCE (OAuth 2.1 §4.1): the user is sent
 * to the authorization server, the redirect back is checked — RFC 9207 `iss`
 * first, exactly as the spec words it, then `state` — and only then is the
 * code exchanged, with the verifier and the RFC 8707 `resource`.
 */

import * as oauth from 'oauth4webapi';
import { assertPkceSupported } from './authorization-server-metadata.js';
import { AuthorizationError } from './errors.js';
import { untilAborted } from '../../protocol/until-aborted.js';
import { requestTokens, scopeParameter, tokenRequestOptions, type Grant, type GrantContext } from './grant.js';

/** One authorization request, as the app sees it. */
export interface AuthorizationRequest {
  /** Where to send the user. */
  url: URL;
  /** Where the authorization server will send the user back. */
  redirectUri: string;
  /** Aborted when the flow is cancelled or times out: stop waiting then. */
  signal: AbortSignal | undefined;
}

/** How an app sends the user to sign in and gets the redirect back. */
export interface UserAuthorization {
  /**
   * The redirect URI to register and use (a loopback URL for CLIs and desktop
   * apps). `registered` lists those of an earlier registration, so a listener
   * can reuse one rather than force a new registration.
   */
  redirectUri(registered?: readonly string[]): string | Promise<string>;
  /** Shows `request.url` to the user; resolves with the URL the authorization server redirected to (or just its query). */
  authorize(request: AuthorizationRequest): Promise<URL | URLSearchParams>;
}

export function authorizationCode(user: UserAuthorization): Grant {
  const redirectUri = async (registered?: readonly string[]): Promise<string> => user.redirectUri(registered);
  return {
    grantTypes: ['authorization_code', 'refresh_token'],
    userFacing: true,
    redirectUri,
    async obtain(context: GrantContext) {
      const { as, client, http } = context;
      assertPkceSupported(as);
      if (typeof as.authorization_endpoint !== 'string') {
        throw new AuthorizationError(`${as.issuer} has no authorization_endpoint`, { step: 'authorization-server-metadata' });
      }
      const redirect = await redirectUri();
      // Recorded before the redirect: the verifier, the state, and the issuer the answer must come from.
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint);
      const query = url.searchParams;
      query.set('response_type', 'code');
      query.set('client_id', client.client_id);
      query.set('redirect_uri', redirect);
      query.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
      query.set('code_challenge_method', 'S256');
      query.set('state', state);
      query.set('resource', context.resource);
      for (const [name, value] of Object.entries(scopeParameter(context.scopes))) query.set(name, value);

      let answer: URL | URLSearchParams;
      try {
        answer = await untilAborted(user.authorize({ url, redirectUri: redirect, signal: http.signal }), http.signal);
      } catch (error) {
        http.signal?.throwIfAborted();
        if (error instanceof AuthorizationError) throw error;
        throw new AuthorizationError(`No answer from the authorization server: ${(error as Error).message}`, {
          step: 'authorization-response',
          cause: error,
        });
      }
      http.signal?.throwIfAborted();
      const callback = checkRedirect(as, client, answer, state);
      return requestTokens(
        () => oauth.authorizationCodeGrantRequest(as, client, context.clientAuth, callback, redirect, verifier, tokenRequestOptions(context)),
        (response) => oauth.processAuthorizationCodeResponse(as, client, response),
        http,
      );
    },
  };
}

/**
 * RFC 9207 and `state`, in the library's order: a missing `iss` where the
 * server promised one, or any `iss` other than the recorded issuer (simple
 * string comparison), rejects the answer before its code or its error fields
 * are looked at.
 */
function checkRedirect(as: oauth.AuthorizationServer, client: oauth.Client, answer: URL | URLSearchParams, state: string): URLSearchParams {
  try {
    return oauth.validateAuthResponse(as, client, answer, state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      const description = error.error_description ? ` — ${error.error_description}` : '';
      return fail(`The authorization server answered ${error.error}${description}`, 'authorization', error.error, error.error_description, error);
    }
    const params = answer instanceof URL ? answer.searchParams : answer;
    const iss = params.get('iss');
    if (iss === null && as.authorization_response_iss_parameter_supported === true) {
      return fail(`The redirect from ${as.issuer} lacks the "iss" it promised (RFC 9207); the answer is not used`, 'authorization-response', 'invalid_issuer');
    }
    if (iss !== null && iss !== as.issuer) {
      return fail(`The redirect names issuer ${JSON.stringify(iss)}, not ${as.issuer} (RFC 9207); the answer is not used`, 'authorization-response', 'invalid_issuer');
    }
    return fail(`The redirect back could not be trusted: ${(error as Error).message}`, 'authorization-response', 'invalid_state', undefined, error);
  }
}

function fail(message: string, step: 'authorization' | 'authorization-response', error: string, description?: string, cause?: unknown): never {
  throw new AuthorizationError(message, { step, error, description, cause });
}
