/**
 * The Redis stores against a real redis-server: the same contracts as the
 * memory stores, what only a shared store does (leases; answers crossing
 * instances, i.e. connections), and an outage: requests fail at once with
 * the 503 error while Redis is down, and work again when it is back.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '../../src/protocol/errors.js';
import { redisStores, type RedisStores } from '../../src/stores/redis/index.js';
import type { TaskEvent } from '../../src/stores/task-store.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { changeBusContract, eventStoreContract, redemptionStoreContract, sessionStoreContract, taskStoreContract } from './contracts.js';
import { resumptionContract } from './resumption-contract.js';

let redis: RedisServer;
const opened: RedisStores[] = [];

function stores(prefix = `t${opened.length}:`): RedisStores {
  const made = redisStores({ url: redis.url, prefix });
  opened.push(made);
  return made;
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await redis.stop();
});

redemptionStoreContract('RedisRedemptionStore', () => stores().redemptions);
taskStoreContract('RedisTaskStore', () => stores().tasks, true);
sessionStoreContract('RedisSessionStore', () => stores().sessions);
changeBusContract('RedisChangeBus', () => stores().changes);
resumptionContract('RedisTaskStore, a connection per server', () => {
  const prefix = `resume${opened.length}:`;
  return () => stores(prefix).tasks;
});
eventStoreContract('RedisEventStore', (maxEventsPerStream) => {
  const made = redisStores({ url: redis.url, prefix: `ev${opened.length}:`, events: { maxEventsPerStream } });
  opened.push(made);
  return made.events;
});

describe('what only a shared store does', () => {
  it('a redemption made through one connection is seen by another (two instances)', async () => {
    const a = stores('shared:');
    const b = stores('shared:');
    expect(await a.redemptions.redeemOnce('s-1', Date.now() + 60_000)).toBe(true);
    expect(await b.redemptions.redeemOnce('s-1', Date.now() + 60_000)).toBe(false);
  });

  it("a task's events published through one connection reach the listener on another", async () => {
    const a = stores('events:');
    const b = stores('events:');
    const heard: TaskEvent[] = [];
    await a.tasks.listen('t-1', (event) => heard.push(event));
    await b.tasks.notify('t-1', { type: 'cancelled' });
    await expect.poll(() => heard).toEqual([{ type: 'cancelled' }]);
  });

  it("a lease claimed through one connection keeps another's claim out until it lapses", async () => {
    const a = stores('leases:');
    const b = stores('leases:');
    expect(await a.tasks.leases!.claim('t-shared', 'server-a', 150)).toBe(true);
    expect(await b.tasks.leases!.claim('t-shared', 'server-b', 150)).toBe(false);
    expect(await b.tasks.leases!.held('t-shared')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await b.tasks.leases!.claim('t-shared', 'server-b', 150)).toBe(true);
    expect(await a.tasks.leases!.renew('t-shared', 'server-a', 150)).toBe(false);
  });
});

describe('an outage', () => {
  it('while Redis is down every call fails at once with the 503 error; when it is back, calls work again', async () => {
    const { redemptions } = stores('outage:');
    expect(await redemptions.redeemOnce('before', Date.now() + 60_000)).toBe(true);
    await redis.stop();
    const failure = await redemptions.redeemOnce('during', Date.now() + 60_000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).condition).toBe('overloaded');
    expect((failure as McpError).message).toContain('Redis');
    await redis.start();
    let after: unknown;
    for (let i = 0; i < 100; i++) {
      after = await redemptions.redeemOnce(`after-${i}`, Date.now() + 60_000).catch((error: unknown) => error);
      if (after === true) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(after).toBe(true);
  });
});
