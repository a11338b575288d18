/**
 * `npm run bench:cluster [-- --rounds N --seconds S]`: the several-instances rows (issue 16).
 *
 *   MRTR with single-use state, one instance, its redemptions in memory vs on Redis
 *     (one connection, and 16): what the shared store costs a flow (one SET NX PX per retry).
 *   Through nginx (deploy/nginx/mcp-cluster.conf, round-robin) to one instance vs
 *     three, every store on Redis: echo, and the single-use MRTR flow.
 *
 * Everything runs on 127.0.0.1 as separate processes (redis-server, nginx, the
 * servers of servers/tessera-cluster.ts), stopped by PID at the end, on an
 * error and on Ctrl-C. Cells are interleaved and repeated; the report is the
 * median of the rounds and the ratios between rows, written to
 * bench/results/cluster.json and cluster.md. Exits 1 when any response was wrong.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateStateKey } from 'tessera-mcp';
import { startNginx, startRedisServer, type Service } from './harness/cluster-services.js';
import { runHttpCell, type CellResult } from './harness/http-cell.js';
import { describeRate, log } from './harness/log.js';
import { startServer, stopAll, stopAllOnExit, stopPid, wasInterrupted, type ServerProcess } from './harness/processes.js';
import { median } from './harness/stats.js';
import { machineInfo } from './report/machine.js';
import { confirmFlow, echoFlow, type HttpFlow } from './workloads/http-flows.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '4' }, warmup: { type: 'string', default: '2' } } });
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);

const SCRIPT = fileURLToPath(new URL('./servers/tessera-cluster.js', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url));

type Target = 'memory, direct' | 'Redis, direct' | 'nginx → 1 instance' | 'nginx → 3 instances';

interface Row {
  workload: string;
  flow: HttpFlow;
  connections: number;
  targets: Target[];
  /** The ratio reported: `of` over `to`. */
  ratio: { of: Target; to: Target; label: string };
}

const ROWS: Row[] = [
  {
    // One connection: the latency a flow pays for the redemption's round trip to Redis, least blurred by contention.
    workload: 'MRTR single-use confirm c1',
    flow: confirmFlow,
    connections: 1,
    targets: ['memory, direct', 'Redis, direct'],
    ratio: { of: 'Redis, direct', to: 'memory, direct', label: 'Redis / memory' },
  },
  {
    workload: 'MRTR single-use confirm c16',
    flow: confirmFlow,
    connections: 16,
    targets: ['memory, direct', 'Redis, direct'],
    ratio: { of: 'Redis, direct', to: 'memory, direct', label: 'Redis / memory' },
  },
  {
    workload: 'echo c32',
    flow: echoFlow,
    connections: 32,
    targets: ['Redis, direct', 'nginx → 1 instance', 'nginx → 3 instances'],
    ratio: { of: 'nginx → 3 instances', to: 'nginx → 1 instance', label: '3 / 1 instances' },
  },
  {
    workload: 'MRTR single-use confirm c32',
    flow: confirmFlow,
    connections: 32,
    targets: ['nginx → 1 instance', 'nginx → 3 instances'],
    ratio: { of: 'nginx → 3 instances', to: 'nginx → 1 instance', label: '3 / 1 instances' },
  },
];

interface Cell extends CellResult {
  workload: string;
  target: Target;
  round: number;
  load1: number;
}

function portOf(server: ServerProcess): number {
  return Number(new URL(server.url).port);
}

stopAllOnExit();
// One key ring for every instance, as a deployment has (the servers read TESSERA_STATE_KEYS).
process.env.TESSERA_STATE_KEYS = generateStateKey('bench');
const cells: Cell[] = [];
const services: Service[] = [];
const servers: ServerProcess[] = [];
const started = performance.now();
const loadStart = loadavg()[0]!;
try {
  const redis = await startRedisServer();
  services.push(redis);
  const start = (name: string, args: string[]): Promise<ServerProcess> => startServer({ name, script: SCRIPT, args: ['--port', '0', ...args] });
  const memory = await start('memory', []);
  const onRedis = await Promise.all([1, 2, 3].map((n) => start(`redis ${n}`, ['--redis', redis.url])));
  servers.push(memory, ...onRedis);
  const nginxOne = await startNginx([portOf(onRedis[0]!)]);
  const nginxThree = await startNginx(onRedis.map(portOf));
  services.push(nginxOne, nginxThree);
  const urls: Record<Target, string> = {
    'memory, direct': memory.url,
    'Redis, direct': onRedis[0]!.url,
    'nginx → 1 instance': nginxOne.url,
    'nginx → 3 instances': nginxThree.url,
  };
  log(`redis ${redis.url}; memory ${memory.url}; on Redis ${onRedis.map((s) => s.url).join(', ')}; nginx ${nginxOne.url} (1), ${nginxThree.url} (3)`);

  for (const row of ROWS) {
    for (const target of row.targets) await runHttpCell({ url: urls[target], flow: row.flow, connections: row.connections, seconds: WARMUP });
  }
  for (let round = 1; round <= ROUNDS && !wasInterrupted(); round++) {
    for (const row of ROWS) {
      for (const target of row.targets) {
        const result = await runHttpCell({ url: urls[target], flow: row.flow, connections: row.connections, seconds: SECONDS });
        cells.push({ ...result, workload: row.workload, target, round, load1: loadavg()[0]! });
        log(`round ${round} ${row.workload} ${target}: ${describeRate(result.unitsPerSecond, row.flow.unit === 'request' ? 'req/s' : 'flows/s', result.p50, result.p99, result.errors)}`);
        for (const sample of result.errorSamples) log(`  error: ${sample}`);
      }
    }
  }
} finally {
  for (const server of servers) await stopPid(server.pid);
  for (const service of services.reverse()) await service.stop();
  await stopAll();
}

