/**
 * The channel of one POSTed request: what the handler sends before its
 * response turns the reply into an SSE stream, opened on the first message.
 */

import type { AuthInfo } from '../../protocol/authorization.js';
import type { EventLog, RequestChannel } from '../../protocol/channel.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../protocol/jsonrpc.js';
import type { WireTrace } from '../wire-trace.js';
import type { HttpRequestView, HttpResponder } from './exchange.js';
import { SSE_HEADERS, SseStream } from './sse.js';

function acceptsSse(accept: string | undefined): boolean {
  return accept === undefined || accept.includes('text/event-stream') || accept.includes('*/*');
}

/**
 * A class, not an object literal with a `signal` getter: V8 makes such
 * literals on its slow path, in old space, which keeps every young object
 * they point to alive through the scavenges (see node-request.ts).
 */
export class PostChannel implements RequestChannel {
  readonly canNotify: boolean;
  /** The request's own header reader, handed on as it is (no wrapper of this channel's). */
  readonly header: (name: string) => string | undefined;
  /** The SSE stream, once something was sent before the response. */
  stream: SseStream | undefined;
  private log: EventLog | undefined;

  constructor(
    private readonly request: HttpRequestView,
    private readonly responder: HttpResponder,
    private readonly keepAliveMs: number,
    private readonly trace: WireTrace | undefined,
    readonly principal: string | undefined,
    readonly auth: AuthInfo | undefined,
  ) {
    this.header = request.header;
    this.canNotify = acceptsSse(this.header('accept'));
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }

  get gone(): boolean {
    return this.request.aborted;
  }

  send(outgoing: JsonRpcNotification | JsonRpcRequest): void {
    this.trace?.('out', outgoing);
    // A resumable stream the client dropped still records what it would have carried.
    if (this.request.aborted) {
      this.stream?.recordOnly(outgoing);
      return;
    }
    this.stream ??= new SseStream(this.responder.stream(SSE_HEADERS), this.keepAliveMs, this.log);
    this.stream.send(outgoing);
  }

  resumable(log: EventLog): void {
    this.log = log;
  }
}
