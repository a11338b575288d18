/** The session bus on Redis pub/sub: every instance hears every session event, and acts on the sessions it holds. */

import type { SessionBus, SessionEvent } from '../session-bus.js';
import type { RedisConnection } from './connection.js';

export class RedisSessionBus implements SessionBus {
  readonly shared = true;

  constructor(private readonly redis: RedisConnection) {}

  publish(event: SessionEvent): Promise<void> {
    return this.redis.publish('session-events', JSON.stringify(event));
  }

  subscribe(listener: (event: SessionEvent) => void): () => void {
    const { stop, subscribed } = this.redis.subscribe('session-events', (message) => listener(JSON.parse(message) as SessionEvent));
    subscribed.catch(() => undefined);
    return stop;
  }
}
