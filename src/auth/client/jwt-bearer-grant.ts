/**
 * The JWT bearer grant (RFC 7523 §2.1) for workload identity federation (the
 * MCP extension io.modelcontextprotocol/auth/wif): a workload presents a JWT
 * its platform issued (a Kubernetes service account token, a cloud identity
 * token…) and gets an access token for it. A refused assertion is reported,
 * never retried or swapped for another grant.
 */

import * as oauth from 'oauth4webapi';
import { requestTokens, scopeParameter, type Grant, type GrantContext } from './grant.js';
import { libraryOptions } from './http.js';

export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface JwtBearerOptions {
  /** The assertion, or where to get a fresh one (read on every token request: platform tokens rotate). */
  assertion: string | (() => string | Promise<string>);
}

export function jwtBearer(options: JwtBearerOptions): Grant {
  return {
    grantTypes: [JWT_BEARER_GRANT_TYPE],
    userFacing: false,
    async obtain(context: GrantContext) {
      const { as, client, http } = context;
      const assertion = typeof options.assertion === 'string' ? options.assertion : await options.assertion();
      const parameters = { assertion, resource: context.resource, ...scopeParameter(context.scopes) };
      const requestOptions = { ...libraryOptions(http), ...(context.dpop ? { DPoP: context.dpop } : {}) };
      return requestTokens(
        () => oauth.genericTokenEndpointRequest(as, client, context.clientAuth, JWT_BEARER_GRANT_TYPE, parameters, requestOptions),
        (response) => oauth.processGenericTokenEndpointResponse(as, client, response),
        http,
      );
    },
  };
}
