/**
 * The Protected Resource Metadata document (RFC 9728 §2) of an MCP endpoint
 * and where it is served: the path-based well-known URL for the endpoint's
 * path (RFC 9728 §3.1) and the root one (the MCP spec's second location).
 * Challenges name the path-based one, the most specific.
 */

import { RESOURCE_METADATA_PATH, resourceMetadataUrls } from '../../protocol/oauth-urls.js';

export interface ResourceMetadataFields {
  resource: string;
  authorizationServers: readonly string[];
  scopesSupported: readonly string[] | undefined;
  resourceName: string | undefined;
  resourceDocumentation: string | undefined;
  dpopAlgorithms: readonly string[];
  dpopRequired: boolean;
}

export function resourceMetadataDocument(fields: ResourceMetadataFields): Readonly<Record<string, unknown>> {
  const document: Record<string, unknown> = {
    resource: fields.resource,
    authorization_servers: [...fields.authorizationServers],
    // Tokens in the Authorization header only: never in a form body or the query (MCP).
    bearer_methods_supported: ['header'],
  };
  if (fields.scopesSupported !== undefined) document.scopes_supported = [...fields.scopesSupported];
  if (fields.resourceName !== undefined) document.resource_name = fields.resourceName;
  if (fields.resourceDocumentation !== undefined) document.resource_documentation = fields.resourceDocumentation;
  document.dpop_signing_alg_values_supported = [...fields.dpopAlgorithms];
  if (fields.dpopRequired) document.dpop_bound_access_tokens_required = true;
  return Object.freeze(document);
}

/** The paths (on the resource's origin) the document is served at: path-based first, then the root. */
export function resourceMetadataPaths(resource: string): readonly string[] {
  return resourceMetadataUrls(resource).map((url) => new URL(url).pathname);
}

/** The URL challenges name (RFC 9728 §5.1): the path-based one. */
export function resourceMetadataUrl(resource: string): string {
  return resourceMetadataUrls(resource)[0]!;
}

export { RESOURCE_METADATA_PATH };
