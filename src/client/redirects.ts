/**
 * Redirects, followed by hand: only 307 and 308 (the method and body stay as
 * they were) and only within the origin the client was given, so the app's
 * headers (an API key, a token) and the request body never travel to a host
 * the app did not choose. Anything else is a TransportError naming where the
 * server pointed.
 */

import { TransportError } from './errors.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const KEEPS_METHOD = new Set([307, 308]);

/** Most redirects one request follows. */
export const MAX_REDIRECTS = 5;

export async function fetchWithinOrigin(fetchImpl: typeof fetch, url: string, init: RequestInit): Promise<Response> {
  const origin = new URL(url).origin;
  let target = url;
  for (let hops = 0; ; hops++) {
    const response = await fetchImpl(target, { ...init, redirect: 'manual' });
    // A fetch that follows redirects itself (or a browser's opaque redirect) reports no 3xx to act on.
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    const method = init.method ?? 'GET';
    if (location === null) throw new TransportError(`HTTP ${response.status} from ${target} without a Location to follow`, response.status);
    let next: URL;
    try {
      next = new URL(location, target);
    } catch (cause) {
      throw new TransportError(`HTTP ${response.status} from ${target} to an invalid Location ${JSON.stringify(location)}`, response.status, undefined, { cause });
    }
    if (next.origin !== origin) {
      throw new TransportError(
        `HTTP ${response.status} from ${target} redirects to another origin (${next.origin}); not followed, so no headers or body were sent there`,
        response.status,
      );
    }
    if (!KEEPS_METHOD.has(response.status) && method !== 'GET') {
      throw new TransportError(`HTTP ${response.status} from ${target} would turn the ${method} into a GET; not followed`, response.status);
    }
    if (hops >= MAX_REDIRECTS) throw new TransportError(`More than ${MAX_REDIRECTS} redirects from ${url}; not followed further`, response.status);
    target = next.href;
  }
}
