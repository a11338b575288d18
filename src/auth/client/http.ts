/**
 * How the authorization flow talks HTTP: one fetch (the provider gives a
 * guarded one: no private addresses, bounded answers; guarded-fetch.ts), one
 * abort signal, and the transport-security rule — https everywhere, plain
 * http only to a loopback address (a local development server), unless the
 * app explicitly allows it.
 */

import * as oauth from 'oauth4webapi';
import { AuthorizationError, type AuthorizationStep } from './errors.js';
import { FlowHttpError } from './guarded-fetch.js';
import { privateHostKind } from './private-addresses.js';

export interface HttpOptions {
  fetch: typeof fetch;
  signal: AbortSignal | undefined;
  /** Allow plain http to hosts other than loopback (tests behind a proxy; never in production). */
  allowInsecureRequests: boolean;
}

/** A loopback address or name (localhost, 127.0.0.0/8, ::1): where plain http may go. */
export function isLoopback(url: URL): boolean {
  return privateHostKind(url) === 'loopback';
}

/** Throws unless `url` may carry credentials under the transport-security rule. */
export function assertSecure(url: string, http: HttpOptions, step: AuthorizationStep): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AuthorizationError(`Not a URL: ${url}`, { step });
  }
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:' && (http.allowInsecureRequests || isLoopback(parsed))) return parsed;
  throw new AuthorizationError(`Refusing ${url}: authorization endpoints must use https`, { step });
}

/** The options every oauth4webapi request takes (the library's own https check is replaced by assertSecure). */
export function libraryOptions(http: HttpOptions): {
  [oauth.customFetch]: typeof fetch;
  [oauth.allowInsecureRequests]: true;
  signal?: AbortSignal;
} {
  return { [oauth.customFetch]: http.fetch, [oauth.allowInsecureRequests]: true, ...(http.signal ? { signal: http.signal } : {}) };
}

/** GETs a JSON document; a status other than 200 comes back without a body, a network failure throws. */
export async function getJson(url: string, http: HttpOptions, step: AuthorizationStep): Promise<{ status: number; json?: unknown }> {
  assertSecure(url, http, step);
  let response: Response | undefined;
  // A GET is safe to repeat: once more after a network error (a kept-alive connection the server just closed).
  for (let attempt = 0; response === undefined; attempt++) {
    try {
      response = await http.fetch(url, { headers: { accept: 'application/json' }, signal: http.signal, redirect: 'manual' });
    } catch (error) {
      http.signal?.throwIfAborted();
      const refused = stepError(error, step);
      if (refused) throw refused;
      if (attempt === 0) continue;
      throw new AuthorizationError(`Could not fetch ${url}: ${reasonOf(error)}`, { step, cause: error });
    }
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status };
  }
  try {
    return { status: 200, json: await response.json() };
  } catch (error) {
    throw new AuthorizationError(`${url} did not answer with JSON`, { step, cause: error });
  }
}

/** A refusal of the flow's own HTTP (a private address, an answer too large or too slow) as an AuthorizationError of `step`. */
export function stepError(error: unknown, step: AuthorizationStep): AuthorizationError | undefined {
  return error instanceof FlowHttpError ? new AuthorizationError(error.message, { step, error: error.code, cause: error }) : undefined;
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED…) is in its cause. */
export function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}
