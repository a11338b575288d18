/**
 * On Node, a request of the sign-in made over node:http(s) to addresses
 * already resolved and checked: its `lookup` answers with them and never asks
 * DNS again, so a name cannot give one address to the check and another to
 * the connection (DNS rebinding). TLS still verifies the certificate for the
 * URL's host name. The modules come from the runtime
 * (`process.getBuiltinModule`), never imported, so this file bundles for
 * browsers and workers, where there is none (and nothing is pinned).
 */

/** Sends one request to `url`, connected to one of `addresses`; a web Response, its body streamed. */
export type PinnedRequest = (url: URL, init: RequestInit, addresses: readonly string[]) => Promise<Response>;

interface IncomingResponse {
  statusCode?: number;
  statusMessage?: string;
  rawHeaders: string[];
  destroy(error?: Error): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

interface ClientRequest {
  on(event: 'error', listener: (error: Error) => void): unknown;
  end(body?: Uint8Array): void;
  destroy(error?: Error): void;
}

type LookupCallback = (error: Error | null, address: string | Array<{ address: string; family: number }>, family?: number) => void;

interface RequestOptions {
  method: string;
  headers: Record<string, string>;
  lookup: (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;
  agent: false;
}

interface HttpModule {
  request(url: URL, options: RequestOptions, onResponse: (response: IncomingResponse) => void): ClientRequest;
}

interface StreamModule {
  Readable: { toWeb(readable: IncomingResponse): ReadableStream<Uint8Array> };
}

interface NodeProcess {
  getBuiltinModule?(id: string): unknown;
  versions?: Record<string, string | undefined>;
}

/** The pinned request where the runtime is Node (Deno and Bun have node:http too, but whether they honour `lookup` is theirs to say). */
export function pinnedRequestOnThisRuntime(): PinnedRequest | undefined {
  const process = (globalThis as { process?: NodeProcess }).process;
  if (!process?.getBuiltinModule || process.versions?.bun !== undefined || 'Deno' in globalThis) return undefined;
  const http = process.getBuiltinModule('node:http') as HttpModule | undefined;
  const https = process.getBuiltinModule('node:https') as HttpModule | undefined;
  const stream = process.getBuiltinModule('node:stream') as StreamModule | undefined;
  if (!http || !https || !stream) return undefined;
  return (url, init, addresses) => send(url.protocol === 'https:' ? https : http, stream, url, init, addresses);
}

function familyOf(address: string): 4 | 6 {
  return address.includes(':') ? 6 : 4;
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

async function send(module: HttpModule, stream: StreamModule, url: URL, init: RequestInit, addresses: readonly string[]): Promise<Response> {
  // The Request normalises what fetch callers pass (Headers, URLSearchParams, strings) into headers and bytes.
  const request = new Request(url, init);
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
  const headers: Record<string, string> = { 'accept-encoding': 'identity' };
  request.headers.forEach((value, name) => (headers[name] = value));
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  return new Promise<Response>((resolve, reject) => {
    const lookup: RequestOptions['lookup'] = (_hostname, options, callback) => {
      if (options.all) callback(null, addresses.map((address) => ({ address, family: familyOf(address) })));
      else callback(null, addresses[0]!, familyOf(addresses[0]!));
    };
    let answered: IncomingResponse | undefined;
    const req = module.request(url, { method: request.method, headers, lookup, agent: false }, (res) => {
      answered = res;
      const responseHeaders = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
      const status = res.statusCode ?? 0;
      // An error after the head reaches the reader through the web stream.
      res.on('error', () => undefined);
      resolve(
        new Response(NULL_BODY.has(status) ? null : stream.Readable.toWeb(res), { status, statusText: res.statusMessage ?? '', headers: responseHeaders }),
      );
    });
    const onAbort = (): void => {
      const reason = signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason));
      answered?.destroy(reason);
      req.destroy(reason);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // As fetch reports it: "fetch failed", the socket's reason (ECONNREFUSED…) in the cause.
    req.on('error', (error) => reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error })));
    req.end(body);
  });
}
