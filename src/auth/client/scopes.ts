/**
 * Which scopes to ask for (spec, scope selection): the scopes the server's
 * challenge names, else everything its metadata lists, else none (omit
 * `scope`); on step-up, what was asked before plus what the server now
 * challenges for. `offline_access` is added when the authorization server
 * lists it and the grant can use refresh tokens.
 */

export interface ScopeInputs {
  /** Scopes the app insists on (e.g. `--scope`), used instead of the server's suggestion. */
  configured: string[] | undefined;
  /** From the 401/403 challenge: authoritative for this request. */
  challenged: string[] | undefined;
  /** The protected resource metadata's `scopes_supported`. */
  resourceScopes: string[] | undefined;
  /** The authorization server's `scopes_supported`. */
  serverScopes: string[] | undefined;
  /** What was requested last time, when stepping up. */
  previous: string[] | undefined;
  /** Whether to ask for `offline_access` (refresh tokens) when the server lists it. */
  offlineAccess: boolean;
}

export function union(...lists: Array<readonly string[] | undefined>): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const scope of list ?? []) all.add(scope);
  return [...all];
}

export function selectScopes(inputs: ScopeInputs): string[] | undefined {
  let scopes = inputs.previous !== undefined ? union(inputs.previous, inputs.challenged) : (inputs.configured ?? inputs.challenged ?? inputs.resourceScopes);
  if (scopes === undefined || scopes.length === 0) return undefined;
  if (inputs.offlineAccess && inputs.serverScopes?.includes('offline_access')) scopes = union(scopes, ['offline_access']);
  return scopes;
}
