/**
 * `npm run bench:profile [-- --seconds N] [-- --workload http-echo-c16] [-- --traced] [-- --system bare|bareJson|official]`
 *
 * CPU profile of the Tessera server under one HTTP workload (default: echo
 * at concurrency 16 with autocannon; a `wrk-*` workload, e.g. wrk-echo-c16,
 * loads it with wrk; `--traced`: with the OpenTelemetry SDK installed;
 * `--system`: the workload's bare or official server instead, to compare
 * the layers their time goes to): the
 * server runs under `node --cpu-prof`, gets a
 * warm-up and then N seconds of load, exits on SIGTERM (which writes the
 * profile), and the self-time summary goes to stdout and next to the profile
 * in bench/results/profile/.
 */

import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runHttpCell, type CellResult } from './harness/http-cell.js';
import { describeRate, log } from './harness/log.js';
import { choosePinning } from './harness/pinning.js';
import { startServer, stopAll, stopAllOnExit, stopPid } from './harness/processes.js';
import { runWrkCell, wrkAvailable } from './harness/wrk-cell.js';
import { renderProfileSummary, summarizeCpuProfile } from './report/cpu-profile-summary.js';
import { HTTP_SERVERS } from './systems.js';
import { HTTP_WORKLOADS } from './workloads/http-workloads.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '15' }, warmup: { type: 'string', default: '3' }, workload: { type: 'string', default: 'http-echo-c16' }, traced: { type: 'boolean', default: false }, system: { type: 'string', default: 'tessera' } },
});
const workload = HTTP_WORKLOADS.find((w) => w.id === values.workload);
if (!workload) throw new Error(`--workload is one of ${HTTP_WORKLOADS.map((w) => w.id).join(', ')}`);
if (workload.generator === 'wrk' && !wrkAvailable()) throw new Error(`${workload.id} needs wrk (apt-get install wrk)`);
/** One cell of the workload's own load generator: wrk for the wrk-* workloads (the bare server outruns autocannon), else autocannon. */
const runCell = (url: string, seconds: number): Promise<CellResult> =>
  workload.generator === 'wrk'
    ? runWrkCell({ url, flow: workload.wrkFlow!, connections: workload.connections, seconds })
    : runHttpCell({ url, flow: workload.flow, connections: workload.connections, seconds });

const PROFILE_DIR = fileURLToPath(new URL('../../bench/results/profile/', import.meta.url));
rmSync(PROFILE_DIR, { recursive: true, force: true });
mkdirSync(PROFILE_DIR, { recursive: true });

// Pinned like the bench (load generator and server on different cores), so profiles compare with its CPU rows.
log(choosePinning(true).reason);
stopAllOnExit();
// --traced: the same server with the OpenTelemetry SDK installed (the tracing overhead rows); --system: another column's server.
const BENCH_SERVER_CODE = /^dist\/bench\/servers\//;
const OWN_CODE: Record<string, RegExp> = { tessera: /^dist\/src\//, bare: BENCH_SERVER_CODE, bareJson: BENCH_SERVER_CODE, official: /^@modelcontextprotocol\// };
const own = OWN_CODE[values.system];
const serverId = values.system === 'tessera' ? (values.traced ? 'tesseraTraced' : 'tessera') : workload.systems[values.system as 'bare' | 'bareJson' | 'official'];
if (!own || !serverId) throw new Error(`--system is tessera, or bare, bareJson or official where the workload has them`);
const system = HTTP_SERVERS[serverId];
const server = await startServer({ name: system.label, script: system.script, args: system.args, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] });
// Every unit served (warm-up and load): the per-unit column of the layer table divides by it.
let units = 0;
try {
  log(`profiling ${system.label} (pid ${server.pid}) under ${workload.id}: ${values.warmup} s warm-up, ${values.seconds} s load`);
  const warmup = await runCell(server.url, Number(values.warmup));
  const result = await runCell(server.url, Number(values.seconds));
  units = warmup.units + result.units;
  log(`${workload.id}: ${describeRate(result.unitsPerSecond, workload.flow.unit === 'exchange' ? 'exchanges/s' : 'req/s', result.p50, result.p99, result.errors)}`);
} finally {
  await stopPid(server.pid, 10_000); // SIGTERM: the server exits cleanly and V8 writes the profile
  await stopAll();
}

const profiles = readdirSync(PROFILE_DIR).filter((name) => name.endsWith('.cpuprofile'));
const newest = profiles.map((name) => `${PROFILE_DIR}${name}`).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
if (!newest) throw new Error(`no .cpuprofile was written to ${PROFILE_DIR}`);
const unit = workload.flow.unit === 'exchange' ? 'exchange' : 'request';
const report = renderProfileSummary(summarizeCpuProfile(newest, 40, own), `${system.label} server, ${workload.label} (${newest})`, { count: units, label: unit });
writeFileSync(`${PROFILE_DIR}summary.md`, `${report}\n`);
process.stdout.write(`${report}\n`);
