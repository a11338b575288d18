/** The change bus on Redis pub/sub: a change published by any instance reaches every instance's listeners. */

import type { Change, ChangeBus } from '../change-bus.js';
import type { RedisConnection } from './connection.js';

export class RedisChangeBus implements ChangeBus {
  constructor(private readonly redis: RedisConnection) {}

  publish(change: Change): Promise<void> {
    return this.redis.publish('changes', JSON.stringify(change));
  }

  subscribe(listener: (change: Change) => void): () => void {
    const { stop, subscribed } = this.redis.subscribe('changes', (message) => listener(JSON.parse(message) as Change));
    // Changes published before Redis confirmed the subscription are not heard; nothing waits on it.
    subscribed.catch(() => undefined);
    return stop;
  }
}
