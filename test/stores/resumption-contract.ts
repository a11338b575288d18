/**
 * Resumable tasks over a shared task store, in one process: servers that
 * share the store stand for instances, and one of them "dies" — its store
 * calls never return again and it hears no more events, as if its process
 * were gone — or shuts down. Another server, asked about the task or
 * sweeping, claims it and carries it on (docs/tasks.md, "Tasks that outlive
 * their instance"). Run for every store that has leases and checkpoints
 * (memory-stores.test.ts, redis-stores.test.ts).
 *
 * The tool's steps write to a ledger in this process (a stand-in for an
 * external system): which step ran where, under which idempotency key.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, McpServer, type TaskStore } from '../../src/index.js';
import { call } from '../helpers/in-process.js';
import { quietLogger } from '../helpers/results.js';
import { eventually, Gates, taskMeta, type Json } from '../helpers/tasks.js';

/** Short leases keep the tests quick; the waits below are bounded polls, not thresholds. */
const LEASE_MS = 1000;

/** Each instance's view of one shared store (memory: the same object; Redis: a connection of its own). */
export type SharedTaskStore = () => TaskStore;

interface Ran {
  run: string;
  step: number;
  key: string;
  server: string;
}

/** What a test's instances share besides the store: the ledger and the gates that hold a step on one instance. */
class World {
  readonly ledger: Ran[] = [];
  readonly gates = new Gates();
  /** `${server}:${step}` of the steps that wait for their gate. */
  readonly held = new Set<string>();

  ran(run: string, step: number): Ran[] {
    return this.ledger.filter((r) => r.run === run && r.step === step);
  }
}

/** A store whose calls, once frozen, never settle, and whose listeners hear nothing more: the instance is gone. */
function freezable(store: TaskStore): { store: TaskStore; freeze(): void; thaw(): void } {
  let frozen = false;
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver) as unknown;
        if (property === 'leases' || property === 'checkpoints') return value && wrap(value as object);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (frozen) return new Promise(() => undefined);
          if (property === 'listen') {
            const [taskId, onEvent] = args as [string, (event: unknown) => void];
            return (value as (...a: unknown[]) => unknown).call(object, taskId, (event: unknown) => frozen || onEvent(event));
          }
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      },
    });
  return { store: wrap(store), freeze: () => (frozen = true), thaw: () => (frozen = false) };
}

interface Instance {
  name: string;
  server: McpServer;
  freeze(): void;
  thaw(): void;
}

function instance(name: string, world: World, store: TaskStore, tasks: Record<string, unknown> = {}): Instance {
  const view = freezable(store);
  const server = new McpServer({ name: 'resumable', version: '1.0.0' }, { logger: quietLogger(), tasks: { store: view.store, leaseMs: LEASE_MS, pollIntervalMs: 20, ...tasks } });
  const step = (run: string, n: number) => async ({ idempotencyKey }: { idempotencyKey: string }) => {
    world.ledger.push({ run, step: n, key: idempotencyKey, server: name });
    if (world.held.has(`${name}:${n}`)) await world.gates.get(`${run}:${name}:${n}`).promise;
    return n * 10;
  };
  // Three steps; with `question`, a question between the first and the second.
  server.tool('three_steps', { input: z.object({ run: z.string(), question: z.boolean().optional() }), task: { mode: 'required', resume: true } }, ({ run, question }, ctx) =>
    ctx.task(async (task) => {
      const first = await task.once('step-1', step(run, 1));
      let colour = 'none';
      if (question) {
        const answer = await task.ask(ask.form('Which colour?', z.object({ colour: z.string() }), { key: 'colour' }));
        colour = answer.action === 'accept' ? answer.content.colour : 'declined';
      }
      const second = await task.once('step-2', step(run, 2));
      const third = await task.once('step-3', step(run, 3));
      return `${first}+${second}+${third}, ${colour}, finished by ${name}`;
    }),
  );
  // The same, not resumable.
  server.tool('plain_steps', { input: z.object({ run: z.string() }), task: 'required' }, ({ run }, ctx) =>
    ctx.task(async (task) => {
      await task.once('step-1', step(run, 1));
      await task.once('step-2', step(run, 2));
      return `plain, finished by ${name}`;
    }),
  );
  // One step whose result is bigger than a small checkpoint budget.
  server.tool('big_step', { input: z.object({ size: z.number() }), task: { resume: true } }, ({ size }, ctx) =>
    ctx.task(async (task) => {
      const text = await task.once('big', () => 'x'.repeat(size));
      return `kept ${text.length} characters`;
    }),
  );
  return { name, server, freeze: view.freeze, thaw: view.thaw };
}

async function createTask(on: Instance, args: Json): Promise<string> {
  const reply = await call(on.server, 'tools/call', { name: args.tool ?? 'three_steps', arguments: args.arguments, _meta: taskMeta() });
  const result = reply.response.result as Json | undefined;
  if (result?.resultType !== 'task') throw new Error(`expected a task, got ${JSON.stringify(reply.response)}`);
  return result.taskId as string;
}

