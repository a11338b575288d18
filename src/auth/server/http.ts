/**
 * How the resource server talks to authorization servers (metadata, keys,
 * introspection): https, or plain http to a loopback address only (local
 * development) unless the app allows it; a timeout on every call, its body
 * included; at most MAX_DOCUMENT_BYTES read of any answer; anything that goes
 * wrong is "cannot check now" (TokenCheckUnavailableError), never a verdict
 * on the token.
 */

import { BodyTooLargeError, describeFailure, readBoundedText } from '../../protocol/bounded-body.js';
import { TokenCheckUnavailableError } from './errors.js';

/** The most read of any document an authorization server sends (metadata, key sets and introspection answers are a few KiB). */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

export interface OutboundHttp {
  fetch: typeof fetch;
  /** Per call, in ms. */
  timeoutMs: number;
  /** Allow plain http to hosts other than loopback (tests behind a proxy; never in production). */
  allowInsecureHttp: boolean;
}

export function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

/** The URL, when the transport-security rule allows it; a TypeError otherwise (a configuration mistake). */
export function secureUrl(text: string, http: Pick<OutboundHttp, 'allowInsecureHttp'>, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`${what} is not a URL: ${text}`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && (http.allowInsecureHttp || isLoopback(url)))) return url;
  throw new TypeError(`${what} must use https (plain http only on loopback): ${text}`);
}

/** A JSON object from `url`, read within the time and size limits, or TokenCheckUnavailableError. */
export async function fetchJsonObject(url: string, init: RequestInit, http: OutboundHttp): Promise<Record<string, unknown>> {
  // One signal for the whole exchange: it also ends a body that trickles.
  const signal = AbortSignal.timeout(http.timeoutMs);
  let response: Response;
  try {
    response = await http.fetch(url, { ...init, redirect: 'manual', signal });
  } catch (error) {
    throw new TokenCheckUnavailableError(`Could not reach ${url}: ${describeFailure(error)}`, { cause: error });
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new TokenCheckUnavailableError(`${url} answered HTTP ${response.status}`);
  }
  let text: string;
  try {
    text = await readBoundedText(response, MAX_DOCUMENT_BYTES);
  } catch (error) {
    const why = error instanceof BodyTooLargeError ? `is larger than ${MAX_DOCUMENT_BYTES} bytes` : `could not be read (${signal.aborted ? `no answer within ${http.timeoutMs} ms` : (error as Error).message})`;
    throw new TokenCheckUnavailableError(`The answer of ${url} ${why}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TokenCheckUnavailableError(`${url} did not answer JSON`, { cause: error });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new TokenCheckUnavailableError(`${url} did not answer a JSON object`);
  return json as Record<string, unknown>;
}
