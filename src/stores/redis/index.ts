/**
 * Every shared store on one Redis (`tessera-mcp/redis`): give the result to
 * `new McpServer(info, { stores: redisStores({ url }) })` on every instance,
 * and any instance can take any request — retries, single-use states, tasks,
 * 2025-11-25 sessions and their resumable streams, change notifications. On a
 * Redis Cluster: `redisStores({ url: <a node>, cluster: true })`. The library needs no Redis
 * client unless this module is imported.
 */

import type { EventStoreLimits } from '../event-store.js';
import type { SharedStores } from '../shared-stores.js';
import { RedisChangeBus } from './change-bus.js';
import { RedisConnection, type RedisConnectionOptions } from './connection.js';
import { RedisEventStore } from './event-store.js';
import { RedisRedemptionStore } from './redemption-store.js';
import { RedisSessionBus } from './session-bus.js';
import { RedisSessionStore, type RedisSessionStoreOptions } from './session-store.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from './task-store.js';

export interface RedisStoresOptions extends RedisConnectionOptions, RedisTaskStoreOptions, RedisSessionStoreOptions {
  /** Bounds of the SSE replay buffer (`events`). */
  events?: EventStoreLimits;
}

export interface RedisStores extends Required<SharedStores> {
  /** Redemptions with a generation (sealed into every state), so a Redis that lost its data refuses what was sealed before. */
  redemptions: RedisRedemptionStore;
  /** Closes the connections (server shutdown). */
  close(): Promise<void>;
}

export function redisStores(options: RedisStoresOptions = {}): RedisStores {
  const redis = new RedisConnection(options);
  return {
    redemptions: new RedisRedemptionStore(redis),
    tasks: new RedisTaskStore(redis, options),
    sessions: new RedisSessionStore(redis, options),
    sessionBus: new RedisSessionBus(redis),
    events: new RedisEventStore(redis, options.events),
    changes: new RedisChangeBus(redis),
    close: () => redis.close(),
  };
}

export { RedisChangeBus, RedisConnection, RedisEventStore, RedisRedemptionStore, RedisSessionBus, RedisSessionStore, RedisTaskStore };
export type { RedisConnectionOptions, RedisSessionStoreOptions, RedisTaskStoreOptions };
