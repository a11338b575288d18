/**
 * The replay buffer of resumable SSE streams on Redis: one list per stream
 * (JSON entries: the opening, each event, the end), trimmed to the newest
 * `maxEventsPerStream` and expiring `ttlMs` after its last entry; every entry
 * is also published on the stream's channel in the same script, so a
 * follower on any instance hears it in order. The channel is named like the
 * list, so on a cluster with sharded pub/sub (SPUBLISH) it is in the list's
 * slot, where a script may publish on it.
 */

import type { EventStore, EventStoreLimits, StoredEvent, StreamEvent, StreamReplay } from '../event-store.js';
import type { RedisConnection } from './connection.js';

// KEYS: the list. ARGV: entry JSON, max entries, ttl ms, channel (prefixed), PUBLISH or SPUBLISH.
const APPEND = `
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call(ARGV[5], ARGV[4], ARGV[1])
return 1`;

type Entry = { seq: number; open: true } | StoredEvent | { seq: number; end: true };

export class RedisEventStore implements EventStore {
  private readonly maxEvents: number;
  private readonly ttlMs: number;

  constructor(
    private readonly redis: RedisConnection,
    options: EventStoreLimits = {},
  ) {
    this.maxEvents = options.maxEventsPerStream ?? 1000;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
  }

  private name(sessionId: string, streamId: string): string {
    return `events:${sessionId}:${streamId}`;
  }

  private async push(sessionId: string, streamId: string, entry: Entry): Promise<void> {
    const name = this.name(sessionId, streamId);
    // The newest events are kept; the end is kept beside them.
    const keep = 'end' in entry ? this.maxEvents + 1 : this.maxEvents;
    await this.redis.script(APPEND, [this.redis.prefix + name], [JSON.stringify(entry), keep, this.ttlMs, this.redis.prefix + name, await this.redis.publishCommand()]);
  }

  open(sessionId: string, streamId: string): Promise<void> {
    return this.push(sessionId, streamId, { seq: 0, open: true });
  }

  append(sessionId: string, streamId: string, event: StoredEvent): Promise<void> {
    return this.push(sessionId, streamId, event);
  }

  end(sessionId: string, streamId: string, seq: number): Promise<void> {
    return this.push(sessionId, streamId, { seq, end: true });
  }

  async after(sessionId: string, streamId: string, seq: number): Promise<StreamReplay | undefined> {
    const raw = await this.redis.command<string[]>(['LRANGE', this.redis.prefix + this.name(sessionId, streamId), 0, -1]);
    const entries = raw.map((text) => JSON.parse(text) as Entry);
    const first = entries.find((e) => !('end' in e));
    // Unknown or expired, or the events right after `seq` fell out of the list.
    if (!first || first.seq > seq + 1) return undefined;
    return {
      events: entries.filter((e): e is StoredEvent => 'message' in e && e.seq > seq),
      ended: entries.some((e) => 'end' in e),
    };
  }

  follow(sessionId: string, streamId: string, listener: (event: StreamEvent) => void): { stop: () => void; ready: Promise<void> } {
    const { stop, subscribed } = this.redis.subscribe(this.name(sessionId, streamId), (text) => {
      const entry = JSON.parse(text) as Entry;
      if (!('open' in entry)) listener(entry);
    });
    return { stop, ready: subscribed };
  }
}
