/**
 * The Redis stores on a real Redis Cluster (three masters, a replica each,
 * started here): the same contracts as on one Redis and on memory.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStores, type RedisStores } from '../../src/stores/redis/index.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { changeBusContract, eventStoreContract, redemptionStoreContract, sessionStoreContract, taskStoreContract } from './contracts.js';
import { resumptionContract } from './resumption-contract.js';

let cluster: RedisCluster;
const opened: RedisStores[] = [];

function stores(prefix = `t${opened.length}:`): RedisStores {
  const made = redisStores({ url: cluster.url, cluster: { nodes: cluster.urls }, prefix });
  opened.push(made);
  return made;
}

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await cluster?.stop();
});

redemptionStoreContract('RedisRedemptionStore on a cluster', () => stores().redemptions);
taskStoreContract('RedisTaskStore on a cluster', () => stores().tasks, true);
sessionStoreContract('RedisSessionStore on a cluster', () => stores().sessions);
changeBusContract('RedisChangeBus on a cluster', () => stores().changes);
resumptionContract('RedisTaskStore on a cluster, a connection per server', () => {
  const prefix = `resume${opened.length}:`;
  return () => stores(prefix).tasks;
});
eventStoreContract('RedisEventStore on a cluster', (maxEventsPerStream) => {
  const made = redisStores({ url: cluster.url, cluster: true, prefix: `ev${opened.length}:`, events: { maxEventsPerStream } });
  opened.push(made);
  return made.events;
});

/** The masters now, and which of them hold keys matching `pattern`. */
async function mastersHolding(pattern: string): Promise<{ masters: number[]; holding: number[] }> {
  const masters = (await cluster.nodes()).filter((node) => node.role === 'master' && !node.failed).map((node) => node.port);
  const holding: number[] = [];
  for (const port of masters) if ((await cluster.keysOn(port, pattern)).length > 0) holding.push(port);
  return { masters, holding };
}

describe('placement on the slots', () => {
  it("keeps a task's hash, lease and checkpoint in one slot, and spreads unrelated tasks over every master", async () => {
    const { tasks } = stores('spread-tasks:');
    const now = Date.now();
    for (let n = 0; n < 24; n++) {
      const taskId = `task-${n}-${Math.random().toString(36).slice(2)}`;
      const created = await tasks.create({ taskId, principal: 'alice', status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, pollIntervalMs: 1000, call: { tool: 'x', arguments: {}, meta: {} } }, 100);
      expect(created).toBe('created');
      expect(await tasks.leases!.claim(taskId, 'me', 60_000)).toBe(true);
      expect(await tasks.checkpoints!.saveStep(taskId, 'me', 'one', 1, now + 60_000)).toBe(true);
      const port = await cluster.masterOf(`spread-tasks:task:{${taskId}}`);
      expect((await cluster.keysOn(port, `spread-tasks:task:{${taskId}}*`)).sort()).toEqual(
        [`spread-tasks:task:{${taskId}}`, `spread-tasks:task:{${taskId}}:checkpoint`, `spread-tasks:task:{${taskId}}:lease`],
      );
    }
    const { masters, holding } = await mastersHolding('spread-tasks:task:*');
    expect(holding.sort()).toEqual(masters.sort());
  });

  it('spreads single-use redemptions over every master, each beside the generation it was sealed under', async () => {
    const { redemptions } = stores('spread-states:');
    for (let n = 0; n < 48; n++) {
      const generation = await redemptions.generation();
      expect(await redemptions.redeemOnce(`state-${n}`, Date.now() + 60_000, generation)).toBe(true);
      expect(await redemptions.redeemOnce(`state-${n}`, Date.now() + 60_000, generation)).toBe(false);
    }
    const { masters, holding } = await mastersHolding('spread-states:redeemed:*');
    expect(holding.sort()).toEqual(masters.sort());
    for (const port of masters) {
      for (const key of await cluster.keysOn(port, 'spread-states:redeemed:*')) {
        const tag = /\{r\d{3}\}/.exec(key)![0];
        expect(await cluster.keysOn(port, `spread-states:generation:${tag.replace(/[{}]/g, '\\$&')}`)).toHaveLength(1);
      }
    }
  });

  it('refuses a state sealed under one Redis (no bucket in its generation): whether it was redeemed is unknown', async () => {
    const { redemptions } = stores('from-one-redis:');
    expect(await redemptions.redeemOnce('old-state', Date.now() + 60_000, 'AAAAAAAA')).toBe(false);
    expect(await redemptions.generation('AAAAAAAA')).not.toBe('AAAAAAAA');
  });
});
