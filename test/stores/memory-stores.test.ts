/**
 * The in-memory stores: the store contracts, plus what only memory does
 * (expiry by an injected clock, bounds, least-recently-used eviction), and the
 * one resource-matching rule both eras use.
 */

import { describe, expect, it } from 'vitest';
import { MemoryChangeBus, coversResource } from '../../src/stores/change-bus.js';
import { MemoryEventStore } from '../../src/stores/event-store.js';
import { ExpiringMap } from '../../src/stores/expiring-map.js';
import { MemoryRedemptionStore } from '../../src/stores/redemption-store.js';
import { MemorySessionStore } from '../../src/stores/session-store.js';
import { MemoryTaskStore, type TaskData } from '../../src/stores/task-store.js';
import { changeBusContract, eventStoreContract, redemptionStoreContract, sessionStoreContract, taskStoreContract } from './contracts.js';
import { resumptionContract } from './resumption-contract.js';

redemptionStoreContract('MemoryRedemptionStore', () => new MemoryRedemptionStore());
taskStoreContract('MemoryTaskStore', () => new MemoryTaskStore(), true);
sessionStoreContract('MemorySessionStore', () => new MemorySessionStore());
changeBusContract('MemoryChangeBus', () => new MemoryChangeBus());
eventStoreContract('MemoryEventStore', (maxEventsPerStream) => new MemoryEventStore({ maxEventsPerStream }));
resumptionContract('MemoryTaskStore shared by servers of one process', () => {
  const store = new MemoryTaskStore();
  return () => store;
});

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('ExpiringMap', () => {
  it('forgets an entry at its expiry, and tells why', () => {
    const time = clock();
    const dropped: string[] = [];
    const map = new ExpiringMap<string, number>({ clock: time.now, onDrop: (key, _value, why) => dropped.push(`${key}:${why}`) });
    map.set('a', 1, time.now() + 100);
    time.advance(99);
    expect(map.get('a')).toBe(1);
    time.advance(1);
    expect(map.get('a')).toBeUndefined();
    expect(dropped).toEqual(['a:expired']);
  });

  it('moves an expiry forward when read with refreshUntil', () => {
    const time = clock();
    const map = new ExpiringMap<string, number>({ clock: time.now });
    map.set('a', 1, time.now() + 100);
    time.advance(90);
    expect(map.get('a', time.now() + 100)).toBe(1);
    time.advance(90);
    expect(map.get('a')).toBe(1);
  });

  it('when full, drops expired entries first, then the least recently used one it may evict, else refuses', () => {
    const time = clock();
    const map = new ExpiringMap<string, string>({ clock: time.now, maxEntries: 2 });
    map.set('old', 'x', time.now() + 10);
    map.set('b', 'y', time.now() + 1000);
    time.advance(10);
    expect(map.set('c', 'z', time.now() + 1000)).toBe(true); // 'old' expired: room without evicting
    expect(map.size).toBe(2);
    time.advance(1);
    map.get('b'); // b used after c
    expect(map.set('d', 'w', time.now() + 1000, () => false)).toBe(false);
    expect(map.set('d', 'w', time.now() + 1000, () => true)).toBe(true);
    expect(map.get('c')).toBeUndefined(); // the least recently used went
    expect(map.get('b')).toBe('y');
  });

  it('setIfAbsent sets only where no live value is', () => {
    const time = clock();
    const map = new ExpiringMap<string, number>({ clock: time.now });
    expect(map.setIfAbsent('k', 1, time.now() + 5)).toBe(true);
    expect(map.setIfAbsent('k', 2, time.now() + 5)).toBe(false);
    time.advance(5);
    expect(map.setIfAbsent('k', 3, time.now() + 5)).toBe(true);
    expect(map.get('k')).toBe(3);
  });
});

