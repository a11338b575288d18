/**
 * The Protected Resource Metadata route (RFC 9728 §3) beside the MCP
 * endpoint, on the same origin: the path-based and the root well-known URL.
 * A public document — no credentials, no effects — so the Origin check does
 * not apply to it; browsers read it cross-origin, so it carries whatever
 * CORS headers the transport gives it.
 */

import type { EndpointAuthorization } from '../../protocol/authorization.js';

const ALLOW = 'GET, HEAD, OPTIONS';

/** The answer when `path` is a metadata URL of this endpoint, else undefined (the request goes on). */
export function metadataResponse(
  authorization: EndpointAuthorization,
  method: string,
  path: string,
  crossOrigin: Readonly<Record<string, string>>,
): [number, Record<string, string>, string] | undefined {
  const document = authorization.metadataAt(path);
  if (!document) return undefined;
  if (method === 'OPTIONS') return [204, { ...crossOrigin, allow: ALLOW }, ''];
  if (method !== 'GET' && method !== 'HEAD') {
    return [405, { ...crossOrigin, allow: ALLOW, 'content-type': 'application/json' }, JSON.stringify({ error: 'method_not_allowed', error_description: `Use GET for ${path}` })];
  }
  return [200, { ...crossOrigin, 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }, JSON.stringify(document)];
}
