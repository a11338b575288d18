/** Server-sent events for one request's response stream, or a session's GET stream. */

import type { EventLog } from '../../protocol/channel.js';
import { serializeMessage, type JsonRpcMessage } from '../../protocol/jsonrpc.js';

export interface ByteSink {
  write(chunk: string): void;
  end(): void;
}

/** One SSE event holding one JSON-RPC message (with its event id on a resumable stream); compact JSON never spans lines. */
export function sseEvent(message: JsonRpcMessage, id?: string): string | undefined {
  const text = serializeMessage(message);
  if (text === undefined) return undefined;
  return id === undefined ? `event: message\ndata: ${text}\n\n` : `id: ${id}\nevent: message\ndata: ${text}\n\n`;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  // Proxies such as nginx must not buffer the stream.
  'x-accel-buffering': 'no',
};

/**
 * Writes JSON-RPC messages as SSE events and keeps idle streams alive with
 * comment lines. With a log (a resumable stream of a 2025-11-25 session) it
 * starts with a priming event (an id, empty data) and gives every event the
 * id the log records it under.
 */
export class SseStream {
  private readonly keepAlive: ReturnType<typeof setInterval> | undefined;
  private ended = false;

  constructor(
    private readonly sink: ByteSink,
    keepAliveMs: number,
    private readonly log?: EventLog,
  ) {
    if (log) this.sink.write(`id: ${log.prime()}\ndata: \n\n`);
    if (keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.sink.write(': keep-alive\n\n'), keepAliveMs);
      this.keepAlive.unref?.();
    }
  }

  /** Sends a message: recorded in the log, if any, under a new id; `id` instead replays an event recorded earlier. */
  send(message: JsonRpcMessage, id?: string): void {
    if (this.ended) return;
    const event = sseEvent(message, id ?? this.log?.record(message));
    if (event !== undefined) this.sink.write(event);
  }

  /** Records a message that cannot be written (the client disconnected), so that a resumed stream replays it. */
  recordOnly(message: JsonRpcMessage): void {
    this.log?.record(message);
  }

  /** Nothing more comes on the stream (its request was cancelled). */
  abandon(): void {
    this.log?.end();
    this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.sink.end();
  }
}
