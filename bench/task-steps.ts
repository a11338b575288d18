/**
 * `npm run bench:task-steps [-- --rounds N --steps S]`: what a checkpointed
 * step (`task.once` in a resumable task, issue 30) costs, in this process:
 *
 *   plain task           a plain task tool on a MemoryTaskStore given as `tasks.store`: its steps are kept for the run only
 *   resumable, memory    a resumable tool on the same kind of store (leases and checkpoints in this process)
 *   resumable, Redis     `redisStores().tasks` on a local redis-server (no persistence)
 *
 * Each round runs one task per system (interleaved) whose work does S trivial
 * steps in a row, once with a small result (a number) and once with a 1 KiB
 * string; the time of each `await task.once(…)` is the step's cost, since the
 * step itself does nothing. The task store is wrapped to count the calls that
 * write (create, transition, notify, leases, checkpoints) while the steps run;
 * Redis's own `INFO commandstats` counts the commands it executed meanwhile.
 * Reports medians over rounds of each round's p50 and p99, to
 * bench/results/task-steps.md and .json. Nothing here is a threshold.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { McpServer, MemoryTaskStore, type TaskStore } from 'tessera-mcp';
import { redisStores, type RedisStores } from 'tessera-mcp/redis';
import { createClient } from '@redis/client';
import { startRedisServer } from './harness/cluster-services.js';
import { log } from './harness/log.js';
import { stopAll, stopAllOnExit } from './harness/processes.js';
import { LatencyRecorder, median } from './harness/stats.js';
import { machineInfo } from './report/machine.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, steps: { type: 'string', default: '1000' } } });
const ROUNDS = Number(values.rounds);
const STEPS = Number(values.steps);
const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url));
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

type System = 'plain task' | 'resumable, memory' | 'resumable, Redis';
const SYSTEMS: System[] = ['plain task', 'resumable, memory', 'resumable, Redis'];
const RESULTS = { 'a number': () => 42, '1 KiB string': () => 'x'.repeat(1024) } as const;
type ResultKind = keyof typeof RESULTS;

const WRITES = new Set(['create', 'transition', 'notify', 'claim', 'renew', 'release', 'saveStep', 'saveAnswers']);

/** Counts the store's writing calls (its leases' and checkpoints' too) while `counting` is on. */
class CountingStore {
  counting = false;
  writes = 0;
  readonly store: TaskStore;

  constructor(inner: TaskStore) {
    const wrap = <T extends object>(target: T): T =>
      new Proxy(target, {
        get: (object, property, receiver) => {
          const value = Reflect.get(object, property, receiver) as unknown;
          if (property === 'leases' || property === 'checkpoints') return value && wrap(value as object);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (this.counting && WRITES.has(String(property))) this.writes++;
            return (value as (...a: unknown[]) => unknown).apply(object, args);
          };
        },
      });
    this.store = wrap(inner);
  }
}

interface Cell {
  system: System;
  result: ResultKind;
  round: number;
  p50Us: number;
  p99Us: number;
  storeWritesPerStep: number;
  redisCommandsPerStep: number | undefined;
}

interface Measured {
  times: LatencyRecorder;
  writes: number;
  /** Commands Redis executed while the steps ran (a script's own commands included). */
  commands: number | undefined;
}

/** One task of STEPS steps on `server`; the per-step times (µs), the writes counted and the Redis commands run while they ran. */
async function runTask(server: McpServer, counter: CountingStore, tool: string, redisCommands: (() => Promise<number>) | undefined): Promise<Measured> {
  const done = new Promise<Measured>((resolve, reject) => finished.set(tool, { resolve, reject, counter, redisCommands }));
  const reply = await server.handleRequest(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {}, _meta: META } },
    { signal: new AbortController().signal, canNotify: false, send: () => undefined },
  );
  if (!('result' in reply.message) || (reply.message.result as { resultType?: string }).resultType !== 'task') throw new Error(`no task: ${JSON.stringify(reply.message)}`);
  const measured = await done;
  // Until its outcome is written and its lease given up (bounded), so that closing the stores finds nothing in flight.
  const taskId = (reply.message.result as { taskId: string }).taskId;
  for (let i = 0; i < 1000; i++) {
    const task = await counter.store.get(taskId);
    if (task?.status === 'completed' && !(await counter.store.leases?.held(taskId))) return measured;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`task ${taskId} did not finish`);
}

const finished = new Map<
  string,
  { resolve: (value: Measured) => void; reject: (error: unknown) => void; counter: CountingStore; redisCommands: (() => Promise<number>) | undefined }
>();

