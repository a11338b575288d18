/**
 * The sign-in's own HTTP (discovery, registration, tokens): the one fetch the
 * flow is given, so every URL a server names passes the same rules.
 *
 * - **Not steered inside.** A URL whose host is, or resolves to, a loopback,
 *   private, link-local or otherwise non-public address (private-addresses.ts)
 *   is refused before any connection — unless the MCP server itself is named
 *   by such an address or by `localhost` (local development), the URL is on
 *   the server's own origin, or the app allows the host
 *   (`allowPrivateNetwork`). MCP security best practices (SSRF), RFC 9728 §7.7.
 * - **Resolved once.** The name is resolved once per request and, on Node
 *   with the runtime's fetch, the connection is made to the addresses checked
 *   (pinned-connection.ts). Elsewhere the fetch resolves the name again:
 *   browsers and workers cannot resolve at all, so only URLs that name an
 *   address or `localhost` can be checked there.
 * - **Bounded.** Every answer is read whole, at most 1 MiB, within
 *   `timeoutMs`, before anyone looks at it.
 *
 * Its refusals are FlowHttpErrors, which the step that asked turns into an
 * AuthorizationError of its own.
 */

import { BodyTooLargeError, readBoundedText } from '../../protocol/bounded-body.js';
import { untilAborted } from '../../protocol/until-aborted.js';
import { pinnedRequestOnThisRuntime, type PinnedRequest } from './pinned-connection.js';
import { ipLiteral, isLoopbackName, privateHostKind, privateKind } from './private-addresses.js';

/** Resolves a host name to its addresses (IPv4 or IPv6, as text). */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

/** The most read of any answer during sign-in: metadata, registrations and token responses are a few KiB. */
export const MAX_FLOW_RESPONSE_BYTES = 1024 * 1024;

/** Why the flow's HTTP refused or gave up on a request; `code` becomes the AuthorizationError's `error`. */
export class FlowHttpError extends Error {
  constructor(
    message: string,
    readonly code: 'private_address' | 'response_too_large' | 'timeout',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FlowHttpError';
  }
}

export interface GuardRules {
  /** The MCP server the sign-in is for. */
  serverUrl: string;
  /** Where requests go when they are not pinned. */
  fetch: typeof fetch;
  /** Whether `fetch` is the runtime's own, so a pinned connection may take its place. */
  runtimeFetch: boolean;
  /** The app's resolver, else the runtime's (node:dns), else none. */
  resolve: HostResolver | undefined;
  /** Hosts allowed although private (URL host names, IPv6 with or without brackets), or true for any. */
  allowPrivateNetwork: boolean | readonly string[];
  /** Longest one request may take, its body included, in ms. */
  timeoutMs: number;
}

interface NodeDns {
  promises: { lookup(hostname: string, options: { all: true; verbatim: true }): Promise<Array<{ address: string }>> };
}

/** node:dns's lookup (what node:http itself uses: the hosts file, then DNS) where the runtime has it. */
function runtimeResolver(): HostResolver | undefined {
  const dns = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process?.getBuiltinModule?.('node:dns') as NodeDns | undefined;
  if (!dns) return undefined;
  return async (hostname) => (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
}

const bare = (host: string): string => host.toLowerCase().replace(/^\[(.*)\]$/, '$1');

function requestUrl(input: string | URL | Request): URL {
  return new URL(input instanceof Request ? input.url : String(input));
}

export function guardedFetch(rules: GuardRules): typeof fetch {
  const pinned: PinnedRequest | undefined = rules.runtimeFetch ? pinnedRequestOnThisRuntime() : undefined;
  const resolve = rules.resolve ?? runtimeResolver();
  const server = new URL(rules.serverUrl);
  // Local development: a server named by a private address or localhost may send the sign-in to such places.
  // Judged by its URL alone: what its name resolves to is the server's to choose, and could change after the check.
  const serverIsLocal = privateHostKind(server) !== undefined;
  const allowed = Array.isArray(rules.allowPrivateNetwork) ? new Set(rules.allowPrivateNetwork.map(bare)) : undefined;
  const mayReachPrivate = (url: URL): boolean =>
    serverIsLocal ||
    // The server's own origin (its well-known metadata) is where the app already sends it requests: nothing is steered there.
    url.origin === server.origin ||
    rules.allowPrivateNetwork === true ||
    (allowed?.has(bare(url.hostname)) ?? false);

  async function lookUp(hostname: string, resolver: HostResolver): Promise<readonly string[]> {
    let addresses: readonly string[];
    try {
      addresses = await resolver(hostname);
    } catch (error) {
      throw new TypeError('fetch failed', { cause: error });
    }
    if (addresses.length === 0) throw new TypeError('fetch failed', { cause: new Error(`${hostname} has no address`) });
    return addresses;
  }

  /** The addresses `url` connects to, checked; undefined when they are not known here (no resolver, or none needed). */
  async function destination(url: URL): Promise<readonly string[] | undefined> {
    const permitted = mayReachPrivate(url);
    if (!permitted && isLoopbackName(url.hostname)) throw refusal(url, `${url.hostname} is a loopback name`);
    const literal = ipLiteral(url.hostname);
    let addresses: readonly string[] | undefined;
    if (literal !== undefined) addresses = [literal];
    // Resolved to be checked, or to be pinned.
    else if (resolve && (!permitted || pinned)) addresses = await lookUp(url.hostname, resolve);
    if (permitted) return addresses;
    for (const address of addresses ?? []) {
      const kind = privateKind(address);
      if (kind === undefined) continue;
      throw refusal(url, literal === undefined ? `${url.hostname} resolves to ${address}, a ${kind} address` : `${address} is a ${kind} address`);
    }
    return addresses;
  }

  return async (input, init) => {
    const url = requestUrl(input);
    const caller = init?.signal ?? undefined;
    const timeout = AbortSignal.timeout(rules.timeoutMs);
    const signal = caller ? AbortSignal.any([caller, timeout]) : timeout;
    const timedOut = (): boolean => timeout.aborted && !caller?.aborted;
    const slow = (cause: unknown): FlowHttpError => new FlowHttpError(`${url.href} did not answer within ${rules.timeoutMs} ms`, 'timeout', { cause });

    let response: Response;
    try {
      // The name's lookup counts against the time too (a resolver that never answers is left behind).
      const addresses = await untilAborted(destination(url), signal);
      response = pinned && addresses ? await pinned(url, { ...init, signal }, addresses) : await rules.fetch(input, { ...init, signal });
    } catch (error) {
      throw timedOut() ? slow(error) : error;
    }
    let text: string;
    try {
      text = await readBoundedText(response, MAX_FLOW_RESPONSE_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        throw new FlowHttpError(`The answer of ${url.href} is larger than ${MAX_FLOW_RESPONSE_BYTES} bytes; stopped reading it`, 'response_too_large', { cause: error });
      }
      if (timedOut()) throw slow(error);
      if (caller?.aborted) throw caller.reason;
      throw error;
    }
    const status = response.status;
    return new Response(status === 204 || status === 205 || status === 304 ? null : text, { status, statusText: response.statusText, headers: response.headers });
  };
}

/** `why`: what the host is ("10.0.0.5 is a private address", "auth.example resolves to 127.0.0.1, a loopback address"). */
function refusal(url: URL, why: string): FlowHttpError {
  return new FlowHttpError(
    `Refusing to fetch ${url.href}: ${why}, and the MCP server is not on such an address itself (a server may not steer the sign-in into a private network; allowPrivateNetwork allows a host)`,
    'private_address',
  );
}
