/**
 * The replay buffer behind resumable SSE streams of 2025-11-25 sessions: each
 * stream's events, numbered from 1 (0 is the priming event), kept for a while
 * and bounded, so that a client whose stream broke can reconnect with
 * `Last-Event-ID` and get what it missed, on any instance sharing the store.
 * A stream is looked up by its session too: one session cannot replay
 * another's events.
 */

import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import { ExpiringMap } from './expiring-map.js';

export interface StoredEvent {
  seq: number;
  message: JsonRpcMessage;
}

/** What a follower hears: an event, or the stream's end (its response was sent, or it was cancelled). */
export type StreamEvent = StoredEvent | { seq: number; end: true };

export interface StreamReplay {
  /** The events after the one asked for, in order. */
  events: StoredEvent[];
  /** Whether the stream has ended (nothing more will follow). */
  ended: boolean;
}

export interface EventStore {
  /** Registers a stream (its priming event went out): from now on it can be resumed from event 0. */
  open(sessionId: string, streamId: string): Promise<void>;
  append(sessionId: string, streamId: string, event: StoredEvent): Promise<void>;
  /** Marks the stream ended after event `seq`. */
  end(sessionId: string, streamId: string, seq: number): Promise<void>;
  /**
   * The events of the session's stream after `seq`; undefined when they cannot
   * all be given (the stream is unknown, expired, or the events after `seq`
   * no longer all held).
   */
  after(sessionId: string, streamId: string, seq: number): Promise<StreamReplay | undefined>;
  /** Hears what is appended to the stream from now on (on any instance sharing the store) until the returned function is called; `ready` once listening. */
  follow(sessionId: string, streamId: string, listener: (event: StreamEvent) => void): { stop: () => void; ready: Promise<void> };
}

export interface EventStoreLimits {
  /** Most events kept per stream; older ones fall out (default 1000). */
  maxEventsPerStream?: number;
  /** How long a stream's events are kept after its last event (default 10 minutes). */
  ttlMs?: number;
}

export interface MemoryEventStoreOptions extends EventStoreLimits {
  /** Most streams kept at once; the least recently used go first (default 10,000). */
  maxStreams?: number;
}

interface HeldStream {
  events: StoredEvent[];
  /** The seq of the first event that fell out of the buffer (0: none has). */
  droppedThrough: number;
  ended: boolean;
}

/** For one process: bounded in streams, events per stream and time. */
export class MemoryEventStore implements EventStore {
  private readonly streams: ExpiringMap<string, HeldStream>;
  /** Followers by stream, apart from the events: following a stream does not make it known. */
  private readonly followers = new Map<string, Set<(event: StreamEvent) => void>>();
  private readonly maxEvents: number;
  private readonly ttlMs: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.maxEvents = options.maxEventsPerStream ?? 1000;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.streams = new ExpiringMap({ maxEntries: options.maxStreams ?? 10_000 });
  }

  private key(sessionId: string, streamId: string): string {
    return `${sessionId}\n${streamId}`;
  }

  private held(sessionId: string, streamId: string): HeldStream | undefined {
    return this.streams.get(this.key(sessionId, streamId), this.streams.now() + this.ttlMs);
  }

  private heldOrNew(sessionId: string, streamId: string): HeldStream {
    const existing = this.held(sessionId, streamId);
    if (existing) return existing;
    const made: HeldStream = { events: [], droppedThrough: 0, ended: false };
    // Full: the least recently used stream makes room (its client can no longer resume).
    this.streams.set(this.key(sessionId, streamId), made, this.streams.now() + this.ttlMs, () => true);
    return made;
  }

  open(sessionId: string, streamId: string): Promise<void> {
    this.heldOrNew(sessionId, streamId);
    return Promise.resolve();
  }

  append(sessionId: string, streamId: string, event: StoredEvent): Promise<void> {
    const stream = this.heldOrNew(sessionId, streamId);
    stream.events.push(event);
    if (stream.events.length > this.maxEvents) stream.droppedThrough = stream.events.shift()!.seq;
    this.tell(sessionId, streamId, event);
    return Promise.resolve();
  }

  end(sessionId: string, streamId: string, seq: number): Promise<void> {
    const stream = this.heldOrNew(sessionId, streamId);
    stream.ended = true;
    this.tell(sessionId, streamId, { seq, end: true });
    return Promise.resolve();
  }

  after(sessionId: string, streamId: string, seq: number): Promise<StreamReplay | undefined> {
    const stream = this.held(sessionId, streamId);
    if (!stream || seq < stream.droppedThrough) return Promise.resolve(undefined);
    return Promise.resolve({ events: stream.events.filter((e) => e.seq > seq), ended: stream.ended });
  }

  follow(sessionId: string, streamId: string, listener: (event: StreamEvent) => void): { stop: () => void; ready: Promise<void> } {
    const key = this.key(sessionId, streamId);
    let set = this.followers.get(key);
    if (!set) this.followers.set(key, (set = new Set()));
    set.add(listener);
    const stop = (): void => {
      set.delete(listener);
      if (set.size === 0 && this.followers.get(key) === set) this.followers.delete(key);
    };
    return { stop, ready: Promise.resolve() };
  }

  private tell(sessionId: string, streamId: string, event: StreamEvent): void {
    const set = this.followers.get(this.key(sessionId, streamId));
    if (set) for (const listener of [...set]) listener(event);
  }
}
