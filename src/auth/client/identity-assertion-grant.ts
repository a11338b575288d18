/**
 * Enterprise-managed authorization (the MCP extension
 * io.modelcontextprotocol/enterprise-managed-authorization, the IETF
 * Identity Assertion Authorization Grant): the user's enterprise identity
 * provider turns their ID token into an ID-JAG (RFC 8693 token exchange),
 * and the MCP server's authorization server takes the ID-JAG as a JWT bearer
 * assertion (RFC 7523). No browser: the enterprise already said yes.
 */

import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';
import { requestTokens, scopeParameter, type Grant, type GrantContext } from './grant.js';
import { assertSecure, libraryOptions } from './http.js';
import { JWT_BEARER_GRANT_TYPE } from './jwt-bearer-grant.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

export interface IdentityAssertionOptions {
  /** The identity provider's token endpoint (where the ID token is exchanged). */
  idpTokenEndpoint: string;
  /** The identity provider's issuer (default: the token endpoint's origin). */
  idpIssuer?: string;
  /** This client's id at the identity provider. */
  idpClientId: string;
  /** Its secret there, if it is a confidential client (sent with client_secret_basic). */
  idpClientSecret?: string;
  /** The user's ID token from the identity provider, or where to get a fresh one. */
  idToken: string | (() => string | Promise<string>);
}

export function identityAssertion(options: IdentityAssertionOptions): Grant {
  return {
    grantTypes: [JWT_BEARER_GRANT_TYPE],
    userFacing: false,
    async obtain(context: GrantContext) {
      const { as, client, http } = context;
      const endpoint = assertSecure(options.idpTokenEndpoint, http, 'token');
      const idp: oauth.AuthorizationServer = { issuer: options.idpIssuer ?? endpoint.origin, token_endpoint: endpoint.href };
      const idpClient: oauth.Client = { client_id: options.idpClientId };
      const idpAuth = options.idpClientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(options.idpClientSecret);
      const subjectToken = typeof options.idToken === 'string' ? options.idToken : await options.idToken();
      // 1. At the identity provider: ID token → ID-JAG for this authorization server and resource.
      const exchanged = await requestTokens(
        () =>
          oauth.genericTokenEndpointRequest(
            idp,
            idpClient,
            idpAuth,
            TOKEN_EXCHANGE,
            {
              requested_token_type: ID_JAG,
              audience: as.issuer,
              resource: context.resource,
              subject_token: subjectToken,
              subject_token_type: ID_TOKEN,
              ...scopeParameter(context.scopes),
            },
            libraryOptions(http),
          ),
        // The ID-JAG is no access token: its token_type is N_A (RFC 8693 §2.2.1).
        (response) => oauth.processGenericTokenEndpointResponse(idp, idpClient, response, { recognizedTokenTypes: { n_a: () => undefined } }),
        http,
      );
      const issuedType = (exchanged as { issued_token_type?: unknown }).issued_token_type;
      if (issuedType !== undefined && issuedType !== ID_JAG) {
        throw new AuthorizationError(`The identity provider issued ${String(issuedType)}, not an ID-JAG`, { step: 'token' });
      }
      // 2. At the MCP server's authorization server: ID-JAG → access token.
      const parameters = { assertion: exchanged.access_token, resource: context.resource, ...scopeParameter(context.scopes) };
      const requestOptions = { ...libraryOptions(http), ...(context.dpop ? { DPoP: context.dpop } : {}) };
      return requestTokens(
        () => oauth.genericTokenEndpointRequest(as, client, context.clientAuth, JWT_BEARER_GRANT_TYPE, parameters, requestOptions),
        (response) => oauth.processGenericTokenEndpointResponse(as, client, response),
        http,
      );
    },
  };
}
