/**
 * The event log of one resumable SSE stream of a 2025-11-25 session (a
 * request's stream, or the GET stream): event ids `<stream>:<n>`, unique in
 * the session, with the events kept in the session's EventStore in order.
 * Writes to the store are chained so that they land in the order sent; a
 * store that fails costs the replay, never the live stream.
 */

import type { EventLog } from '../protocol/channel.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import { randomId } from '../platform/crypto.js';
import type { EventStore } from '../stores/event-store.js';

export type StreamKind = 'request' | 'standalone';

/** The stream and position an event id names; undefined when it is not one of ours. */
export function parseEventId(id: string): { streamId: string; seq: number; kind: StreamKind } | undefined {
  const match = /^([rs])\.([A-Za-z0-9_-]{1,64}):(\d{1,15})$/.exec(id.trim());
  if (!match) return undefined;
  return { streamId: `${match[1]}.${match[2]}`, seq: Number(match[3]), kind: match[1] === 'r' ? 'request' : 'standalone' };
}

function isResponse(message: JsonRpcMessage): boolean {
  return 'result' in message || 'error' in message;
}

export class StreamLog implements EventLog {
  readonly streamId: string;
  private seq = 0;
  private ended = false;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: EventStore,
    private readonly sessionId: string,
    kind: StreamKind,
    private readonly warn?: (message: string) => void,
  ) {
    this.streamId = `${kind === 'request' ? 'r' : 's'}.${randomId(9)}`;
  }

  prime(): string {
    this.write(() => this.store.open(this.sessionId, this.streamId));
    return `${this.streamId}:0`;
  }

  record(message: JsonRpcMessage): string {
    const seq = ++this.seq;
    this.write(() => this.store.append(this.sessionId, this.streamId, { seq, message }));
    if (isResponse(message)) this.end();
    return `${this.streamId}:${seq}`;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const seq = this.seq;
    this.write(() => this.store.end(this.sessionId, this.streamId, seq));
  }

  private write(step: () => Promise<void>): void {
    this.writes = this.writes.then(step).catch((error: unknown) => this.warn?.(`Could not record an event of stream ${this.streamId}: ${String(error)}`));
  }
}
