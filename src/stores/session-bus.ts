/**
 * What one instance tells the others about a 2025-11-25 session whose live
 * part (a request's stream, a GET stream, a handler waiting for an answer)
 * may be held elsewhere: the client's answer to a server-initiated request,
 * a message for the session's GET stream, a cancellation, the client's
 * notifications/initialized, the session's end. Each instance hears every event and acts on the
 * sessions it holds.
 */

import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { RequestId } from '../protocol/types.js';

export type SessionEvent =
  | { type: 'answer'; sessionId: string; response: JsonRpcResponse }
  | { type: 'message'; sessionId: string; message: JsonRpcNotification | JsonRpcRequest }
  | { type: 'cancel'; sessionId: string; requestId: RequestId }
  | { type: 'initialized'; sessionId: string }
  | { type: 'ended'; sessionId: string };

export interface SessionBus {
  /** Whether other instances hear what is published (false: this process only). */
  readonly shared: boolean;
  publish(event: SessionEvent): Promise<void>;
  /** Hears every event until the returned function is called. */
  subscribe(listener: (event: SessionEvent) => void): () => void;
}

/** For one process: nothing to tell anyone, everything is held here. */
export class MemorySessionBus implements SessionBus {
  readonly shared = false;
  private readonly listeners = new Set<(event: SessionEvent) => void>();

  publish(event: SessionEvent): Promise<void> {
    for (const listener of [...this.listeners]) listener(event);
    return Promise.resolve();
  }

  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