function serverFor(system: System, store: TaskStore): McpServer {
  const server = new McpServer({ name: 'task-steps-bench', version: '1.0.0' }, { tasks: { store } });
  for (const [kind, make] of Object.entries(RESULTS) as Array<[ResultKind, () => unknown]>) {
    const tool = `${kind === 'a number' ? 'number' : 'kib'}`;
    server.tool(tool, { task: system === 'plain task' ? 'required' : { mode: 'required', resume: true } }, (_args, ctx) =>
      ctx.task(async (task) => {
        const waiting = finished.get(tool)!;
        const times = new LatencyRecorder();
        const before = await waiting.redisCommands?.();
        waiting.counter.counting = true;
        try {
          for (let n = 0; n < STEPS; n++) {
            const started = performance.now();
            await task.once(`step-${n}`, make);
            times.record((performance.now() - started) * 1000);
          }
        } catch (error) {
          waiting.reject(error);
          throw error;
        } finally {
          waiting.counter.counting = false;
        }
        const after = await waiting.redisCommands?.();
        waiting.resolve({ times, writes: waiting.counter.writes, commands: after === undefined ? undefined : after - before! });
        return 'done';
      }),
    );
  }
  return server;
}

/** Every command Redis has executed but INFO (a script's commands count one each, beside the EVAL). */
async function commandsExecuted(client: { info(section: string): Promise<string> }): Promise<number> {
  const info = await client.info('commandstats');
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (match[1] !== 'info') calls += Number(match[2]);
  return calls;
}

stopAllOnExit();
const redis = await startRedisServer();
const loadStart = loadavg()[0]!;
const cells: Cell[] = [];
let shared: RedisStores | undefined;
const stats = createClient({ url: redis.url });
try {
  shared = redisStores({ url: redis.url, prefix: 'bench:' });
  await stats.connect();
  for (let round = 0; round <= ROUNDS; round++) {
    // Round 0 warms up (JIT, connections) and is not recorded.
    for (const system of SYSTEMS) {
      for (const result of Object.keys(RESULTS) as ResultKind[]) {
        const counter = new CountingStore(system === 'resumable, Redis' ? shared.tasks : new MemoryTaskStore());
        const server = serverFor(system, counter.store);
        const { times, writes, commands } = await runTask(server, counter, result === 'a number' ? 'number' : 'kib', system === 'resumable, Redis' ? () => commandsExecuted(stats) : undefined);
        server.close();
        if (round === 0) continue;
        const cell: Cell = {
          system,
          result,
          round,
          p50Us: times.percentile(0.5),
          p99Us: times.percentile(0.99),
          storeWritesPerStep: writes / STEPS,
          redisCommandsPerStep: commands === undefined ? undefined : commands / STEPS,
        };
        cells.push(cell);
        log(`round ${round} ${system}, ${result}: p50 ${cell.p50Us.toFixed(1)} µs, p99 ${cell.p99Us.toFixed(1)} µs, ${cell.storeWritesPerStep.toFixed(2)} store writes/step${commands === undefined ? '' : `, ${cell.redisCommandsPerStep!.toFixed(2)} Redis commands/step`}`);
      }
    }
  }
} finally {
  if (stats.isOpen) await stats.close();
  await shared?.close();
  await redis.stop();
  await stopAll();
}

const rows = SYSTEMS.flatMap((system) =>
  (Object.keys(RESULTS) as ResultKind[]).map((result) => {
    const mine = cells.filter((c) => c.system === system && c.result === result);
    return {
      system,
      result,
      p50Us: median(mine.map((c) => c.p50Us)),
      p99Us: median(mine.map((c) => c.p99Us)),
      writes: median(mine.map((c) => c.storeWritesPerStep)),
      commands: system === 'resumable, Redis' ? median(mine.map((c) => c.redisCommandsPerStep!)) : undefined,
    };
  }),
);
const plain = (result: ResultKind) => rows.find((r) => r.system === 'plain task' && r.result === result)!.p50Us;
const machine = machineInfo();
const lines = [
  '# Checkpointed task steps (`npm run bench:task-steps`)',
  '',
  `${ROUNDS} rounds (after one unrecorded warm-up round) of one task per system and result, ${STEPS} trivial steps each; medians over the rounds of each round's p50 and p99. Node ${machine.node}, ${machine.cpuModel} × ${machine.logicalCores}, load average ${loadStart.toFixed(2)} → ${loadavg()[0]!.toFixed(2)} (the cores are shared).`,
  '',
  '| System | Step result | p50 µs per step | p99 µs per step | p50 added over a plain task, µs | Store writes per step | Redis commands per step (the EVAL and those its script runs) |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.system} | ${r.result} | ${r.p50Us.toFixed(1)} | ${r.p99Us.toFixed(1)} | ${r.system === 'plain task' ? '–' : (r.p50Us - plain(r.result)).toFixed(1)} | ${r.writes.toFixed(2)} | ${r.commands === undefined ? '–' : r.commands.toFixed(2)} |`,
  ),
  '',
];
mkdirSync(RESULTS_DIR, { recursive: true });
writeFileSync(`${RESULTS_DIR}task-steps.md`, lines.join('\n'));
writeFileSync(`${RESULTS_DIR}task-steps.json`, JSON.stringify({ machine, rounds: ROUNDS, steps: STEPS, cells }, null, 2));
console.log(lines.join('\n'));
