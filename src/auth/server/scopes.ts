/**
 * Scopes as the resource server weighs them: what a token grants (`scope`,
 * RFC 9068 §2.2.3, or `scp` as some servers write it), widened by the
 * server's hierarchy (a broad scope implies narrower ones, which the MCP spec
 * says servers must honour), against what an operation needs.
 */

import { checkScopeNames } from '../../protocol/authorization.js';

/** The scopes a token's claims grant. */
export function grantedScopes(claims: Readonly<Record<string, unknown>>): string[] {
  const value = claims.scope ?? claims.scp;
  if (typeof value === 'string') return value.split(' ').filter((s) => s !== '');
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string' && s !== '');
  return [];
}

export class ScopeHierarchy {
  private readonly implied: ReadonlyMap<string, readonly string[]>;

  /** `implies`: a scope → the narrower scopes it grants as well (followed transitively). */
  constructor(implies: Readonly<Record<string, readonly string[]>> = {}) {
    for (const [broad, narrower] of Object.entries(implies)) checkScopeNames([broad, ...narrower], 'impliedScopes');
    this.implied = new Map(Object.entries(implies));
  }

  /** Every scope `granted` amounts to. */
  expand(granted: readonly string[]): Set<string> {
    const all = new Set<string>();
    const pending = [...granted];
    for (let scope = pending.pop(); scope !== undefined; scope = pending.pop()) {
      if (all.has(scope)) continue;
      all.add(scope);
      pending.push(...(this.implied.get(scope) ?? []));
    }
    return all;
  }

  /** Whether `granted` covers every scope in `needed`. */
  covers(granted: readonly string[], needed: readonly string[]): boolean {
    if (needed.length === 0) return true;
    if (this.implied.size === 0) return needed.every((scope) => granted.includes(scope));
    const all = this.expand(granted);
    return needed.every((scope) => all.has(scope));
  }
}

/** `a` and `b` together, in order, once each. */
export function unionOf(a: readonly string[], b: readonly string[]): readonly string[] {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  return [...new Set([...a, ...b])];
}
