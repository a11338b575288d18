/**
 * Reading the credentials of a request (RFC 6750 §2.1, RFC 9449 §7.1): the
 * `Authorization` header only — a token in the query string is refused, as
 * MCP requires (RFC 6750 §2.3 is not supported) — with the scheme `Bearer` or
 * `DPoP` and a token in `b64token` syntax. Another scheme is no credential
 * this server understands (a plain 401); a broken header is a 400.
 */

export type Credentials =
  | { readonly kind: 'none' }
  /** A scheme this server does not take (Basic…): treated as no credentials. */
  | { readonly kind: 'other' }
  | { readonly kind: 'token'; readonly scheme: 'bearer' | 'dpop'; readonly token: string }
  | { readonly kind: 'malformed'; readonly reason: string };

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const SCHEME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function readCredentials(header: string | undefined): Credentials {
  if (header === undefined) return { kind: 'none' };
  const value = header.trim();
  if (value === '') return { kind: 'malformed', reason: 'The Authorization header is empty' };
  const space = value.search(/\s/);
  const scheme = space < 0 ? value : value.slice(0, space);
  if (!SCHEME.test(scheme)) return { kind: 'malformed', reason: 'The Authorization header has no scheme' };
  const lower = scheme.toLowerCase();
  if (lower !== 'bearer' && lower !== 'dpop') return { kind: 'other' };
  const token = space < 0 ? '' : value.slice(space).trim();
  if (token === '') return { kind: 'malformed', reason: `The ${scheme} credentials carry no token` };
  // Two Authorization headers arrive joined with a comma, which no token contains.
  if (!B64TOKEN.test(token)) return { kind: 'malformed', reason: `The ${scheme} token is not one token in b64token syntax` };
  return { kind: 'token', scheme: lower, token };
}

/** Whether the request target carries an access token in its query (RFC 6750 §2.3), which MCP forbids. */
export function hasQueryToken(target: string): boolean {
  const query = target.indexOf('?');
  if (query < 0) return false;
  return new URLSearchParams(target.slice(query + 1)).has('access_token');
}
