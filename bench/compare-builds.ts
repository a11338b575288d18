/**
 * Two builds of Tessera side by side, for "does this change make it slower":
 *
 *   npm run bench:compare -- --base ../before [--rounds 5] [--seconds 10] [--warmup 30] [--flows echo,confirm,wizard]
 *
 * `--base` is another checkout of this repository, built (`npm ci && npm run
 * build` there; `git worktree add ../before <commit>` makes one). The bench
 * server of each build (bench/servers/tessera.ts, its own dist) is started on
 * the servers' core and warmed with `--warmup` seconds of every flow; then
 * each flow runs in interleaved wrk cells (base, this, this, base, …, so drift
 * on a shared machine falls on both), and the report gives each build's
 * median server CPU per unit (with min–max) and the ratio this ÷ base. CPU per
 * unit is the figure to read: rates move with whatever else the machine does.
 */

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { processCpuSeconds } from './harness/cpu.js';
import { log } from './harness/log.js';
import { choosePinning } from './harness/pinning.js';
import { startServer, stopAll, stopAllOnExit, type ServerProcess } from './harness/processes.js';
import { median } from './harness/stats.js';
import { runWrkCell, wrkAvailable, type WrkCellOptions } from './harness/wrk-cell.js';
import { TESSERA_SCRIPT } from './systems.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '30' },
    connections: { type: 'string', default: '16' },
    flows: { type: 'string', default: 'echo,confirm,wizard' },
  },
});
if (!values.base) {
  console.error('usage: npm run bench:compare -- --base <another built checkout> [--rounds N] [--seconds S] [--warmup S] [--connections C] [--flows echo,confirm,wizard]');
  process.exit(2);
}
const baseScript = resolve(values.base, 'dist/bench/servers/tessera.js');
if (!existsSync(baseScript)) {
  console.error(`${baseScript} is missing: run npm ci && npm run build in ${values.base} first`);
  process.exit(2);
}
if (!wrkAvailable()) {
  console.error('wrk is needed (apt-get install wrk)');
  process.exit(2);
}

const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const LABELS: Record<WrkCellOptions['flow'], string> = { echo: 'echo', confirm: 'MRTR, one question', wizard: 'MRTR, three rounds + once' };
const FLOWS = values.flows.split(',').map((flow) => flow.trim()) as Array<WrkCellOptions['flow']>;
const unknown = FLOWS.filter((flow) => !Object.hasOwn(LABELS, flow));
if (unknown.length > 0) {
  console.error(`--flows takes ${Object.keys(LABELS).join(', ')}; not ${unknown.join(', ')}`);
  process.exit(2);
}

stopAllOnExit();
const { reason } = choosePinning(true);
log(`pinning: ${reason}`);

interface Build {
  name: string;
  server: ServerProcess;
  /** Server µs of CPU per unit, one value per measured cell, by flow. */
  cpu: Map<string, number[]>;
  rate: Map<string, number[]>;
}

async function cell(build: Build, flow: WrkCellOptions['flow'], cellSeconds: number, record: boolean): Promise<void> {
  const before = processCpuSeconds(build.server.pid);
  const result = await runWrkCell({ url: build.server.url, flow, connections, seconds: cellSeconds });
  const after = processCpuSeconds(build.server.pid);
  if (result.errors > 0) throw new Error(`${build.name} ${flow}: ${result.errors} errors (${result.errorSamples.join('; ')})`);
  if (!record || before === undefined || after === undefined || result.units === 0) return;
  const push = (map: Map<string, number[]>, value: number): void => void (map.get(flow) ?? map.set(flow, []).get(flow)!).push(value);
  push(build.cpu, ((after - before) * 1e6) / result.units);
  push(build.rate, result.unitsPerSecond);
}

try {
  const builds: Build[] = [];
  for (const [name, script] of [['base', baseScript], ['this', TESSERA_SCRIPT]] as const) {
    builds.push({ name, server: await startServer({ name: `tessera (${name})`, script }), cpu: new Map(), rate: new Map() });
  }
  log(`warming each server for ${values.warmup} s`);
  for (const build of builds) for (const flow of FLOWS) await cell(build, flow, Math.max(1, Number(values.warmup) / FLOWS.length), false);
  for (let round = 0; round < rounds; round++) {
    // Alternate which build goes first, so a trend over the run falls on both alike.
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const flow of FLOWS) for (const build of order) await cell(build, flow, seconds, true);
    log(`round ${round + 1} of ${rounds} done`);
  }
  const spread = (values: readonly number[]): string => `${Math.round(median(values))} (${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))})`;
  console.log(`\n| flow, wrk c${connections}, ${rounds} × ${seconds} s | base µs CPU/unit | this µs CPU/unit | this ÷ base | base units/s | this units/s |`);
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  const [base, current] = builds as [Build, Build];
  for (const flow of FLOWS) {
    const b = base.cpu.get(flow) ?? [];
    const c = current.cpu.get(flow) ?? [];
    if (b.length === 0 || c.length === 0) continue;
    console.log(`| ${LABELS[flow]} | ${spread(b)} | ${spread(c)} | ${(median(c) / median(b)).toFixed(2)} | ${spread(base.rate.get(flow)!)} | ${spread(current.rate.get(flow)!)} |`);
  }
} finally {
  await stopAll();
}
