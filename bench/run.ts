/**
 * `npm run bench [-- --quick] [-- --only http,stdio,seal,memory,payloads,tasks,scale]`
 *
 * Starts the Tessera, official SDK (plain state, codec state, echo only) and
 * bare servers as separate processes on 127.0.0.1, drives them from this one
 * process (the load generator), prints the report on stdout and writes
 * bench/results/latest.json and latest.md. Every child is stopped by PID at
 * the end, on an error and on Ctrl-C. Exits 1 when any response was wrong.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FULL, OFFICIAL_RESPONSE_MODE, QUICK, REDIS_ENV } from './config.js';
import { startRedisServer, type Service } from './harness/cluster-services.js';
import { log } from './harness/log.js';
import { startServer, stopAll, stopAllOnExit, stopPid, wasInterrupted, type ServerProcess } from './harness/processes.js';
import { runHeldPhase } from './phases/held.js';
import { runHttpPhase } from './phases/http.js';
import { runMemoryPhase } from './phases/memory.js';
import { runSealPhase } from './phases/seal.js';
import { runStdioPhase } from './phases/stdio.js';
import { machineInfo } from './report/machine.js';
import { totalErrors, type CellMeasurement, type RunResults, type WarmupRecord } from './report/results.js';
import { renderReport } from './report/table.js';
import { startTokenIssuer, ISSUER_ENV, type TokenIssuer } from './harness/token-issuer.js';
import { choosePinning } from './harness/pinning.js';
import { describeRule } from './harness/steady-state.js';
import { wrkAvailable } from './harness/wrk-cell.js';
import { HTTP_SERVERS, JWT_SERVERS, MEMORY_SERVERS, STARTED_SERVERS, PAYLOAD_SERVERS, SCALE_SERVERS, type ServerId } from './systems.js';
import { PAYLOAD_WORKLOADS, TASK_WORKLOADS } from './workloads/payload-workloads.js';
import { SESSION_WORKLOADS } from './workloads/session-workloads.js';

const PHASES = ['http', 'stdio', 'seal', 'memory', 'payloads', 'tasks', 'scale'] as const;
/** Phases that run only when named in --only, so the default run keeps its length. */
const OPT_IN: readonly Phase[] = ['payloads', 'tasks', 'scale'];
type Phase = (typeof PHASES)[number];

const USAGE = `usage: npm run bench [-- --quick] [-- --only ${PHASES.join(',')}] [-- --no-pin]
  --quick        a smoke run for development (one round of 1 s cells, a short warm-up)
  --rounds N     interleaved rounds (default 5 full, 1 quick)
  --only LIST    run only these phases (comma-separated)
  --no-pin       do not pin the load generator and the servers to different cores`;

