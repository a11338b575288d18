/**
 * The several-instances recipe (docs/several-instances.md), run for real, on
 * one Redis (cluster.test.ts) and on a Redis Cluster (redis-cluster.test.ts): a
 * redis-server on a free port (or a cluster of six), three `tessera serve <module> --redis <url>`
 * processes sharing one key ring, and nginx round-robin in front from the
 * repository's own config (deploy/nginx/mcp-cluster.conf), nothing sticky.
 * The module is the recipe's example (examples/cluster-server.ts) with one
 * resumable task tool added (fixtures/cluster-ledger-server.ts), whose steps
 * write to a ledger in the same Redis. Every process is started here on
 * 127.0.0.1 and stopped by PID.
 *
 * Which instance did what is read from the instances themselves: each writes
 * its request log (`--log json`, every round with its flow id and number) to
 * stderr, results name the instance that produced them, and a task's
 * questions name the instance running it.
 *
 * Seen failing when broken (instances started without --redis, i.e. on memory
 * stores): the 50 retries (several succeed), the task across instances
 * (unknown on the others), the listen stream (never hears the change), both
 * 2025 clients (404, session unknown), the killed instance's task (unknown on
 * the survivors) and the outage (no 503). With a key ring per instance, the
 * MRTR flows and the 50 retries fail (requestState invalid on the next
 * instance). Before resumable tasks, the killed instance's ledger job read
 * `failed` on the survivors and its client's callTool threw.
 */

import { spawn } from 'node:child_process';
import { createClient } from '@redis/client';
import { freePort } from '../../fixtures/ports.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as OfficialClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { generateStateKey } from 'tessera-mcp';
import { Client } from 'tessera-mcp/client';
import { compiledFile, ROOT, stopAll } from '../helpers/child-processes.js';
import { Background, cliPath } from '../helpers/cli.js';
import { meta, rpc } from '../helpers/http.js';
import { runFlow } from '../helpers/mrtr-client.js';
import { startNginx, type Nginx } from '../helpers/nginx.js';
import type { RedisCluster } from '../helpers/redis-cluster.js';
import type { RedisServer } from '../helpers/redis-server.js';
import { createTask, pollTask, taskMeta, tasksCancel, tasksGet, tasksUpdate, type Json } from '../helpers/tasks.js';

/** Where the shared stores live: one Redis, or a Redis Cluster (and a plain Redis for the ledger, an external system). */
export interface Backend {
  /** What `tessera serve` takes to use it. */
  serveArgs: string[];
  /** The ledger's Redis (one Redis: the same one). */
  ledgerUrl: string;
  /** One Redis, for the outage. */
  redis?: RedisServer;
  /** The cluster, for the failover. */
  cluster?: RedisCluster;
  stop(): Promise<void>;
}