describe('the memory stores, where only memory decides', () => {
  it('MemoryRedemptionStore: an id redeemed again after its expiry is a new redemption', async () => {
    const time = clock();
    const store = new MemoryRedemptionStore(time.now);
    expect(await store.redeemOnce('s', time.now() + 50)).toBe(true);
    time.advance(49);
    expect(await store.redeemOnce('s', time.now() + 50)).toBe(false);
    time.advance(1);
    expect(await store.redeemOnce('s', time.now() + 50)).toBe(true);
  });

  it('MemoryTaskStore: a task is gone at createdAt + ttlMs, and a full store refuses new tasks', async () => {
    const time = clock();
    const store = new MemoryTaskStore({ clock: time.now, maxTasks: 1 });
    const base: TaskData = { taskId: 't1', principal: '', status: 'working', createdAt: time.now(), lastUpdatedAt: time.now(), ttlMs: 100, pollIntervalMs: 10 };
    expect(await store.create(base, 10)).toBe('created');
    expect(await store.create({ ...base, taskId: 't2', principal: 'other' }, 10)).toBe('store-full');
    time.advance(99);
    expect(await store.get('t1')).toBeDefined();
    time.advance(1);
    expect(await store.get('t1')).toBeUndefined();
    expect(await store.create({ ...base, taskId: 't3', createdAt: time.now() }, 10)).toBe('created');
  });

  it('MemorySessionStore: idle sessions end; when full, only the newcomer\'s own idle sessions make room', async () => {
    const time = clock();
    const ended: string[] = [];
    const busy = new Set<string>(['a1']);
    const store = new MemorySessionStore({ clock: time.now, maxSessions: 3, idleTimeoutMs: 1000, evictable: (id) => !busy.has(id), onEnd: (id, why) => ended.push(`${id}:${why}`) });
    const data = (id: string, principal?: string) => ({ id, protocolVersion: '2025-11-25', clientCapabilities: {}, initialized: true, subscriptions: [], ...(principal ? { principal } : {}) });
    expect(await store.create(data('a1', 'alice'), 10)).toBe('created');
    expect(await store.create(data('a2', 'alice'), 10)).toBe('created');
    expect(await store.create(data('b1', 'bob'), 10)).toBe('created');
    expect(await store.create(data('a3', 'alice'), 10)).toBe('created'); // alice's idle a2 made room; a1 is busy
    expect(ended).toEqual(['a2:evicted']);
    expect(await store.create(data('c1', 'carol'), 10)).toBe('store-full'); // nothing of carol's to end: bob's idle b1 stays
    expect(await store.create(data('x1'), 10)).toBe('store-full'); // nor for an anonymous caller
    expect(await store.get('b1')).toBeDefined();
    time.advance(999);
    expect(await store.get('a1')).toBeDefined(); // reading counts as activity
    time.advance(2);
    expect(await store.get('a3')).toBeUndefined();
    expect(await store.get('a1')).toBeDefined();
    expect(ended).toContain('a3:idle');
  });

  it('MemorySessionStore: an anonymous newcomer ends only a half-open anonymous session (initialize without initialized)', async () => {
    const ended: string[] = [];
    const store = new MemorySessionStore({ maxSessions: 2, evictable: () => true, onEnd: (id) => ended.push(id) });
    const data = (id: string, initialized: boolean) => ({ id, protocolVersion: '2025-11-25', clientCapabilities: {}, initialized, subscriptions: [] });
    expect(await store.create(data('legit', true), 10)).toBe('created');
    for (let i = 0; i < 20; i++) expect(await store.create(data(`flood${i}`, false), 10)).toBe('created');
    expect(ended).toEqual(Array.from({ length: 19 }, (_, i) => `flood${i}`));
    expect(await store.get('legit')).toBeDefined();
    await store.update('flood19', { initialized: true });
    expect(await store.create(data('late', false), 10)).toBe('store-full');
  });

  it('MemorySessionStore: a principal beyond its share ends its own least recently used idle session, or is refused', async () => {
    const busy = new Set<string>(['a1', 'a2']);
    const store = new MemorySessionStore({ evictable: (id) => !busy.has(id) });
    const data = (id: string, principal: string) => ({ id, protocolVersion: '2025-11-25', clientCapabilities: {}, initialized: true, subscriptions: [], principal });
    expect(await store.create(data('a1', 'alice'), 2)).toBe('created');
    expect(await store.create(data('a2', 'alice'), 2)).toBe('created');
    expect(await store.create(data('a3', 'alice'), 2)).toBe('principal-full');
    busy.delete('a1');
    expect(await store.create(data('a3', 'alice'), 2)).toBe('created');
    expect(await store.get('a1')).toBeUndefined();
    expect(await store.get('a2')).toBeDefined();
  });
});

describe('coversResource, the one matching rule of both eras', () => {
  it.each([
    ['file:///a', 'file:///a', true],
    ['file:///a', 'file:///a/b', true],
    ['file:///a', 'file:///ab', false],
    ['file:///a/', 'file:///a/b', true],
    ['https://h/p?', 'https://h/p?x=1', true],
    ['https://h/p#', 'https://h/p#s', true],
    ['https://h/p', 'https://h/p?x=1', false],
    ['file:///a/b', 'file:///a', false],
  ])('a subscription to %s covers %s: %s', (subscribed, uri, covered) => {
    expect(coversResource(subscribed, uri)).toBe(covered);
  });
});