if (wasInterrupted()) {
  log('interrupted: no results written');
  await new Promise(() => {}); // the signal handler exits once every child is stopped
}

const medianOf = (workload: string, target: Target, pick: (c: Cell) => number): number =>
  median(cells.filter((c) => c.workload === workload && c.target === target).map(pick));

const lines = [
  `# Cluster bench, ${new Date().toISOString().slice(0, 10)}`,
  '',
  `${ROUNDS} interleaved rounds of ${SECONDS} s cells (after ${WARMUP} s of unrecorded warm-up each), medians; Node ${process.version}, ${machineInfo().cpuModel} × ${machineInfo().logicalCores}, load average ${loadStart.toFixed(2)} → ${loadavg()[0]!.toFixed(2)} (the cores are shared).`,
  '',
  '| Workload | Target | Units/s | Requests/s | Request p50 / p99 ms | Flow p50 / p99 ms | Errors |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
];
for (const row of ROWS) {
  for (const target of row.targets) {
    const errors = cells.filter((c) => c.workload === row.workload && c.target === target).reduce((sum, c) => sum + c.errors, 0);
    lines.push(
      `| ${row.workload} | ${target} | ${Math.round(medianOf(row.workload, target, (c) => c.unitsPerSecond)).toLocaleString('en-US')} | ${Math.round(medianOf(row.workload, target, (c) => c.requestsPerSecond)).toLocaleString('en-US')} | ${medianOf(row.workload, target, (c) => c.p50).toFixed(2)} / ${medianOf(row.workload, target, (c) => c.p99).toFixed(2)} | ${row.flow.unit === 'request' ? '–' : `${medianOf(row.workload, target, (c) => c.unitP50).toFixed(2)} / ${medianOf(row.workload, target, (c) => c.unitP99).toFixed(2)}`} | ${errors} |`,
    );
  }
}
lines.push('', '| Workload | Ratio | Value (median of per-round ratios) |', '| --- | --- | ---: |');
const ratios = ROWS.map((row) => {
  const perRound = [...new Set(cells.map((c) => c.round))].map((round) => {
    const of = cells.find((c) => c.workload === row.workload && c.target === row.ratio.of && c.round === round)!;
    const to = cells.find((c) => c.workload === row.workload && c.target === row.ratio.to && c.round === round)!;
    return of.unitsPerSecond / to.unitsPerSecond;
  });
  const value = median(perRound);
  lines.push(`| ${row.workload} | ${row.ratio.label} | ${value.toFixed(2)}× |`);
  return { workload: row.workload, label: row.ratio.label, perRound, median: value };
});
const report = lines.join('\n');
const errors = cells.reduce((sum, c) => sum + c.errors, 0);
mkdirSync(RESULTS_DIR, { recursive: true });
const json = { date: new Date().toISOString(), wallSeconds: (performance.now() - started) / 1000, machine: machineInfo(), rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP, loadAverage: { start: loadStart, end: loadavg()[0]! }, cells, ratios };
writeFileSync(`${RESULTS_DIR}cluster.json`, `${JSON.stringify(json, null, 2)}\n`);
writeFileSync(`${RESULTS_DIR}cluster.md`, `${report}\n`);
process.stdout.write(`${report}\n`);
log(`wrote ${RESULTS_DIR}cluster.json and cluster.md`);
if (errors > 0) {
  log(`${errors} wrong responses: the numbers above are not to be trusted`);
  process.exitCode = 1;
}
