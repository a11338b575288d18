/**
 * The Redis stores against a real redis-server: the same contracts as the
 * memory stores, what only a shared store does (leases; answers crossing
 * instances, i.e. connections), generations (one per prefix, a new one after
 * Redis restarted empty), a frozen Redis (every call fails with the 503
 * error after the command timeout) and an outage: requests fail at once with
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

describe('generations', () => {
  it('one per prefix, shared by every connection on it', async () => {
    const a = stores('gen-shared:');
    const b = stores('gen-shared:');
    const other = stores('gen-other:');
    const generation = await a.redemptions.generation();
    expect(await b.redemptions.generation()).toBe(generation);
    expect(await other.redemptions.generation()).not.toBe(generation);
    expect(await b.redemptions.redeemOnce('g-1', Date.now() + 60_000, generation)).toBe(true);
    expect(await a.redemptions.redeemOnce('g-1', Date.now() + 60_000, generation)).toBe(false);
  });

  it('a Redis restarted empty has a new one: what was redeemed under the old one is refused, not redeemed again', async () => {
    const { redemptions } = stores('gen-restart:');
    const before = await redemptions.generation();
    expect(await redemptions.redeemOnce('paid', Date.now() + 60_000, before)).toBe(true);
    await redis.stop();
    try {
      await expect(redemptions.redeemOnce('during', Date.now() + 60_000, before)).rejects.toBeInstanceOf(McpError);
    } finally {
      await redis.start();
    }
    let after: unknown;
    for (let i = 0; i < 100; i++) {
      after = await redemptions.generation().catch((error: unknown) => error);
      if (typeof after === 'string') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(typeof after).toBe('string');
    expect(after).not.toBe(before);
    expect(await redemptions.redeemOnce('paid', Date.now() + 60_000, before)).toBe(false);
    expect(await redemptions.redeemOnce('new', Date.now() + 60_000, after as string)).toBe(true);
  });
});

describe('a Redis that stops answering (SIGSTOP)', () => {
  it('fails every kind of call with the 503 error after the command timeout, never a hang, and works again after SIGCONT', async () => {
    const made = redisStores({ url: redis.url, prefix: 'frozen:', commandTimeoutMs: 300 });
    opened.push(made);
    expect(await made.redemptions.redeemOnce('before', Date.now() + 60_000)).toBe(true);
    redis.freeze();
    try {
      // Each call's outcome: its error, 'answered', or 'hung' after a guard far above the timeout (not a threshold).
      const outcome = (call: Promise<unknown>): Promise<unknown> =>
        Promise.race([call.then(() => 'answered', (error: unknown) => error), new Promise((resolve) => setTimeout(() => resolve('hung'), 10_000))]);
      const calls: Array<[string, Promise<unknown>]> = [
        ['redeemOnce', outcome(made.redemptions.redeemOnce('during', Date.now() + 60_000))],
        ['generation', outcome(made.redemptions.generation())],
        ['tasks.get', outcome(made.tasks.get('t-frozen'))],
        ['tasks.listen (a new subscription)', outcome(made.tasks.listen('t-frozen', () => undefined))],
        ['sessions.get', outcome(made.sessions.get('s-frozen'))],
        ['changes.publish', outcome(made.changes.publish({ type: 'resource', uri: 'notes://frozen' }))],
        ['events.after', outcome(made.events.after('s', 'st', 0))],
      ];
      for (const [name, call] of calls) {
        const failure = await call;
        expect(failure, name).toBeInstanceOf(McpError);
        expect((failure as McpError).condition, name).toBe('overloaded');
      }
    } finally {
      await redis.thaw();
    }
    let after: unknown;
    for (let i = 0; i < 100; i++) {
      after = await made.redemptions.redeemOnce(`after-${i}`, Date.now() + 60_000).catch((error: unknown) => error);
      if (after === true) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(after).toBe(true);
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
