/**
 * The Content-Security-Policy an app runs under, from the origins its
 * resource declares (`_meta.ui.csp`): the spec's restrictive defaults, each
 * declared list in its directives, nothing else. A declared entry that is not
 * a plain source (scheme://host[:port][/path], `*.` allowed before the host)
 * is refused, so a server cannot smuggle a keyword, a scheme-wide source or a
 * second directive into the policy.
 *
 * Self-contained (no imports, no outer names): the sandbox proxy page
 * (host/sandbox-proxy.ts) embeds its source text and runs it there; the host
 * and the server (which refuses such entries at registration) call it here.
 */

/** The policy, the entries kept (list by list), and each refused entry as `list: value`. */
export interface AppPolicy {
  policy: string;
  approved: { connectDomains: string[]; resourceDomains: string[]; frameDomains: string[]; baseUriDomains: string[] };
  refused: string[];
}

export function appContentSecurityPolicy(csp: unknown): AppPolicy {
  const source = /^(?:https?|wss?):\/\/(?:\*\.)?(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::(?:\d{1,5}|\*))?(?:\/[a-z0-9._~%!$()*+=:@/-]*)?$/i;
  const refused: string[] = [];
  const declared = typeof csp === 'object' && csp !== null ? (csp as Record<string, unknown>) : {};
  const list = (name: string): string[] => {
    const entries = declared[name];
    if (entries === undefined) return [];
    if (!Array.isArray(entries)) {
      refused.push(`${name}: not a list`);
      return [];
    }
    return entries.filter((entry: unknown): entry is string => {
      if (typeof entry === 'string' && source.test(entry)) return true;
      refused.push(`${name}: ${String(entry)}`);
      return false;
    });
  };
  const approved = { connectDomains: list('connectDomains'), resourceDomains: list('resourceDomains'), frameDomains: list('frameDomains'), baseUriDomains: list('baseUriDomains') };
  const or = (entries: string[], otherwise: string): string => (entries.length > 0 ? entries.join(' ') : otherwise);
  const resources = approved.resourceDomains.map((d) => ` ${d}`).join('');
  const policy = [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${resources}`,
    `style-src 'self' 'unsafe-inline'${resources}`,
    `img-src 'self' data:${resources}`,
    `font-src 'self'${resources}`,
    `media-src 'self' data:${resources}`,
    `connect-src ${or(approved.connectDomains, "'none'")}`,
    `frame-src ${or(approved.frameDomains, "'none'")}`,
    "object-src 'none'",
    // Not in the spec's list; a host may restrict further: a submitted form would carry data to any origin.
    "form-action 'none'",
    `base-uri ${or(approved.baseUriDomains, "'self'")}`,
  ].join('; ');
  return { policy, approved, refused };
}
