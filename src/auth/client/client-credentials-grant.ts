/**
 * The client credentials grant (OAuth 2.1 §4.2; the MCP extension
 * io.modelcontextprotocol/oauth-client-credentials): a script or service
 * signs in as itself with a pre-registered secret or a private key
 * (`private_key_jwt`), no user involved.
 */

import * as oauth from 'oauth4webapi';
import { requestTokens, scopeParameter, type Grant, type GrantContext } from './grant.js';
import { libraryOptions } from './http.js';

export function clientCredentials(): Grant {
  return {
    grantTypes: ['client_credentials'],
    userFacing: false,
    obtain(context: GrantContext) {
      const { as, client, http } = context;
      const parameters = { resource: context.resource, ...scopeParameter(context.scopes) };
      const options = { ...libraryOptions(http), ...(context.dpop ? { DPoP: context.dpop } : {}) };
      return requestTokens(
        () => oauth.clientCredentialsGrantRequest(as, client, context.clientAuth, parameters, options),
        (response) => oauth.processClientCredentialsResponse(as, client, response),
        http,
      );
    },
  };
}
