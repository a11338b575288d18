/**
 * The OAuth scopes a request needs, from the definition of what it calls:
 * a tool's `scopes` for `tools/call`, a prompt's for `prompts/get`, a
 * resource's (or its template's) for `resources/read` and for subscribing
 * to its updates (`resources/subscribe`, the `resourceSubscriptions` of
 * `subscriptions/listen`: every URI named, by exact resource or template
 * match), and the referenced prompt's or template's for
 * `completion/complete`. The HTTP transport asks
 * before the request runs, so a missing scope is a 403 challenge listing
 * them all, in either era; without `auth` (stdio) nothing is checked.
 */

import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { isObject } from '../protocol/guards.js';
import { LegacyMethod, Method } from '../protocol/methods.js';

/** Where the scopes are registered (the core's registries). */
export interface ScopeSources {
  tool(name: unknown): readonly string[] | undefined;
  prompt(name: unknown): readonly string[] | undefined;
  resource(uri: unknown): readonly string[] | undefined;
  template(uriTemplate: unknown): readonly string[] | undefined;
}

const NONE: readonly string[] = Object.freeze([]);

export function operationScopes(request: JsonRpcRequest, sources: ScopeSources): readonly string[] {
  const params = request.params;
  if (!params) return NONE;
  switch (request.method) {
    case Method.ToolsCall:
      return sources.tool(params.name) ?? NONE;
    case Method.PromptsGet:
      return sources.prompt(params.name) ?? NONE;
    case Method.ResourcesRead:
      return sources.resource(params.uri) ?? NONE;
    case LegacyMethod.Subscribe:
      return sources.resource(params.uri) ?? NONE;
    case Method.SubscriptionsListen: {
      const filter = params.notifications;
      const uris = isObject(filter) && Array.isArray(filter.resourceSubscriptions) ? filter.resourceSubscriptions : [];
      const scopes = new Set<string>();
      for (const uri of uris) for (const scope of sources.resource(uri) ?? NONE) scopes.add(scope);
      return scopes.size === 0 ? NONE : [...scopes];
    }
    case Method.Complete: {
      const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === 'ref/prompt') return sources.prompt(ref.name) ?? NONE;
      if (ref?.type === 'ref/resource') return sources.template(ref.uri) ?? NONE;
      return NONE;
    }
    default:
      return NONE;
  }
}
