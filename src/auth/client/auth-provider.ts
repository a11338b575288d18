/**
 * The one thing the HTTP transport knows about authorization: a provider
 * wraps the transport's fetch, so every request leaves with credentials and
 * every 401/403 challenge is answered (sign in, refresh, step up) before the
 * transport sees a response.
 */

export interface HttpAuthProvider {
  wrapFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch;
}
