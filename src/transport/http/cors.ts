/**
 * CORS for browser clients (opt in with the `cors` option): preflights
 * answered, the MCP headers allowed on requests and exposed on responses, for
 * the origins named. It works with the Host/Origin guard: an origin CORS
 * allows is one the guard lets through.
 */

export interface CorsOptions {
  /** Origins (`scheme://host[:port]`) whose pages may call the endpoint, or `'any'`. */
  origins: readonly string[] | 'any';
  /** How long a browser may reuse a preflight's answer, in seconds (default 600). */
  maxAgeSeconds?: number;
}

/** Request headers a page may send: the MCP ones (and every `Mcp-Param-*`), credentials, resumption. */
const ALLOWED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'accept',
  'authorization',
  'dpop',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
]);

/** Response headers a page may read. */
const EXPOSED = 'mcp-session-id, mcp-protocol-version, www-authenticate, retry-after, dpop-nonce';
const METHODS = 'POST, GET, DELETE, OPTIONS';

function allowedRequestHeader(name: string): boolean {
  return ALLOWED_REQUEST_HEADERS.has(name) || name.startsWith('mcp-param-');
}

export class Cors {
  private readonly origins: ReadonlySet<string> | 'any';
  private readonly maxAge: string;

  constructor(options: CorsOptions) {
    this.origins = options.origins === 'any' ? 'any' : new Set(options.origins.map((o) => o.trim().toLowerCase().replace(/\/+$/, '')));
    this.maxAge = String(options.maxAgeSeconds ?? 600);
  }

  /** The origins to let past the Origin check ('any' for all). */
  get allowedOrigins(): readonly string[] | 'any' {
    return this.origins === 'any' ? 'any' : [...this.origins];
  }

  allows(origin: string | undefined): origin is string {
    return origin !== undefined && (this.origins === 'any' || this.origins.has(origin.trim().toLowerCase()));
  }

  /** What every response to a page of `origin` carries (nothing for other origins, or without one). */
  headersFor(origin: string | undefined): Record<string, string> {
    if (!this.allows(origin)) return {};
    return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED, vary: 'Origin' };
  }

  /**
   * The answer to a preflight: 204 with what the page may do, or 403 when the
   * origin, the method or a header is not one it may use.
   */
  preflight(origin: string | undefined, method: string | undefined, requestHeaders: string | undefined): [number, Record<string, string>, string] {
    const asked = (requestHeaders ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h.length > 0);
    const refused = asked.filter((h) => !allowedRequestHeader(h));
    if (!this.allows(origin) || (method !== undefined && !METHODS.split(', ').includes(method.toUpperCase())) || refused.length > 0) {
      const why = !this.allows(origin) ? `origin ${String(origin)}` : refused.length > 0 ? `headers ${refused.join(', ')}` : `method ${String(method)}`;
      return [403, { 'content-type': 'text/plain; charset=utf-8', vary: 'Origin' }, `CORS preflight refused: ${why} not allowed`];
    }
    return [
      204,
      {
        ...this.headersFor(origin),
        'access-control-allow-methods': METHODS,
        'access-control-allow-headers': asked.join(', '),
        'access-control-max-age': this.maxAge,
      },
      '',
    ];
  }
}
