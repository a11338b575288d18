/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for an MCP server: where
 * to look (the challenge's `resource_metadata`, else the path-based
 * well-known URI, else the root one) and whether the document is really
 * about this server (its `resource` must be this server or a parent of it on
 * the same origin).
 */

import { AuthorizationError } from './errors.js';
import type { HttpOptions } from './http.js';
import { getJson } from './http.js';
import { canonicalResource, resourceMetadataUrls } from '../../protocol/oauth-urls.js';

// Shared with the server side, which serves the documents these find.
export { canonicalResource, resourceMetadataUrls };

export interface ResourceMetadata {
  /** The resource identifier the document names: the `resource` sent to authorization servers (RFC 8707). */
  resource: string;
  authorizationServers: string[];
  scopesSupported: string[] | undefined;
  /** Where the document came from. */
  url: string;
}

/** True when `resource` names this server: the same origin, and a path that is the server's path or a parent of it. */
export function resourceCovers(resource: string, serverUrl: string | URL): boolean {
  let named: URL;
  try {
    named = new URL(resource);
  } catch {
    return false;
  }
  const server = new URL(serverUrl);
  if (named.origin !== server.origin || named.hash || named.search) return false;
  const parent = named.pathname.replace(/\/$/, '');
  const path = server.pathname.replace(/\/$/, '');
  return parent === '' || path === parent || path.startsWith(`${parent}/`);
}

function parse(json: unknown, url: string, serverUrl: string): ResourceMetadata {
  const doc = json as Record<string, unknown>;
  if (typeof doc !== 'object' || doc === null || typeof doc.resource !== 'string') {
    throw new AuthorizationError(`The protected resource metadata at ${url} has no "resource"`, { step: 'resource-metadata' });
  }
  if (!resourceCovers(doc.resource, serverUrl)) {
    throw new AuthorizationError(
      `The protected resource metadata at ${url} is for ${doc.resource}, not ${canonicalResource(serverUrl)}; refusing to sign in`,
      { step: 'resource-metadata', error: 'invalid_resource' },
    );
  }
  const servers = Array.isArray(doc.authorization_servers) ? doc.authorization_servers.filter((s): s is string => typeof s === 'string') : [];
  if (servers.length === 0) {
    throw new AuthorizationError(`The protected resource metadata at ${url} lists no authorization_servers`, { step: 'resource-metadata' });
  }
  const scopes = Array.isArray(doc.scopes_supported) ? doc.scopes_supported.filter((s): s is string => typeof s === 'string') : undefined;
  return { resource: doc.resource, authorizationServers: servers, scopesSupported: scopes, url };
}

/**
 * Finds and checks the server's metadata. With a `resource_metadata` URL from
 * the challenge only that URL is used; otherwise the well-known URIs are tried
 * in order, moving on when one is missing.
 */
export async function discoverResourceMetadata(serverUrl: string, hint: string | undefined, http: HttpOptions): Promise<ResourceMetadata> {
  const candidates = hint ? [new URL(hint, serverUrl).href] : resourceMetadataUrls(serverUrl);
  const misses: string[] = [];
  for (const url of candidates) {
    const found = await getJson(url, http, 'resource-metadata');
    if (found.status === 200) return parse(found.json, url, serverUrl);
    misses.push(`${url} (HTTP ${found.status})`);
  }
  throw new AuthorizationError(`No protected resource metadata for ${serverUrl}: tried ${misses.join(', ')}`, { step: 'resource-metadata' });
}
