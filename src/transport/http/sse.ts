/** Server-sent events for one request's response stream. */

import { serializeMessage, type JsonRpcMessage } from '../../protocol/jsonrpc.js';

export interface ByteSink {
  write(chunk: string): void;
  end(): void;
}

/** One SSE event holding one JSON-RPC message; compact JSON never spans lines. */
export function sseEvent(message: JsonRpcMessage): string | undefined {
  const text = serializeMessage(message);
  return text === undefined ? undefined : `event: message\ndata: ${text}\n\n`;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  // Proxies such as nginx must not buffer the stream.
  'x-accel-buffering': 'no',
};

/** Writes JSON-RPC messages as SSE events and keeps idle streams alive with comment lines. */
export class SseStream {
  private readonly keepAlive: ReturnType<typeof setInterval> | undefined;
  private ended = false;

  constructor(
    private readonly sink: ByteSink,
    keepAliveMs: number,
  ) {
    if (keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.sink.write(': keep-alive\n\n'), keepAliveMs);
      this.keepAlive.unref?.();
    }
  }

  send(message: JsonRpcMessage): void {
    const event = this.ended ? undefined : sseEvent(message);
    if (event !== undefined) this.sink.write(event);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.sink.end();
  }
}
