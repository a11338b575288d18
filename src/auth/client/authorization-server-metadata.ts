/**
 * Authorization server metadata for an issuer: RFC 8414 and OpenID Connect
 * Discovery, every well-known location in the order the MCP spec gives, and
 * the document accepted only when its `issuer` is exactly the issuer the URL
 * was built from (RFC 8414 §3.3) — otherwise a server could hand out another
 * server's endpoints.
 */

import type * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';
import { assertSecure, getJson, type HttpOptions } from './http.js';
import { authorizationServerMetadataUrls } from '../../protocol/oauth-urls.js';

// Shared with the server side, which finds its issuers' keys the same way.
export { authorizationServerMetadataUrls };

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const;

/** Fetches and checks the metadata of `issuer`; throws an AuthorizationError when none can be used. */
export async function discoverAuthorizationServer(issuer: string, http: HttpOptions): Promise<oauth.AuthorizationServer> {
  assertSecure(issuer, http, 'authorization-server-metadata');
  const misses: string[] = [];
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const found = await getJson(url, http, 'authorization-server-metadata');
    if (found.status !== 200) {
      misses.push(`${url} (HTTP ${found.status})`);
      continue;
    }
    const doc = found.json as Record<string, unknown> | null;
    if (typeof doc !== 'object' || doc === null) {
      misses.push(`${url} (not a JSON object)`);
      continue;
    }
    // Simple string comparison, no normalisation (RFC 8414 §3.3).
    if (doc.issuer !== issuer) {
      throw new AuthorizationError(
        `The authorization server metadata at ${url} names issuer ${JSON.stringify(doc.issuer)}, not ${issuer}; refusing to use it`,
        { step: 'authorization-server-metadata', error: 'invalid_issuer' },
      );
    }
    for (const name of ENDPOINTS) {
      if (doc[name] !== undefined) {
        if (typeof doc[name] !== 'string') throw new AuthorizationError(`${url}: "${name}" is not a URL`, { step: 'authorization-server-metadata' });
        assertSecure(doc[name], http, 'authorization-server-metadata');
      }
    }
    return doc as oauth.AuthorizationServer;
  }
  throw new AuthorizationError(`No authorization server metadata for ${issuer}: tried ${misses.join(', ')}`, { step: 'authorization-server-metadata' });
}

/** PKCE with S256 is required; an authorization server that does not say it supports it is refused (spec). */
export function assertPkceSupported(as: oauth.AuthorizationServer): void {
  const methods = as.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes('S256')) {
    throw new AuthorizationError(
      `The authorization server ${as.issuer} does not advertise PKCE S256 (code_challenge_methods_supported), so signing in is refused`,
      { step: 'authorization-server-metadata', error: 'pkce_unsupported' },
    );
  }
}
