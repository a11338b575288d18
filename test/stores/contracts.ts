/**
 * What every implementation of a store seam must do, whatever keeps the data
 * (memory here; Redis in the stores issue): each contract takes a factory and
 * registers its tests, so a new implementation runs the same ones.
 */

import { describe, expect, it } from 'vitest';
import type { ChangeBus, Change } from '../../src/stores/change-bus.js';
import type { EventStore, StreamEvent } from '../../src/stores/event-store.js';
import type { RedemptionStore } from '../../src/stores/redemption-store.js';
import type { SessionData, SessionStore } from '../../src/stores/session-store.js';
import type { TaskData, TaskEvent, TaskStore } from '../../src/stores/task-store.js';

const HOUR = 60 * 60_000;
let unique = 0;
const fresh = (prefix: string): string => `${prefix}-${++unique}-${Math.random().toString(36).slice(2)}`;

export function redemptionStoreContract(name: string, make: () => RedemptionStore | Promise<RedemptionStore>): void {
  describe(`${name} (RedemptionStore)`, () => {
    it('redeems an id once: true the first time, false ever after', async () => {
      const store = await make();
      const id = fresh('state');
      expect(await store.redeemOnce(id, Date.now() + HOUR)).toBe(true);
      expect(await store.redeemOnce(id, Date.now() + HOUR)).toBe(false);
      expect(await store.redeemOnce(id, Date.now() + HOUR)).toBe(false);
    });

    it('keeps ids apart', async () => {
      const store = await make();
      expect(await store.redeemOnce(fresh('a'), Date.now() + HOUR)).toBe(true);
      expect(await store.redeemOnce(fresh('b'), Date.now() + HOUR)).toBe(true);
    });

    it('keeps the answer of a redeemed round, when it keeps answers at all', async () => {
      const store = await make();
      if (!store.saveResult || !store.savedResult) return;
      const id = fresh('answered');
      expect(await store.redeemOnce(id, Date.now() + HOUR)).toBe(true);
      expect(await store.savedResult(id)).toBeUndefined();
      await store.saveResult(id, { resultType: 'complete', content: [{ type: 'text', text: 'deployed' }] }, Date.now() + HOUR);
      expect(await store.savedResult(id)).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'deployed' }] });
      expect(await store.redeemOnce(id, Date.now() + HOUR)).toBe(false);
    });

    it('with a generation, redeems only under its own: another (a state sealed before the store lost its records) is refused and not recorded', async () => {
      const store = await make();
      if (!store.generation) return;
      const generation = await store.generation();
      // Canonical base64url (a whole number of 3-byte groups here), the same while the store's records live.
      expect(generation).toMatch(/^(?:[A-Za-z0-9_-]{4}){2,}$/);
      expect(await store.generation(generation)).toBe(generation);
      const id = fresh('generation');
      const other = generation === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';
      expect(await store.redeemOnce(id, Date.now() + HOUR, other)).toBe(false);
      expect(await store.redeemOnce(id, Date.now() + HOUR, generation)).toBe(true);
      expect(await store.redeemOnce(id, Date.now() + HOUR, generation)).toBe(false);
      // Without a generation (what DPoP proof ids use) it records as before.
      expect(await store.redeemOnce(fresh('plain'), Date.now() + HOUR)).toBe(true);
    });

    it('lets exactly one of many concurrent redemptions of one id win', async () => {
      const store = await make();
      const id = fresh('race');
      const results = await Promise.all(Array.from({ length: 20 }, () => store.redeemOnce(id, Date.now() + HOUR)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}

function task(overrides: Partial<TaskData> = {}): TaskData {
  const now = Date.now();
  return { taskId: fresh('task'), principal: 'alice', status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: HOUR, pollIntervalMs: 1000, ...overrides };
}

/** `shared`: the store is meant for several servers, so it must have leases and checkpoints (without, those tests are skipped). */
export function taskStoreContract(name: string, make: () => TaskStore | Promise<TaskStore>, shared = false): void {
  /** The store, with its leases and checkpoints; undefined for a store of one process that has none. */
  const makeShared = async (): Promise<(TaskStore & Required<Pick<TaskStore, 'leases' | 'checkpoints'>>) | undefined> => {
    const store = await make();
    if (shared) {
      expect(store.leases, `${name} has leases`).toBeDefined();
      expect(store.checkpoints, `${name} has checkpoints`).toBeDefined();
    }
    return store.leases && store.checkpoints ? (store as TaskStore & Required<Pick<TaskStore, 'leases' | 'checkpoints'>>) : undefined;
  };

  describe(`${name} (TaskStore)`, () => {
    it('gives back the task as created, as data the caller cannot change in the store', async () => {
      const store = await make();
      const created = task({ inputRequests: { q: { method: 'roots/list' } } });
      expect(await store.create(created, 10)).toBe('created');
      const read = await store.get(created.taskId);
      expect(read).toEqual(created);
      read!.status = 'completed';
      expect((await store.get(created.taskId))!.status).toBe('working');
      expect(await store.get(fresh('unknown'))).toBeUndefined();
    });

    it("refuses a principal's task beyond its share, and keeps principals apart", async () => {
      const store = await make();
      const alice = fresh('alice');
      expect(await store.create(task({ principal: alice }), 2)).toBe('created');
      expect(await store.create(task({ principal: alice }), 2)).toBe('created');
      expect(await store.create(task({ principal: alice }), 2)).toBe('principal-full');
      expect(await store.create(task({ principal: fresh('bob') }), 2)).toBe('created');
    });

    it('transitions compare-and-set: only from a listed status, and not twice', async () => {
      const store = await make();
      const created = task();
      await store.create(created, 10);
      const done = await store.transition(created.taskId, ['working', 'input_required'], { status: 'completed', result: { content: [] } });
      expect(done?.status).toBe('completed');
      expect(done?.result).toEqual({ content: [] });
      expect(done!.lastUpdatedAt).toBeGreaterThanOrEqual(created.lastUpdatedAt);
      expect(await store.transition(created.taskId, ['working', 'input_required'], { status: 'cancelled' })).toBeUndefined();
      expect((await store.get(created.taskId))!.status).toBe('completed');
      expect(await store.transition(fresh('unknown'), ['working'], { status: 'failed' })).toBeUndefined();
    });

    it('lets exactly one of concurrent transitions from the same status win', async () => {
      const store = await make();
      const created = task();
      await store.create(created, 10);
      const outcomes = await Promise.all([
        store.transition(created.taskId, ['working'], { status: 'completed' }),
        store.transition(created.taskId, ['working'], { status: 'cancelled' }),
        store.transition(created.taskId, ['working'], { status: 'failed' }),
      ]);
      expect(outcomes.filter((o) => o !== undefined)).toHaveLength(1);
    });

    it('removes a field a patch sets to undefined (questions once answered)', async () => {
      const store = await make();
      const created = task();
      await store.create(created, 10);
      await store.transition(created.taskId, ['working'], { status: 'input_required', inputRequests: { q: { method: 'roots/list' } } });
      const back = await store.transition(created.taskId, ['input_required'], { status: 'working', inputRequests: undefined });
      expect(back).not.toHaveProperty('inputRequests');
    });

    it('carries events to the listeners of that task only, until they stop listening', async () => {
      const store = await make();
      const a = task();
      const b = task();
      await store.create(a, 10);
      await store.create(b, 10);
      const heardA: TaskEvent[] = [];
      const heardB: TaskEvent[] = [];
      const stopA = await store.listen(a.taskId, (e) => heardA.push(e));
      await store.listen(b.taskId, (e) => heardB.push(e));
      await store.notify(a.taskId, { type: 'answers', answers: { q: { roots: [] } } });
      await expect.poll(() => heardA.length).toBe(1);
      stopA();
      await store.notify(a.taskId, { type: 'cancelled' });
      await store.notify(b.taskId, { type: 'cancelled' });
      await expect.poll(() => heardB.length).toBe(1);
      expect(heardA).toEqual([{ type: 'answers', answers: { q: { roots: [] } } }]);
      expect(heardB).toEqual([{ type: 'cancelled' }]);
    });

    it('gives a lease to one of many concurrent claims; only its owner renews or releases it', async () => {
      const store = await makeShared();
      if (!store) return;
      const { leases } = store;
      const taskId = fresh('leased');
      const claims = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((owner) => leases.claim(taskId, owner, HOUR).then((won) => (won ? owner : undefined))));
      const winners = claims.filter((owner) => owner !== undefined);
      expect(winners).toHaveLength(1);
      const owner = winners[0]!;
      const other = owner === 'a' ? 'b' : 'a';
      expect(await leases.held(taskId)).toBe(true);
      expect(await leases.renew(taskId, other, HOUR)).toBe(false);
      expect(await leases.renew(taskId, owner, HOUR)).toBe(true);
      await leases.release(taskId, other);
      expect(await leases.held(taskId)).toBe(true);
      await leases.release(taskId, owner);
      expect(await leases.held(taskId)).toBe(false);
      expect(await leases.renew(taskId, owner, HOUR)).toBe(false);
      expect(await leases.claim(taskId, other, HOUR)).toBe(true);
    });

    it('lets a lease lapse when it is not renewed', async () => {
      const store = await makeShared();
      if (!store) return;
      const { leases } = store;
      const taskId = fresh('lapsing');
      expect(await leases.claim(taskId, 'a', 100)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await leases.held(taskId)).toBe(false);
      expect(await leases.renew(taskId, 'a', 100)).toBe(false);
      expect(await leases.claim(taskId, 'b', HOUR)).toBe(true);
    });

    it("records a step only for the lease's owner, and gives the steps back", async () => {
      const store = await makeShared();
      if (!store) return;
      const created = task();
      await store.create(created, 10);
      const expiresAt = Date.now() + HOUR;
      expect(await store.checkpoints.read(created.taskId)).toEqual({ steps: {}, answers: {} });
      expect(await store.checkpoints.saveStep(created.taskId, 'a', 'charge', { id: 'ch_1' }, expiresAt)).toBe(false);
      await store.leases.claim(created.taskId, 'a', HOUR);
      expect(await store.checkpoints.saveStep(created.taskId, 'a', 'charge', { id: 'ch_1' }, expiresAt)).toBe(true);
      expect(await store.checkpoints.saveStep(created.taskId, 'b', 'ship', 'late', expiresAt)).toBe(false);
      expect(await store.checkpoints.saveStep(created.taskId, 'a', 'count', 3, expiresAt)).toBe(true);
      const read = await store.checkpoints.read(created.taskId);
      expect(read).toEqual({ steps: { charge: { id: 'ch_1' }, count: 3 }, answers: {} });
      (read.steps.charge as Record<string, unknown>).id = 'changed';
      expect((await store.checkpoints.read(created.taskId)).steps.charge).toEqual({ id: 'ch_1' });
    });

    it('keeps the first answer recorded for each question, and says which answers hold', async () => {
      const store = await makeShared();
      if (!store) return;
      const taskId = fresh('answered');
      const expiresAt = Date.now() + HOUR;
      expect(await store.checkpoints.saveAnswers(taskId, { 'colour-1': { action: 'accept', content: { colour: 'teal' } } }, expiresAt)).toEqual({
        'colour-1': { action: 'accept', content: { colour: 'teal' } },
      });
      const again = await store.checkpoints.saveAnswers(taskId, { 'colour-1': { action: 'decline' }, 'size-2': { action: 'accept', content: { size: 3 } } }, expiresAt);
      expect(again).toEqual({ 'colour-1': { action: 'accept', content: { colour: 'teal' } }, 'size-2': { action: 'accept', content: { size: 3 } } });
      expect((await store.checkpoints.read(taskId)).answers).toEqual(again);
    });

    it('lets what a task recorded expire when it is told to (with the task)', async () => {
      const store = await makeShared();
      if (!store) return;
      const taskId = fresh('short-lived');
      await store.leases.claim(taskId, 'a', HOUR);
      expect(await store.checkpoints.saveStep(taskId, 'a', 'step', 1, Date.now() + 100)).toBe(true);
      await store.checkpoints.saveAnswers(taskId, { 'q-1': 'yes' }, Date.now() + 100);
      expect(await store.checkpoints.read(taskId)).toEqual({ steps: { step: 1 }, answers: { 'q-1': 'yes' } });
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await store.checkpoints.read(taskId)).toEqual({ steps: {}, answers: {} });
    });

    it('lists live resumable tasks whose lease lapsed, and only those', async () => {
      const store = await makeShared();
      if (!store) return;
      const call = { tool: 'job', arguments: {}, meta: {} };
      const lapsed = task({ call });
      const held = task({ call });
      const done = task({ call });
      const plain = task();
      for (const t of [lapsed, held, done, plain]) await store.create(t, 10);
      await store.leases.claim(held.taskId, 'a', HOUR);
      await store.transition(done.taskId, ['working'], { status: 'completed' });
      const found: string[] = [];
      let cursor = 0;
      // Walked in batches of two, to the end (bounded: the store holds a few dozen tasks at most here).
      for (let round = 0; round < 100; round++) {
        const batch = await store.checkpoints.lapsed(cursor, 2);
        found.push(...batch.taskIds);
        cursor = batch.cursor;
        if (cursor === 0) break;
      }
      expect(found).toContain(lapsed.taskId);
      expect(found).not.toContain(held.taskId);
      expect(found).not.toContain(done.taskId);
      expect(found).not.toContain(plain.taskId);
    });
  });
}

function session(overrides: Partial<SessionData> = {}): SessionData {
  return { id: fresh('session'), protocolVersion: '2025-11-25', clientCapabilities: { roots: {} }, initialized: false, subscriptions: [], ...overrides };
}

export function sessionStoreContract(name: string, make: () => SessionStore | Promise<SessionStore>): void {
  describe(`${name} (SessionStore)`, () => {
    it('creates, reads, updates and deletes a session, as data', async () => {
      const store = await make();
      const created = session({ clientInfo: { name: 'c', version: '1' } });
      expect(await store.create(created, 10)).toBe('created');
      expect(await store.get(created.id)).toEqual(created);
      const updated = await store.update(created.id, { initialized: true, logLevel: 'info', subscriptions: ['file:///a'] });
      expect(updated).toEqual({ ...created, initialized: true, logLevel: 'info', subscriptions: ['file:///a'] });
      updated!.subscriptions.push('file:///b');
      expect((await store.get(created.id))!.subscriptions).toEqual(['file:///a']);
      expect(await store.delete(created.id)).toBe(true);
      expect(await store.delete(created.id)).toBe(false);
      expect(await store.get(created.id)).toBeUndefined();
      expect(await store.update(created.id, { initialized: true })).toBeUndefined();
    });

    it('holds at most maxPerPrincipal sessions of one caller; anonymous ones and other callers are not counted against it', async () => {
      const store = await make();
      const alice = fresh('alice');
      const first = session({ principal: alice });
      expect(await store.create(first, 2)).toBe('created');
      expect(await store.create(session({ principal: alice }), 2)).toBe('created');
      expect(await store.create(session({ principal: alice }), 2)).toBe('principal-full');
      expect(await store.create(session({ principal: fresh('bob') }), 2)).toBe('created');
      expect(await store.create(session(), 2)).toBe('created');
      expect(await store.create(session(), 2)).toBe('created');
      expect(await store.create(session(), 2)).toBe('created');
      // An ended session no longer counts.
      await store.delete(first.id);
      expect(await store.create(session({ principal: alice }), 2)).toBe('created');
      expect(await store.create(session({ principal: alice }), 2)).toBe('principal-full');
    });
  });
}

export function changeBusContract(name: string, make: () => ChangeBus | Promise<ChangeBus>): void {
  describe(`${name} (ChangeBus)`, () => {
    it('brings every change to every listener, until it unsubscribes', async () => {
      const bus = await make();
      const first: Change[] = [];
      const second: Change[] = [];
      const stop = bus.subscribe((c) => first.push(c));
      bus.subscribe((c) => second.push(c));
      // A shared bus subscribes in the background: publish a marker until both hear it (bounded).
      const marker: Change = { type: 'resource', uri: 'marker:ready' };
      for (let i = 0; i < 100 && (first.length === 0 || second.length === 0); i++) {
        await bus.publish(marker);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      first.length = 0;
      second.length = 0;
      await bus.publish({ type: 'list', list: 'tools' });
      await expect.poll(() => first.length).toBe(1);
      stop();
      await bus.publish({ type: 'resource', uri: 'file:///a' });
      await expect.poll(() => second.length).toBe(2);
      expect(first).toEqual([{ type: 'list', list: 'tools' }]);
      expect(second).toEqual([{ type: 'list', list: 'tools' }, { type: 'resource', uri: 'file:///a' }]);
    });
  });
}

/** `make(maxEventsPerStream)`: a store keeping that many events per stream. */
export function eventStoreContract(name: string, make: (maxEventsPerStream: number) => EventStore | Promise<EventStore>): void {
  const note = (seq: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: 't', progress: seq } });

  describe(`${name} (EventStore)`, () => {
    it('replays the events after a position, in order, and says when the stream ended', async () => {
      const store = await make(100);
      const session = fresh('session');
      await store.open(session, 'r.a');
      for (let seq = 1; seq <= 3; seq++) await store.append(session, 'r.a', { seq, message: note(seq) });
      expect(await store.after(session, 'r.a', 0)).toEqual({ events: [1, 2, 3].map((seq) => ({ seq, message: note(seq) })), ended: false });
      expect(await store.after(session, 'r.a', 2)).toEqual({ events: [{ seq: 3, message: note(3) }], ended: false });
      const response = { jsonrpc: '2.0' as const, id: 7, result: {} };
      await store.append(session, 'r.a', { seq: 4, message: response });
      await store.end(session, 'r.a', 4);
      expect(await store.after(session, 'r.a', 3)).toEqual({ events: [{ seq: 4, message: response }], ended: true });
      expect(await store.after(session, 'r.a', 4)).toEqual({ events: [], ended: true });
    });

    it('an opened stream with no events yet can be resumed from its priming event', async () => {
      const store = await make(100);
      const session = fresh('session');
      await store.open(session, 'r.empty');
      expect(await store.after(session, 'r.empty', 0)).toEqual({ events: [], ended: false });
    });

    it("knows nothing of an unknown stream, nor of another session's", async () => {
      const store = await make(100);
      const session = fresh('session');
      await store.open(session, 'r.mine');
      await store.append(session, 'r.mine', { seq: 1, message: note(1) });
      expect(await store.after(session, 'r.other', 0)).toBeUndefined();
      expect(await store.after(fresh('intruder'), 'r.mine', 0)).toBeUndefined();
    });

    it('keeps the newest events only, and refuses a replay whose first events fell out', async () => {
      const store = await make(3);
      const session = fresh('session');
      await store.open(session, 's.b');
      for (let seq = 1; seq <= 6; seq++) await store.append(session, 's.b', { seq, message: note(seq) });
      expect((await store.after(session, 's.b', 3))!.events.map((e) => e.seq)).toEqual([4, 5, 6]);
      expect((await store.after(session, 's.b', 5))!.events.map((e) => e.seq)).toEqual([6]);
      expect(await store.after(session, 's.b', 1)).toBeUndefined();
    });

    it('a follower hears what is appended from then on, and the end', async () => {
      const store = await make(100);
      const session = fresh('session');
      await store.open(session, 'r.c');
      await store.append(session, 'r.c', { seq: 1, message: note(1) });
      const heard: StreamEvent[] = [];
      const following = store.follow(session, 'r.c', (event) => heard.push(event));
      await following.ready;
      await store.append(session, 'r.c', { seq: 2, message: note(2) });
      await store.end(session, 'r.c', 2);
      await expect.poll(() => heard).toEqual([{ seq: 2, message: note(2) }, { seq: 2, end: true }]);
      following.stop();
      await store.append(session, 'r.c', { seq: 3, message: note(3) });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).toHaveLength(2);
    });
  });
}
