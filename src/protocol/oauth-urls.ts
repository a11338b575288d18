/**
 * The OAuth URLs both sides of MCP authorization compute the same way: a
 * server's canonical resource URI (RFC 8707 §2 as the MCP spec profiles it),
 * where its Protected Resource Metadata lives (RFC 9728 §3, plus the root
 * form MCP adds), and where an issuer's metadata lives (RFC 8414 §3.1 and
 * OpenID Connect Discovery, in the spec's order). The client looks there; the
 * server serves there and names the URL in its challenges.
 */

/** The well-known suffix of Protected Resource Metadata (RFC 9728 §3). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The canonical URI of an MCP server (RFC 8707 §2, spec: no fragment, no
 * query, lower-case scheme and host, no trailing slash on a path).
 */
export function canonicalResource(serverUrl: string | URL): string {
  const url = new URL(serverUrl);
  url.hash = '';
  url.search = '';
  const text = url.href;
  return url.pathname === '/' ? text.slice(0, -1) : text.replace(/\/$/, '');
}

/**
 * The Protected Resource Metadata URLs of a server, most specific first: the
 * path-based one (RFC 9728 §3.1) when the server has a path, then the root one.
 */
export function resourceMetadataUrls(serverUrl: string | URL): string[] {
  const url = new URL(serverUrl);
  const path = url.pathname.replace(/\/$/, '');
  const root = `${url.origin}${RESOURCE_METADATA_PATH}`;
  return path && path !== '/' ? [`${root}${path}`, root] : [root];
}

/** The authorization server metadata URLs to try for an issuer, in the spec's order. */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  if (path === '' || path === '/') {
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}
