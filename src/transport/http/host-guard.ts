/**
 * DNS-rebinding defence: a page on evil.example that resolves its name to
 * 127.0.0.1 can make a browser POST to a local server, but the browser still
 * sends `Host: evil.example` and `Origin: http://evil.example`. Both are checked
 * against an allowlist; a present-and-invalid Origin is a 403 (spec MUST).
 */

export interface HostGuardOptions {
  /** Host names (without port) that may appear in `Host`; default: the loopback names. `'any'` disables the check. */
  allowedHosts?: readonly string[] | 'any';
  /** Origins (`scheme://host[:port]`, or bare host names) allowed in `Origin`; default: http(s) origins on an allowed host. */
  allowedOrigins?: readonly string[] | 'any';
}

export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** The host name of a `Host` header value, without port, lower-cased. */
function hostnameOf(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end < 0 ? value : value.slice(0, end + 1);
  }
  const colon = value.indexOf(':');
  return colon < 0 ? value : value.slice(0, colon);
}

export class HostGuard {
  private readonly hosts: ReadonlySet<string> | undefined;
  private readonly origins: ReadonlySet<string> | undefined;
  private readonly anyOrigin: boolean;

  /** Origins let through besides the configured ones (those the CORS option allows). */
  private readonly alsoAllowed: ReadonlySet<string> | 'any';

  constructor(options: HostGuardOptions = {}, alsoAllowed: readonly string[] | 'any' = []) {
    this.alsoAllowed = alsoAllowed === 'any' ? 'any' : new Set(alsoAllowed.map((o) => o.toLowerCase()));
    const hosts = options.allowedHosts ?? LOOPBACK_HOSTS;
    this.hosts = hosts === 'any' ? undefined : new Set(hosts.map((h) => h.toLowerCase()));
    this.anyOrigin = options.allowedOrigins === 'any';
    this.origins =
      options.allowedOrigins === undefined || options.allowedOrigins === 'any'
        ? undefined
        : new Set(options.allowedOrigins.map((o) => o.toLowerCase()));
  }

  /** Returns why the request must be refused, or undefined when it may proceed. */
  check(host: string | undefined, origin: string | undefined): string | undefined {
    if (this.hosts) {
      if (host === undefined) return 'the Host header is missing';
      if (!this.hosts.has(hostnameOf(host))) return `Host '${host}' is not allowed (allowed: ${[...this.hosts].join(', ')}; configure allowedHosts)`;
    }
    if (origin !== undefined && !this.anyOrigin && !this.originAllowed(origin) && !this.alsoAllows(origin)) {
      return `Origin '${origin}' is not allowed (configure allowedOrigins)`;
    }
    return undefined;
  }

  private alsoAllows(origin: string): boolean {
    return this.alsoAllowed === 'any' || this.alsoAllowed.has(origin.trim().toLowerCase());
  }

  private originAllowed(origin: string): boolean {
    const normalized = origin.trim().toLowerCase();
    if (this.origins) return this.origins.has(normalized) || this.origins.has(hostnameOf(normalized.replace(/^[a-z]+:\/\//, '')));
    let url: URL;
    try {
      url = new URL(normalized);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    return this.hosts === undefined || this.hosts.has(url.hostname) || this.hosts.has(`[${url.hostname}]`);
  }
}
