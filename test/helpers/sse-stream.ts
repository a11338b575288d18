/**
 * Opens one request over real HTTP and reads its SSE response incrementally,
 * for long-lived streams (`subscriptions/listen`) and for watching a request's
 * notifications as they arrive. `rpc` in http.ts reads until the response; this
 * keeps reading until the server ends the stream or the test closes it.
 */

import { readMessages } from './message-reader.js';
import { meta, standardHeaders } from './http.js';
import { assertServerMessage } from './wire-schema.js';

export type WireMessage = Record<string, unknown>;

export interface OpenStream {
  status: number;
  contentType: string;
  /** Every message received so far, in order. */
  readonly messages: WireMessage[];
  /** Resolves with the next message not yet taken by `next`, in arrival order; rejects if the stream ends first. */
  next(): Promise<WireMessage>;
  /** Resolves with the first not-yet-taken message matching `predicate`, returning the ones skipped over too. */
  nextMatching(predicate: (m: WireMessage) => boolean): Promise<{ match: WireMessage; skipped: WireMessage[] }>;
  /** Resolves when the server ends the body (never, if the test closes it first); rejects on invalid wire. */
  readonly ended: Promise<void>;
  /** Throws if any message received so far failed wire-schema validation. */
  assertValid(): void;
  /** Closes the stream from the client side (aborts the fetch). */
  close(): void;
}

let nextId = 1_000_000;

export interface OpenStreamOptions {
  id?: string | number;
  headers?: Record<string, string | undefined>;
}

export { StreamEnded } from './message-reader.js';

/** POSTs `method` with `params` (given a valid `_meta` unless they carry one) and returns once the response headers are in. */
export async function openStream(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: OpenStreamOptions = {},
): Promise<OpenStream> {
  const id = options.id ?? nextId++;
  const fullParams = '_meta' in params ? params : { ...params, _meta: meta() };
  const headers = standardHeaders(method, fullParams);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    delete headers[name.toLowerCase()];
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  const controller = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: fullParams }),
    signal: controller.signal,
  });

  const contentType = res.headers.get('content-type') ?? '';
  const reader = readMessages<WireMessage>(res, controller.signal, (m) => assertServerMessage(m, method));
  const failure = (): unknown => reader.failure() ?? (reader.rawText() ? new Error(`not JSON-RPC: ${reader.rawText()}`) : undefined);

  return {
    status: res.status,
    contentType,
    messages: reader.messages,
    next: async () => (await reader.waitFor(() => true)).match,
    nextMatching: (predicate) => reader.waitFor(predicate),
    get ended() {
      // Built on access so that an unobserved failure is not an unhandled rejection.
      return reader.done.then(() => {
        if (failure()) throw failure();
      });
    },
    assertValid: () => {
      if (failure()) throw failure();
    },
    close: () => controller.abort(),
  };
}

/** Short pause used only to show that something did NOT arrive. */
export function quietPeriod(ms = 150): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
