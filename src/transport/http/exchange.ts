/** The seam between the HTTP core and each HTTP library's adapter: the request it reads and the responder it answers through. */

import type { ByteSink } from './sse.js';

/** The request as the core needs it, from any HTTP library. */
export interface HttpRequestView {
  method: string;
  /** Lower-case header name → value: a function that needs no `this`, so a channel hands it on as it is. */
  readonly header: (name: string) => string | undefined;
  /** Aborted when the client disconnects. */
  readonly signal: AbortSignal;
  /** Whether the client disconnected (without making the signal, which costs more). */
  readonly aborted: boolean;
  /** The request target: path and query, as received. */
  readonly target: string;
}

/** How the core answers, implemented by each adapter. */
export interface HttpResponder {
  /** A complete response with a body (or none when `body` is empty). */
  send(status: number, headers: Record<string, string>, body: string): void;
  /** Starts a 200 response whose body is written piece by piece. */
  stream(headers: Record<string, string>): ByteSink;
}