function options(): { quick: boolean; rounds?: string | undefined; only?: string | undefined; help: boolean; 'no-pin': boolean } {
  try {
    return parseArgs({
      options: { quick: { type: 'boolean', default: false }, rounds: { type: 'string' }, only: { type: 'string' }, 'no-pin': { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

const values = options();
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const config = { ...(values.quick ? QUICK : FULL), ...(values.rounds ? { rounds: Number(values.rounds) } : {}) };
const phases = new Set<Phase>(values.only ? (values.only.split(',') as Phase[]) : PHASES.filter((p) => !OPT_IN.includes(p)));
for (const phase of phases) {
  if (!PHASES.includes(phase)) {
    process.stderr.write(`--only: unknown phase '${phase}'\n${USAGE}\n`);
    process.exit(2);
  }
}

// From dist/bench/run.js to the repository's bench/results/.
const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url));

stopAllOnExit();
const machine = machineInfo(); // before pinning: afterwards this process sees only its own core
const placement = choosePinning(!values['no-pin']);
const started = performance.now();
const results: RunResults = {
  date: new Date().toISOString(),
  wallSeconds: 0,
  machine,
  config,
  officialResponseMode: OFFICIAL_RESPONSE_MODE,
  loadAverage: { start: loadavg()[0]!, end: Number.NaN },
  cells: [],
  memory: [],
  pinning: placement.reason,
  wrk: wrkAvailable(),
  warmupRule: describeRule(config.warmup),
};
log(`${config.mode} run: ${[...phases].join(', ')} · Node ${process.version} · ${results.machine.cpuModel} × ${results.machine.logicalCores} · load average ${results.loadAverage.start.toFixed(2)} · ${placement.reason}`);

const servers = {} as Record<ServerId, ServerProcess>;
const tokens = new Map<ServerId, Record<string, string>>();
let issuer: TokenIssuer | undefined;
let redis: Service | undefined;
try {
  if (phases.has('http') || phases.has('memory') || phases.has('payloads') || phases.has('tasks') || phases.has('scale')) {
    // The JWT systems only take part in the HTTP phase; they learn the issuer from the environment they inherit.
    const started = [
      ...new Set([
        ...(phases.has('http') ? STARTED_SERVERS : phases.has('memory') ? MEMORY_SERVERS : []),
        ...(phases.has('payloads') || phases.has('tasks') ? PAYLOAD_SERVERS : []),
        ...(phases.has('scale') ? SCALE_SERVERS : []),
      ]),
    ];
    if (phases.has('scale')) {
      // The scale phase's Tessera-on-Redis servers share this one redis-server (no persistence), stopped at the end.
      redis = await startRedisServer();
      process.env[REDIS_ENV] = redis.url;
      log(`redis-server: ${redis.url}`);
    }
    if (phases.has('http')) {
      issuer = await startTokenIssuer();
      process.env[ISSUER_ENV] = issuer.url;
    }
    await Promise.all(
      started.map(async (id) => {
        const system = HTTP_SERVERS[id];
        // --expose-gc only lets the diagnostics endpoint force a collection; nothing calls gc() during load.
        servers[id] = await startServer({ name: system.label, script: system.script, args: system.args, nodeFlags: ['--expose-gc'], startTimeoutMs: 60_000 });
        log(`${system.label}: ${servers[id].url} (pid ${servers[id].pid})`);
      }),
    );
  }
  const record = (cell: CellMeasurement): void => {
    results.cells.push({ ...cell, load1: loadavg()[0]! });
  };
  const recordWarmup = (warmup: WarmupRecord): void => {
    (results.warmups ??= []).push(warmup);
  };
  if (issuer) {
    for (const id of JWT_SERVERS) tokens.set(id, { authorization: `Bearer ${await issuer.mint(servers[id].url)}` });
  }
  if (phases.has('http')) await runHttpPhase(config, servers, record, recordWarmup, (system) => tokens.get(system));
  if (phases.has('payloads')) await runHttpPhase(config, servers, record, recordWarmup, () => undefined, PAYLOAD_WORKLOADS);
  if (phases.has('tasks')) await runHttpPhase(config, servers, record, recordWarmup, () => undefined, TASK_WORKLOADS);
  if (phases.has('scale')) {
    await runHttpPhase(config, servers, record, recordWarmup, () => undefined, SESSION_WORKLOADS);
    await runHeldPhase(config, record);
  }
  if (phases.has('stdio')) await runStdioPhase(config, record, recordWarmup);
  if (phases.has('seal')) await runSealPhase(config, record);
  if (phases.has('memory')) await runMemoryPhase(config, servers, (m) => results.memory.push(m));
} finally {
  for (const server of Object.values(servers)) await stopPid(server.pid);
  await stopAll();
  await issuer?.close();
  await redis?.stop();
}

if (wasInterrupted()) {
  log('interrupted: no results written');
  await new Promise(() => {}); // the signal handler exits once every child is stopped
}

results.wallSeconds = (performance.now() - started) / 1000;
results.loadAverage.end = loadavg()[0]!;
const report = renderReport(results);
mkdirSync(RESULTS_DIR, { recursive: true });
writeFileSync(`${RESULTS_DIR}latest.json`, `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(`${RESULTS_DIR}latest.md`, `${report}\n`);
process.stdout.write(`${report}\n`);
log(`wrote ${RESULTS_DIR}latest.json and latest.md in ${results.wallSeconds.toFixed(0)} s`);

const errors = totalErrors(results);
if (errors > 0) {
  log(`${errors} wrong responses: the numbers above are not to be trusted`);
  process.exitCode = 1;
}