export function severalInstances(kind: 'one Redis' | 'a Redis Cluster', start: () => Promise<Backend>): void {
  const KEYS = generateStateKey('cluster');
  const LEASE_MS = 1500;
  const NAMES = ['a', 'b', 'c'] as const;
  const FORM = { elicitation: { form: {} } };
  /** A request that hangs fails the test here instead of hanging it (a guard, not a threshold). */
  const HANG_GUARD_MS = 10_000;

  interface LogEntry {
    method: string;
    flowId?: string;
    round?: number;
    name?: string;
    era: 'modern' | 'legacy';
    status: string;
    errorCode?: number;
    rejectedState?: string;
  }

  interface Instance {
    name: string;
    port: number;
    url: string;
    proc: Background;
    /** The request log it has written so far. */
    log(): LogEntry[];
  }

  let backend: Backend;
  let nginx: Nginx;
  const instances: Instance[] = [];

  /** One instance, as the recipe runs it: `tessera serve <module> --port <port> --redis <url> --keys <keys> --log json`. */
  async function startInstance(name: string, port: number, leaseMs = LEASE_MS): Promise<Instance> {
    compiledFile('examples/cluster-server.js', [`${ROOT}examples/cluster-server.ts`]);
    const module = compiledFile('fixtures/cluster-ledger-server.js', [`${ROOT}fixtures/cluster-ledger-server.ts`]);
    const args = [cliPath(), 'serve', module, '--port', String(port), ...backend.serveArgs, '--keys', KEYS, '--log', 'json'];
    const env = { ...process.env, NO_COLOR: '1', INSTANCE_NAME: name, TASK_LEASE_MS: String(leaseMs), LEDGER_REDIS_URL: backend.ledgerUrl };
    const proc = new Background(spawn(process.execPath, args, { cwd: ROOT, env }));
    const [, url] = await proc.waitFor(/serving .* on (http:\/\/\S+\/mcp)/);
    const log = (): LogEntry[] =>
      proc.stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as LogEntry);
    return { name, port, url: url!, proc, log };
  }

  /** What each instance wrote on stderr that is not a request log line (warnings, a crash), for failure messages. */
  function instanceTails(): string {
    return instances.map((i) => `${i.name} (exit ${String(i.proc.proc.exitCode)}): ${i.proc.stderr.split('\n').filter((line) => !line.startsWith('{')).slice(-20).join('\n')}`).join('\n');
  }

  function instance(name: string): Instance {
    return instances.find((i) => i.name === name)!;
  }

  /** `kill -9` of one instance; resolves once it is gone. */
  async function killInstance(which: Instance): Promise<void> {
    const exited = which.proc.exited;
    process.kill(which.proc.proc.pid!, 'SIGKILL');
    await exited;
  }

  /** Starts a killed instance again on its port (nginx's upstream), for the tests after. */
  async function restartInstance(which: Instance): Promise<void> {
    const fresh = await startInstance(which.name, which.port);
    instances.splice(instances.indexOf(which), 1, fresh);
  }

  function textOf(result: Json | undefined): string {
    return (result?.content as Array<{ text?: string }> | undefined)?.map((c) => c.text ?? '').join('') ?? '';
  }

  /** The one question a task asks now: its key (the task makes it unique, e.g. `start-1`) and message. */
  function question(task: Json): { key: string; message: string } {
    const entries = Object.entries((task.inputRequests ?? {}) as Record<string, { params: { message: string } }>);
    expect(entries, JSON.stringify(task)).toHaveLength(1);
    return { key: entries[0]![0], message: entries[0]![1].params.message };
  }

  /** Log entries written after `marks` (the lengths before), per instance, once `done` holds for all of them (bounded wait). */
  async function logsSince(marks: Map<string, number>, done: (entries: Array<LogEntry & { instance: string }>) => boolean): Promise<Array<LogEntry & { instance: string }>> {
    const deadline = Date.now() + HANG_GUARD_MS;
    for (;;) {
      const entries = instances.flatMap((i) => i.log().slice(marks.get(i.name) ?? 0).map((e) => ({ ...e, instance: i.name })));
      if (done(entries) || Date.now() > deadline) return entries;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  function logMarks(): Map<string, number> {
    return new Map(instances.map((i) => [i.name, i.log().length]));
  }

  /** nginx's access log since `mark`: the session's requests (handshake, answers to the server's questions, DELETE…) went to more than one instance. */
  function expectSessionSpread(mark: number): void {
    const bySession = new Map<string, Set<string>>();
    for (const entry of nginx.accessLog().slice(mark)) {
      if (entry.session === undefined) continue;
      const name = instances.find((i) => i.port === entry.upstreamPort)?.name ?? `port ${entry.upstreamPort}`;
      bySession.set(entry.session, (bySession.get(entry.session) ?? new Set()).add(name));
    }
    expect(bySession.size, 'one 2025 session went through nginx').toBe(1);
    const [served] = [...bySession.values()];
    expect(served!.size, `the session was served by ${[...served!].join(', ')}`).toBeGreaterThan(1);
  }

  const answerForm = (schema: unknown): { action: 'accept'; content: Record<string, string> } => {
    const properties = Object.keys((schema as { properties?: object } | undefined)?.properties ?? {});
    return { action: 'accept', content: Object.fromEntries(properties.map((p) => [p, p === 'name' ? 'Ada' : 'teal'])) };
  };

  beforeAll(async () => {
    backend = await start();
    const ports = await Promise.all(NAMES.map(() => freePort()));
    instances.push(...(await Promise.all(NAMES.map((name, i) => startInstance(name, ports[i]!)))));
    nginx = await startNginx(await freePort(), ports);
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    for (const i of instances) i.proc.stop();
    await backend?.stop();
    stopAll();
  });

  /** Requests while Redis is down: each a clear 503 (never a hang, never a 502), and what needs no store still served. */
  async function duringOutage(taskId: string, params: Json, capabilities: Json, requestState: string): Promise<void> {
    const during = [
      // Every instance's turn comes: six requests through round-robin.
      ...Array.from({ length: 3 }, () => tasksGet(nginx.url, taskId, taskMeta(), { signal: AbortSignal.timeout(HANG_GUARD_MS) })),
      ...Array.from({ length: 3 }, () =>
        rpc(nginx.url, 'tools/call', { ...params, requestState: requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, _meta: capabilities }, { signal: AbortSignal.timeout(HANG_GUARD_MS) }),
      ),
    ];
    for (const reply of await Promise.all(during)) {
      expect(reply.status, `${JSON.stringify(reply.response ?? reply.text)}\nnginx: ${nginx.errorLog()}\n${instanceTails()}`).toBe(503);
      expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(reply.response!.error).toMatchObject({ code: -32603, message: expect.stringMatching(/Redis.*cannot be reached/) });
    }
    // What needs no shared store is still served.
    const tools = (await rpc(nginx.url, 'tools/list', {}, { signal: AbortSignal.timeout(HANG_GUARD_MS) })).response!.result as Json;
    expect(tools.tools.map((t: Json) => t.name)).toContain('survey');
  }

  describe(`three instances behind nginx round-robin, sharing ${kind}`, () => {
    it('completes MRTR flows whose rounds land on different instances', async () => {
      const flows: string[][] = [];
      for (let n = 0; n < 3; n++) {
        const marks = logMarks();
        const outcome = await runFlow({
          url: nginx.url,
          params: { name: 'survey', arguments: {} },
          capabilities: FORM,
          answers: { name: { action: 'accept', content: { name: 'Ada' } }, colour: { action: 'accept', content: { colour: 'teal' } } },
        });
        expect(outcome.error, nginx.errorLog()).toBeUndefined();
        expect(textOf(outcome.result)).toMatch(/^Hello Ada, teal it is \(answered by [abc]\)$/);
        expect(outcome.rounds).toHaveLength(3);
        // The instances' logs: the three rounds of this one flow (same flow id), and who served each.
        const rounds = (await logsSince(marks, (e) => e.filter((x) => x.name === 'survey').length >= 3)).filter((e) => e.name === 'survey');
        expect(rounds.map((e) => e.round).sort()).toEqual([1, 2, 3]);
        expect(new Set(rounds.map((e) => e.flowId)).size).toBe(1);
        flows.push(rounds.sort((x, y) => x.round! - y.round!).map((e) => e.instance));
      }
      // Round-robin spreads each flow: its three rounds were served by more than one instance, and every instance took part.
      for (const flow of flows) expect(new Set(flow).size, `rounds served by ${flow.join(', ')}`).toBeGreaterThan(1);
      expect(new Set(flows.flat())).toEqual(new Set(NAMES));
    });

    it('redeems one single-use state once among 50 concurrent retries spread over the instances', async () => {
      const params = { name: 'confirm_payment', arguments: { amount: '42 EUR' } };
      const first = (await rpc(nginx.url, 'tools/call', { ...params, _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': FORM }) })).response!.result as Json;
      expect(first.resultType).toBe('input_required');
      const marks = logMarks();
      const retries = await Promise.all(
        Array.from({ length: 50 }, () =>
          rpc(nginx.url, 'tools/call', {
            ...params,
            requestState: first.requestState,
            inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
            _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': FORM }),
          }, { signal: AbortSignal.timeout(HANG_GUARD_MS) }),
        ),
      );
      const paid = retries.filter((r) => (r.response?.result as Json | undefined)?.resultType === 'complete');
      const refused = retries.filter((r) => r.response?.error !== undefined);
      expect(paid).toHaveLength(1);
      expect(textOf(paid[0]!.response!.result as Json)).toMatch(/^42 EUR paid by [abc]$/);
      expect(refused).toHaveLength(49);
      for (const r of refused) {
        expect(r.response!.error).toMatchObject({ code: -32602, message: expect.stringMatching(/requestState/) });
      }
      // The instances' own logs: every retry arrived somewhere, more than one instance refused a replay.
      const entries = await logsSince(marks, (e) => e.filter((x) => x.name === 'confirm_payment').length >= 50);
      const retried = entries.filter((e) => e.name === 'confirm_payment');
      expect(retried).toHaveLength(50);
      expect(retried.filter((e) => e.rejectedState === 'redeemed')).toHaveLength(49);
      expect(new Set(retried.map((e) => e.instance)).size).toBeGreaterThan(1);
    });

    it('creates a task on one instance, polls it on another, answers and cancels it through a third', async () => {
      const [a, b, c] = NAMES.map(instance);
      const created = await createTask(a!.url, 'long_job');
      const taskId = created.taskId as string;
      const asking = question(await pollTask(b!.url, taskId, (t) => t.status === 'input_required'));
      expect(asking.message).toBe('[a] Start the job?');
      const answered = await tasksUpdate(c!.url, taskId, { [asking.key]: { action: 'accept', content: { label: 'nightly' } } });
      expect(answered.response).toMatchObject({ result: { resultType: 'complete' } });
      // The next question carries the answer: it reached the instance running the work (a), from c.
      const next = await pollTask(b!.url, taskId, (t) => t.status === 'input_required' && !(asking.key in (t.inputRequests ?? {})));
      expect(question(next).message).toBe('[a] Job "nightly" started; finish it?');
      const cancelled = await tasksCancel(c!.url, taskId);
      expect(cancelled.response).toMatchObject({ result: { resultType: 'complete' } });
      for (const where of [a!, b!]) {
        const seen = (await tasksGet(where.url, taskId)).response!.result as Json;
        expect(seen).toMatchObject({ taskId, status: 'cancelled' });
      }
    });

    it('delivers a change made on one instance to a listen stream held by another', async () => {
      const [a, b] = NAMES.map(instance);
      const client = new Client({ name: 'cluster-listener', version: '0' }, { era: 'modern' });
      await client.connect(a!.url);
      let heard!: (params: unknown) => void;
      const updated = new Promise<unknown>((resolve) => (heard = resolve));
      const subscription = client.listen({ resourceSubscriptions: ['notes://shared'] }, (note) => {
        if (note.method === 'notifications/resources/updated') heard(note.params);
      });
      try {
        await subscription.acknowledged;
        const touched = (await rpc(b!.url, 'tools/call', { name: 'touch_notes', arguments: {} })).response!.result as Json;
        expect(textOf(touched)).toBe('notes://shared touched by b');
        const guard = new Promise((_, reject) => setTimeout(() => reject(new Error('the listen stream on a never heard the change made on b')), HANG_GUARD_MS));
        await expect(Promise.race([updated, guard])).resolves.toMatchObject({ uri: 'notes://shared' });
      } finally {
        subscription.close();
        await subscription.closed.catch(() => undefined);
        await client.close();
      }
    });

    it("runs an eliciting tool for Tessera's client pinned to 2025-11-25, through round-robin", async () => {
      const mark = nginx.accessLog().length;
      const asked: string[] = [];
      const client = new Client(
        { name: 'cluster-legacy', version: '0' },
        { era: 'legacy', elicitation: { form: (params) => (asked.push(params.message), answerForm(params.requestedSchema)) } },
      );
      await client.connect(nginx.url);
      try {
        expect(client.era).toBe('legacy');
        const result = await client.callTool('survey', {});
        expect(textOf(result as Json)).toMatch(/^Hello Ada, teal it is \(answered by [abc]\)$/);
        expect(asked).toEqual(['What is your name?', 'Favourite colour, Ada?']);
      } finally {
        await client.close();
      }
      expectSessionSpread(mark);
    });

    it("runs an eliciting tool for the official SDK's client in the 2025-11-25 era, through round-robin", async () => {
      const mark = nginx.accessLog().length;
      const asked: string[] = [];
      const client = new OfficialClient({ name: 'cluster-official', version: '0' }, { capabilities: FORM, versionNegotiation: { mode: 'legacy' } });
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params.message);
        return answerForm('requestedSchema' in request.params ? request.params.requestedSchema : undefined);
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(nginx.url)));
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
        const result = await client.callTool({ name: 'survey', arguments: {} });
        expect(textOf(result as Json)).toMatch(/^Hello Ada, teal it is \(answered by [abc]\)$/);
        expect(asked).toHaveLength(2);
      } finally {
        await client.close();
      }
      expectSessionSpread(mark);
    });

    it.skipIf(kind !== 'one Redis')('answers 503 with a message while Redis is down, and serves normally once it is back', async () => {
      const redis = backend.redis!;
      const [a, b] = NAMES.map(instance);
      const task = await createTask(a!.url, 'long_job');
      const params = { name: 'confirm_payment', arguments: { amount: '7 EUR' } };
      const capabilities = meta({ 'io.modelcontextprotocol/clientCapabilities': FORM });
      const pending = (await rpc(nginx.url, 'tools/call', { ...params, _meta: capabilities })).response!.result as Json;

      await redis.stop();
      try {
        await duringOutage(task.taskId as string, params, capabilities, pending.requestState as string);
      } finally {
        // Whatever happened above, the later tests get their Redis back.
        await redis.start();
      }
      // Each instance reconnects by itself: a request that needs Redis is served again on every one, within a bounded number of tries.
      for (const each of instances) {
        let status = 503;
        for (let attempt = 0; attempt < 100 && status === 503; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
          status = (await tasksGet(each.url, 'task-unknown', taskMeta(), { signal: AbortSignal.timeout(HANG_GUARD_MS) })).status;
        }
        expect(status, `instance ${each.name} after Redis came back`).not.toBe(503);
      }
      const outcome = await runFlow({ url: nginx.url, params, capabilities: FORM, answers: { confirm: { action: 'accept', content: { confirm: true } } } });
      expect(textOf(outcome.result)).toMatch(/^7 EUR paid by [abc]$/);
      // Tasks across instances again (Redis ran without persistence, so tasks made before the restart are gone).
      const after = await createTask(a!.url, 'long_job');
      const seen = await pollTask(b!.url, after.taskId as string, (t) => t.status === 'input_required');
      expect(question(seen).message).toBe('[a] Start the job?');
      await tasksCancel(b!.url, after.taskId as string);
    }, 60_000);

    /**
     * A resumable task with five steps, each counted in the ledger; the instance
     * running it is killed with SIGKILL in the middle of step 3. The client, on
     * nginx, just waits longer: another instance claims the lapsed lease, runs
     * the tool again, skips steps 1–2 (recorded), runs step 3 again under the
     * same idempotency key, then 4 and 5. With `question`, the task asks after
     * step 2 and the client answers before the kill: the answer is not asked for again.
     */
    async function ledgerJobSurvivesKill(run: string, question: boolean): Promise<void> {
      const ledger = createClient({ url: backend.ledgerUrl });
      await ledger.connect();
      const asked: string[] = [];
      const client = new Client(
        { name: 'cluster-ledger', version: '0' },
        { era: 'modern', elicitation: { form: (params) => (asked.push(params.message), { action: 'accept', content: { colour: 'teal' } }) } },
      );
      let killed: Instance | undefined;
      try {
        await ledger.set(`${run}:hold:3`, '1');
        await client.connect(nginx.url);
        const calling = client.callTool('ledger_job', { run, question });
        calling.catch(() => undefined);
        // Bounded wait for step 3 to start on the instance that runs the task.
        const deadline = Date.now() + HANG_GUARD_MS;
        while (Number(await ledger.get(`${run}:count:3`)) < 1) {
          if (Date.now() > deadline) throw new Error(`step 3 never started\n${instanceTails()}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const ownerName = (await ledger.lRange(`${run}:ran-on:3`, 0, -1))[0]!;
        killed = instance(ownerName);
        await killInstance(killed);
        await ledger.del(`${run}:hold:3`);

        const result = await calling;
        const finisher = /finished by ([abc])$/.exec(textOf(result as Json))?.[1];
        expect(textOf(result as Json)).toBe(`ledger ${run}: 15 (${question ? 'teal' : 'none'}), finished by ${finisher}`);
        expect(finisher).not.toBe(ownerName);
        expect(asked).toHaveLength(question ? 1 : 0);

        const counts = await Promise.all([1, 2, 3, 4, 5].map(async (n) => Number(await ledger.get(`${run}:count:${n}`))));
        // Steps 1–2 and 4–5 once; step 3 twice here (at most twice is the promise): once on the killed instance, once on the next.
        expect(counts).toEqual([1, 1, 2, 1, 1]);
        const keys = await Promise.all([1, 2, 3, 4, 5].map((n) => ledger.lRange(`${run}:keys:${n}`, 0, -1)));
        const taskId = keys[0]![0]!.replace(/:step-1$/, '');
        expect(taskId).toMatch(/^task-/);
        keys.forEach((list, i) => expect(new Set(list), `the keys of step ${i + 1}`).toEqual(new Set([`${taskId}:step-${i + 1}`])));
        const ranOn = await Promise.all([1, 2, 3, 4, 5].map((n) => ledger.lRange(`${run}:ran-on:${n}`, 0, -1)));
        expect(ranOn).toEqual([[ownerName], [ownerName], [ownerName, finisher], [finisher], [finisher]]);
        // The survivors read one task, completed.
        const seen = (await tasksGet(nginx.url, taskId)).response!.result as Json;
        expect(seen).toMatchObject({ taskId, status: 'completed' });
      } finally {
        await client.close();
        await ledger.close();
        if (killed) await restartInstance(killed);
      }
    }

    it('carries a resumable task on after its instance is killed with SIGKILL mid-step: each step once, the one in progress at most twice', async () => {
      await ledgerJobSurvivesKill('ledger-plain', false);
    }, 60_000);

    it('carries a resumable task on after the kill with the answer its question got before it', async () => {
      await ledgerJobSurvivesKill('ledger-asked', true);
    }, 60_000);

    it('hands a resumable task over at once when its instance is stopped with SIGTERM', async () => {
      const run = 'ledger-term';
      const ledger = createClient({ url: backend.ledgerUrl });
      await ledger.connect();
      // A fourth instance, outside nginx, whose lease lasts ten minutes: only its giving the task up lets another carry it on within the test.
      const d = await startInstance('d', await freePort(), 600_000);
      try {
        await ledger.set(`${run}:hold:3`, '1');
        const taskId = (await createTask(d.url, 'ledger_job', { run })).taskId as string;
        const deadline = Date.now() + HANG_GUARD_MS;
        while (Number(await ledger.get(`${run}:count:3`)) < 1) {
          if (Date.now() > deadline) throw new Error(`step 3 never started on d: ${d.proc.stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const exited = d.proc.exited;
        process.kill(d.proc.proc.pid!, 'SIGTERM');
        const guard = new Promise((_, reject) => setTimeout(() => reject(new Error(`d did not exit on SIGTERM: ${d.proc.stderr}`)), HANG_GUARD_MS));
        await Promise.race([exited, guard]);
        await ledger.del(`${run}:hold:3`);

        const done = await pollTask(nginx.url, taskId, (t) => t.status !== 'working' && t.status !== 'input_required');
        expect(done).toMatchObject({ taskId, status: 'completed' });
        expect(textOf(done.result)).toMatch(new RegExp(`^ledger ${run}: 15 \\(none\\), finished by [abc]$`));
        const counts = await Promise.all([1, 2, 3, 4, 5].map(async (n) => Number(await ledger.get(`${run}:count:${n}`))));
        expect(counts).toEqual([1, 1, 2, 1, 1]);
      } finally {
        d.proc.stop();
        await ledger.close();
      }
    }, 60_000);

    /**
     * A master of the cluster killed with SIGKILL while a resumable task whose
     * keys it holds is in step 3 and after single-use states were redeemed on
     * it: its replica takes over (the instances find it by themselves), every
     * redeemed state presented again is refused, and the task finishes.
     */
    it.skipIf(kind !== 'a Redis Cluster')('survives a master killed mid-run: its replica takes over, no single-use state is accepted twice, the task finishes', async () => {
      const cluster = backend.cluster!;
      const run = 'ledger-failover';
      const ledger = createClient({ url: backend.ledgerUrl });
      await ledger.connect();
      try {
        await ledger.set(`${run}:hold:3`, '1');
        // Polled by hand below: a poll that meets the failover gets a 503 (Retry-After), and tries again.
        const taskId = (await createTask(nginx.url, 'ledger_job', { run })).taskId as string;
        const deadline = Date.now() + HANG_GUARD_MS;
        while (Number(await ledger.get(`${run}:count:3`)) < 1) {
          if (Date.now() > deadline) throw new Error(`step 3 never started\n${instanceTails()}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // The master holding the task, and (paying until it does) at least one redeemed single-use state.
        const victim = await cluster.masterOf(`mcp:task:{${taskId}}`);
        const params = { name: 'confirm_payment', arguments: { amount: '3 EUR' } };
        const capabilities = meta({ 'io.modelcontextprotocol/clientCapabilities': FORM });
        const answer = { confirm: { action: 'accept', content: { confirm: true } } };
        const paid: string[] = [];
        for (let n = 0; n < 60 && (await cluster.keysOn(victim, 'mcp:redeemed:*')).length === 0; n++) {
          const first = (await rpc(nginx.url, 'tools/call', { ...params, _meta: capabilities })).response!.result as Json;
          const done = await rpc(nginx.url, 'tools/call', { ...params, requestState: first.requestState, inputResponses: answer, _meta: capabilities });
          expect(textOf(done.response!.result as Json)).toMatch(/^3 EUR paid by [abc]$/);
          paid.push(first.requestState as string);
        }
        expect(await cluster.keysOn(victim, 'mcp:redeemed:*'), `no redemption on the master at ${victim}`).not.toHaveLength(0);
        const replica = (await cluster.nodes()).find((node) => node.role === 'replica' && node.masterPort === victim)!.port;

        await cluster.kill(victim);
        // Its replica is promoted, and the cluster serves every slot again.
        for (let n = 0; n < 300; n++) {
          const nodes = await cluster.nodes();
          if (nodes.find((node) => node.port === replica)?.role === 'master') break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect((await cluster.nodes()).find((node) => node.port === replica)?.role).toBe('master');
        await cluster.healthy();

        // Every state paid before is refused when presented again, on whichever instance, once the instances reach the new master.
        const marks = logMarks();
        for (const requestState of paid) {
          let reply = await rpc(nginx.url, 'tools/call', { ...params, requestState, inputResponses: answer, _meta: capabilities }, { signal: AbortSignal.timeout(HANG_GUARD_MS) });
          for (let n = 0; n < 100 && reply.status === 503; n++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            reply = await rpc(nginx.url, 'tools/call', { ...params, requestState, inputResponses: answer, _meta: capabilities }, { signal: AbortSignal.timeout(HANG_GUARD_MS) });
          }
          expect(reply.response!.error, JSON.stringify(reply.response)).toMatchObject({ code: -32602, message: expect.stringMatching(/requestState/) });
        }
        const replays = (await logsSince(marks, (e) => e.filter((x) => x.rejectedState !== undefined).length >= paid.length)).filter((e) => e.rejectedState !== undefined);
        // Refused as redeemed: the promoted replica had every redemption (and its generation), not only "unknown".
        expect(replays.map((e) => e.rejectedState)).toEqual(paid.map(() => 'redeemed'));

        // The killed node comes back as a replica; the task goes on and finishes.
        await cluster.restart(victim);
        await cluster.healthy(true);
        await ledger.del(`${run}:hold:3`);
        let task: Json | undefined;
        for (let n = 0; n < 300 && (task === undefined || task.status === 'working'); n++) {
          if (n > 0) await new Promise((resolve) => setTimeout(resolve, 100));
          const reply = await tasksGet(nginx.url, taskId, taskMeta(), { signal: AbortSignal.timeout(HANG_GUARD_MS) });
          if (reply.status !== 503) task = reply.response!.result as Json;
        }
        expect(task, instanceTails()).toMatchObject({ taskId, status: 'completed' });
        expect(textOf(task!.result)).toMatch(new RegExp(`^ledger ${run}: 15 \\(none\\), finished by [abc]$`));
        const counts = await Promise.all([1, 2, 3, 4, 5].map(async (n) => Number(await ledger.get(`${run}:count:${n}`))));
        expect(counts.slice(0, 2)).toEqual([1, 1]);
        for (const count of counts.slice(2)) expect([1, 2]).toContain(count);
        // And new payments go through.
        const outcome = await runFlow({ url: nginx.url, params, capabilities: FORM, answers: answer });
        expect(textOf(outcome.result)).toMatch(/^3 EUR paid by [abc]$/);
      } finally {
        await ledger.close();
      }
    }, 120_000);

    it('fails the task of an instance killed with SIGKILL, as read from the survivors within the lease', async () => {
      const [a, b, c] = NAMES.map(instance);
      const created = await createTask(c!.url, 'long_job');
      const taskId = created.taskId as string;
      const running = await pollTask(a!.url, taskId, (t) => t.status === 'input_required');
      expect(question(running).message).toBe('[c] Start the job?');

      await killInstance(c!);

      const failed = await pollTask(b!.url, taskId, (t) => t.status !== 'input_required' && t.status !== 'working');
      expect(failed).toMatchObject({ taskId, status: 'failed', statusMessage: expect.stringMatching(/instance.*stopped.*lease lapsed/) });
      expect((await tasksGet(a!.url, taskId)).response!.result).toMatchObject({ status: 'failed' });
      // nginx routes around the dead instance: every request through it is still answered.
      for (let n = 0; n < 6; n++) {
        const reply = await tasksGet(nginx.url, taskId, taskMeta(), { signal: AbortSignal.timeout(HANG_GUARD_MS) });
        expect(reply.response!.result, nginx.errorLog()).toMatchObject({ status: 'failed' });
      }
    }, 60_000);
  });
}
