/**
 * Streamable HTTP as a fetch-style handler (`Request` → `Response`) for any
 * web-standard runtime: Deno, Bun, Cloudflare Workers, Hono, Next.js routes.
 * Mount it at the MCP endpoint path; it answers whatever reaches it.
 */

import type { RequestHandler } from '../../protocol/channel.js';
import { HttpCore, type HttpRequestView, type HttpResponder, type HttpTransportOptions } from './core.js';

const encoder = new TextEncoder();

async function readBody(request: Request, limit: number): Promise<string | undefined> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** Deno.serve's second argument: `completed` rejects when the response could not be delivered. */
function completion(info: unknown): PromiseLike<unknown> | undefined {
  const completed = (info as { completed?: Partial<PromiseLike<unknown>> } | null | undefined)?.completed;
  return typeof completed?.then === 'function' ? (completed as PromiseLike<unknown>) : undefined;
}

/** A body a framework already read (its text), for adapters on frameworks that cache what they read. */
export interface ReadText {
  readonly text: string;
}

/** A fetch Request as the core sees it (a class: see NodeRequestView on object literals with getters). */
class FetchRequestView implements HttpRequestView {
  readonly method: string;
  readonly header: (name: string) => string | undefined;

  constructor(
    private readonly request: Request,
    readonly target: string,
    readonly signal: AbortSignal,
  ) {
    this.method = request.method;
    const headers = request.headers;
    this.header = (name) => headers.get(name) ?? undefined;
  }

  get aborted(): boolean {
    return this.signal.aborted;
  }
}

/**
 * Serves one request through `core`. With `read`, the body is that text and
 * `request.body` is left alone (a framework may already have consumed it);
 * `info` is the runtime's second argument to its fetch handler (see runtimeSignal).
 */
export async function serveFetchRequest(core: HttpCore, request: Request, read?: ReadText, info?: unknown): Promise<Response> {
  // Cancelled when the runtime aborts the request or the client stops reading the stream.
  const abort = new AbortController();
  const signal = AbortSignal.any([runtimeSignal(request, info), abort.signal]);
  const url = new URL(request.url);
  const view = new FetchRequestView(request, `${url.pathname}${url.search}`, signal);
  // Routed here too, the Protected Resource Metadata of a protected endpoint.
  const metadata = core.metadata(view);
  if (metadata) return metadataAnswer(metadata, view.method);
  const refusal = core.precheck(view);
  if (refusal) return new Response(refusal[2], { status: refusal[0], headers: refusal[1] });
  let body: string | undefined = '';
  if (view.method === 'POST') body = read ? (encoder.encode(read.text).byteLength > core.maxBodyBytes ? undefined : read.text) : await readBody(request, core.maxBodyBytes);
  if (body === undefined) {
    const [status, headers, text] = core.tooLarge();
    return new Response(text, { status, headers });
  }
  const text = body;
  return new Promise<Response>((resolve) => {
    const responder: HttpResponder = {
      send(status, headers, text) {
        resolve(new Response(status === 202 || status === 204 || text === '' ? null : text, { status, headers }));
      },
      stream(headers) {
        let controller!: ReadableStreamDefaultController<Uint8Array>;
        let open = true;
        const readable = new ReadableStream<Uint8Array>({
          start: (c) => {
            controller = c;
          },
          cancel: () => {
            open = false;
            abort.abort();
          },
        });
        resolve(new Response(readable, { status: 200, headers }));
        return {
          write: (chunk) => {
            if (open) controller.enqueue(encoder.encode(chunk));
          },
          end: () => {
            if (open) {
              open = false;
              controller.close();
            }
          },
        };
      },
    };
    void core.serve(view, text, responder);
  });
}

/** The metadata route's answer as a Response (no body for 204 and HEAD). */
export function metadataAnswer([status, headers, text]: [number, Record<string, string>, string], method: string): Response {
  return new Response(status === 204 || text === '' || method === 'HEAD' ? null : text, { status, headers });
}

/**
 * What cancels a request: the runtime's `request.signal`, or on Deno the
 * `completed` promise instead — Deno (legacy abort) also aborts the signal
 * after every successful response and warns once reading it, so it is not read there.
 */
function runtimeSignal(request: Request, info: unknown): AbortSignal {
  const completed = completion(info);
  if (!completed) return request.signal;
  const undelivered = new AbortController();
  completed.then(undefined, (reason: unknown) => undelivered.abort(reason));
  return undelivered.signal;
}

/**
 * Returns `(request, info?) => Promise<Response>`; pass the runtime's second
 * argument through (`Deno.serve(handle)`, `export default { fetch: handle }`).
 * The Host/Origin check defaults to the loopback names: set `allowedHosts` to
 * your public host names when deploying.
 */
export function createFetchHandler(handler: RequestHandler, options: HttpTransportOptions = {}): (request: Request, info?: unknown) => Promise<Response> {
  const core = new HttpCore(handler, options);
  return (request, info) => serveFetchRequest(core, request, undefined, info);
}