/** A task made on `on` for `run` whose step 2 starts there and waits (until the test opens its gate, if ever). */
async function heldInStep2(on: Instance, world: World, run: string, tool = 'three_steps'): Promise<string> {
  world.held.add(`${on.name}:2`);
  const taskId = await createTask(on, { tool, arguments: { run } });
  await eventually(`step 2 started on ${on.name}`, () => world.ran(run, 2).some((r) => r.server === on.name));
  return taskId;
}

async function get(on: Instance, taskId: string): Promise<Json> {
  const reply = await call(on.server, 'tasks/get', { taskId, _meta: taskMeta() });
  if (!reply.response.result) throw new Error(`tasks/get failed: ${JSON.stringify(reply.response)}`);
  return reply.response.result as Json;
}

/** Polls `tasks/get` on one instance until `done` holds (bounded). */
async function pollUntil(on: Instance, taskId: string, done: (task: Json) => boolean): Promise<Json> {
  let last: Json;
  const deadline = Date.now() + 15_000;
  for (;;) {
    last = await get(on, taskId);
    if (done(last)) return last;
    if (Date.now() > deadline) throw new Error(`task ${taskId} never got there on ${on.name}; last seen ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const ended = (task: Json): boolean => ['completed', 'failed', 'cancelled'].includes(task.status);
const textOf = (task: Json): string => ((task.result?.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

export function resumptionContract(name: string, shared: () => SharedTaskStore | Promise<SharedTaskStore>): void {
  describe(`${name}: a resumable task outlives the server running it`, () => {
    async function world(count = 2, tasks: Record<string, unknown> = {}): Promise<{ world: World; servers: Instance[]; store: TaskStore }> {
      const view = await shared();
      const w = new World();
      return { world: w, servers: Array.from({ length: count }, (_, i) => instance(String.fromCharCode(97 + i), w, view(), tasks)), store: view() };
    }

    it('is carried on by another server when its own dies mid-step: done steps are not run again, the one in progress runs again under the same key', async () => {
      const { world: w, servers } = await world();
      const [a, b] = servers as [Instance, Instance];
      const taskId = await heldInStep2(a, w, 'crash');
      a.freeze();

      const done = await pollUntil(b, taskId, ended);
      expect(done).toMatchObject({ taskId, status: 'completed' });
      expect(textOf(done)).toBe('10+20+30, none, finished by b');
      expect(w.ran('crash', 1).map((r) => r.server)).toEqual(['a']);
      expect(w.ran('crash', 2).map((r) => r.server)).toEqual(['a', 'b']);
      expect(new Set(w.ran('crash', 2).map((r) => r.key))).toEqual(new Set([`${taskId}:step-2`]));
      expect(w.ran('crash', 3).map((r) => [r.server, r.key])).toEqual([['b', `${taskId}:step-3`]]);
      expect(w.ran('crash', 1)[0]!.key).toBe(`${taskId}:step-1`);
    });

    it('gives a question answered before the crash its answer again, without asking it twice', async () => {
      const { world: w, servers } = await world();
      const [a, b] = servers as [Instance, Instance];
      w.held.add('a:2');
      const taskId = await createTask(a, { arguments: { run: 'asked', question: true } });
      const asking = await pollUntil(b, taskId, (t) => t.status === 'input_required');
      const [key] = Object.keys(asking.inputRequests);
      const answered = await call(b.server, 'tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { colour: 'teal' } } }, _meta: taskMeta() });
      expect(answered.response.result).toBeDefined();
      await eventually('step 2 started on a', () => w.ran('asked', 2).length === 1);
      a.freeze();

      const seen: string[] = [];
      const done = await pollUntil(b, taskId, (t) => (seen.push(t.status), ended(t)));
      expect(textOf(done)).toBe('10+20+30, teal, finished by b');
      // Asked again, the task would have waited for an answer nobody sends.
      expect(seen).not.toContain('input_required');
      expect(w.ran('asked', 1)).toHaveLength(1);
    });

    it('takes an answer sent while the task is between servers to the server that carries it on', async () => {
      const { world: w, servers, store } = await world();
      const [a, b] = servers as [Instance, Instance];
      const taskId = await createTask(a, { arguments: { run: 'between', question: true } });
      // Read on a: b serves no request before the answer, so its sweep has not started and nobody claims the task first.
      const asking = await pollUntil(a, taskId, (t) => t.status === 'input_required');
      a.freeze();
      // The lease lapses with nobody holding it; the answer arrives then.
      await leaseLapses(store, taskId);
      const [key] = Object.keys(asking.inputRequests);
      await call(b.server, 'tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { colour: 'ochre' } } }, _meta: taskMeta() });

      const done = await pollUntil(b, taskId, ended);
      expect(textOf(done)).toBe('10+20+30, ochre, finished by b');
      expect(w.ran('between', 1).map((r) => r.server)).toEqual(['a']);
    });

    it('stays cancelled when tasks/cancel arrives while it is between servers', async () => {
      const { world: w, servers, store } = await world();
      const [a, b] = servers as [Instance, Instance];
      const taskId = await heldInStep2(a, w, 'cancel');
      a.freeze();
      await leaseLapses(store, taskId);
      expect((await call(b.server, 'tasks/cancel', { taskId, _meta: taskMeta() })).response.result).toBeDefined();
      // Asked again (which would claim a live task), it stays cancelled and nothing runs.
      for (let i = 0; i < 5; i++) expect(await get(b, taskId)).toMatchObject({ status: 'cancelled' });
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2));
      expect(w.ran('cancel', 2).map((r) => r.server)).toEqual(['a']);
      expect(w.ran('cancel', 3)).toEqual([]);
    });

    it('is found by the sweep of a server nobody asks about it', async () => {
      const { world: w, servers } = await world();
      const [a, b] = servers as [Instance, Instance];
      // b sweeps once it has served a request (any request).
      await call(b.server, 'tools/list', {});
      const taskId = await heldInStep2(a, w, 'sweep');
      a.freeze();
      await eventually('b carried the task on by itself', () => w.ran('sweep', 3).length === 1);
      expect(w.ran('sweep', 3)[0]!.server).toBe('b');
      expect(textOf(await pollUntil(b, taskId, ended))).toBe('10+20+30, none, finished by b');
    });

    it('is handed over when its server shuts down, and carried on at once', async () => {
      const { world: w, servers, store } = await world();
      const [a, b] = servers as [Instance, Instance];
      const taskId = await heldInStep2(a, w, 'close');
      a.server.close();
      // Released, not lapsed: the next look claims it.
      await leaseLapses(store, taskId);
      const done = await pollUntil(b, taskId, ended);
      expect(textOf(done)).toBe('10+20+30, none, finished by b');
      expect(w.ran('close', 1)).toHaveLength(1);
    });

    it('fails, saying why, once it has been resumed tasks.maxResumptions times', async () => {
      const { world: w, servers } = await world(3, { maxResumptions: 1 });
      const [a, b, c] = servers as [Instance, Instance, Instance];
      w.held.add('b:2');
      const taskId = await heldInStep2(a, w, 'bounded');
      a.freeze();
      await pollUntil(b, taskId, () => w.ran('bounded', 2).length === 2);
      b.freeze();
      const failed = await pollUntil(c, taskId, ended);
      expect(failed).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/stopped 2 times.*tasks\.maxResumptions is 1/) });
      expect(w.ran('bounded', 2).map((r) => r.server)).toEqual(['a', 'b']);
      expect(w.ran('bounded', 3)).toEqual([]);
    });

    it('keeps a server that wakes up after losing the task from recording steps or an outcome', async () => {
      const { world: w, servers } = await world();
      const [a, b] = servers as [Instance, Instance];
      const taskId = await heldInStep2(a, w, 'zombie');
      a.freeze();
      const done = await pollUntil(b, taskId, ended);
      expect(textOf(done)).toBe('10+20+30, none, finished by b');
      // a was only stalled: it wakes, its step 2 ends, and it must not go on to step 3.
      a.thaw();
      w.gates.open('zombie:a:2');
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2));
      expect(w.ran('zombie', 3).map((r) => r.server)).toEqual(['b']);
      expect(textOf(await get(a, taskId))).toBe('10+20+30, none, finished by b');
    });

    it('still fails a plain task whose server died', async () => {
      const { world: w, servers } = await world();
      const [a, b] = servers as [Instance, Instance];
      const taskId = await heldInStep2(a, w, 'plain', 'plain_steps');
      a.freeze();
      const failed = await pollUntil(b, taskId, ended);
      expect(failed).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/stopped before it finished \(its lease lapsed\)/) });
      expect(w.ran('plain', 2).map((r) => r.server)).toEqual(['a']);
    });

    it('fails a step whose result would pass tasks.maxCheckpointBytes, saying so', async () => {
      const { servers } = await world(1, { maxCheckpointBytes: 100 });
      const [a] = servers as [Instance];
      const fits = await pollUntil(a, await createTask(a, { tool: 'big_step', arguments: { size: 50 } }), ended);
      expect(textOf(fits)).toBe('kept 50 characters');
      const failed = await pollUntil(a, await createTask(a, { tool: 'big_step', arguments: { size: 200 } }), ended);
      expect(failed).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/task\.once\("big"\).*202 bytes.*tasks\.maxCheckpointBytes \(100 bytes\)/) });
    });
  });
}

/** Waits (bounded) until nobody holds the task's lease, as the store itself says. */
async function leaseLapses(store: TaskStore, taskId: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (await store.leases!.held(taskId)) {
    if (Date.now() > deadline) throw new Error(`the lease of ${taskId} never lapsed`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
