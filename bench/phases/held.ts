/**
 * The memory cells of the scale phase (workloads/held-workloads.ts):
 * per round, every workload against each of its servers in turn, each cell
 * on a fresh server process (so one cell's leftovers never weigh on the
 * next). A cell warms the server up with a few hundred units (opened, then
 * closed), reads its RSS and heap after full GCs, opens the N units (each
 * checked; at most CONCURRENCY being opened at once), lets them sit, reads
 * RSS and heap after full GCs again, then checks that the server closed none
 * of them, closes them and stops the server by PID.
 */

import type { BenchConfig } from '../config.js';
import { raiseOwnFileLimit } from '../harness/file-limit.js';
import { HeldConnection, openMany } from '../harness/held-connections.js';
import { runHttpCell, type CellResult } from '../harness/http-cell.js';
import { log } from '../harness/log.js';
import { median } from '../harness/stats.js';
import { echoFlow } from '../workloads/http-flows.js';
import { readMemory } from '../harness/memory-probe.js';
import { startServer, stopPid } from '../harness/processes.js';
import type { CellMeasurement } from '../report/results.js';
import { HTTP_SERVERS, type ServerId, type SystemId } from '../systems.js';
import { HELD_WORKLOADS, type HeldWorkload } from '../workloads/held-workloads.js';

/** Units opened at once. */
const CONCURRENCY = 64;
/** Units opened and closed before the first reading, so that what a first request loads is not counted per connection. */
const WARM_UNITS = 300;
/** How long the held units sit before the second reading (the servers' timers and keep-alive comments run meanwhile). */
const SETTLE_MS = 2_000;
/** Open files wanted: the held sockets, plus the server's and this process's own. */
const FILES_WANTED = 65_536;
const MAX_ERROR_SAMPLES = 5;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function openUnits(url: URL, workload: HeldWorkload, count: number): Promise<{ connections: HeldConnection[]; errors: string[]; seconds: number }> {
  const connections: HeldConnection[] = [];
  const started = performance.now();
  const errors = await openMany(count, CONCURRENCY, (index) => {
    const connection = new HeldConnection(url);
    connections.push(connection);
    return workload.open(connection, index);
  });
  return { connections, errors, seconds: (performance.now() - started) / 1000 };
}

async function runCell(config: BenchConfig, workload: HeldWorkload, system: SystemId, id: ServerId, round: number): Promise<CellMeasurement> {
  const spec = HTTP_SERVERS[id];
  const server = await startServer({ name: spec.label, script: spec.script, args: spec.args, nodeFlags: ['--expose-gc'], startTimeoutMs: 60_000, fileLimit: FILES_WANTED });
  try {
    const url = new URL(server.url);
    const warm = await openUnits(url, workload, WARM_UNITS);
    for (const c of warm.connections) c.release();
    if (warm.errors.length > 0) log(`  warm-up ${workload.id} ${id}: ${warm.errors.length} errors, e.g. ${warm.errors[0]}`);
    await sleep(500); // the server notices the closes
    const echoCell = (): Promise<CellResult> => runHttpCell({ url: server.url, flow: echoFlow, connections: 16, seconds: config.httpSeconds });
    const baseline = workload.whileHeld?.kind === 'echo' ? await echoCell() : undefined;
    const before = await readMemory(server.diagnosticsUrl, { gc: true });
    const opened = await openUnits(url, workload, workload.count);
    await sleep(SETTLE_MS);
    const after = await readMemory(server.diagnosticsUrl, { gc: true });
    const loaded = workload.whileHeld?.kind === 'echo' ? await echoCell() : undefined;
    const fanOut = workload.whileHeld?.kind === 'fan-out' ? await measureFanOut(server.diagnosticsUrl, opened.connections, workload.whileHeld.marker) : undefined;
    if (loaded && baseline) log(`  echo c16 before → while held: p50 ${baseline.p50.toFixed(2)} → ${loaded.p50.toFixed(2)} ms, p99 ${baseline.p99.toFixed(2)} → ${loaded.p99.toFixed(2)} ms, ${Math.round(baseline.unitsPerSecond)} → ${Math.round(loaded.unitsPerSecond)} req/s`);
    if (fanOut) log(`  fan-out of one change to ${fanOut.told} streams: all told in ${fanOut.allMs.toFixed(1)} ms (median ${fanOut.p50Ms.toFixed(1)} ms)${fanOut.errors.length ? `, ${fanOut.errors.length} not told` : ''}`);
    const dropped = opened.connections.filter((c) => c.droppedByServer).length;
    for (const c of opened.connections) c.release();
    const errors = [
      ...opened.errors,
      ...(dropped > 0 ? [`${dropped} held connections closed by the server before the reading`] : []),
      ...(fanOut?.errors ?? []),
      ...(loaded?.errorSamples ?? []),
    ];
    const extraErrors = (fanOut?.errors.length ?? 0) + (loaded?.errors ?? 0) + (baseline?.errors ?? 0);
    const held = workload.count - opened.errors.length - dropped;
    const perHeld = (after.rss - before.rss) / Math.max(1, held);
    log(
      `round ${round} ${workload.id} ${id}: ${held.toLocaleString('en-US')} held, RSS ${(before.rss / 2 ** 20).toFixed(1)} → ${(after.rss / 2 ** 20).toFixed(1)} MiB ` +
        `(${Math.round(perHeld).toLocaleString('en-US')} B each), heap ${(before.heapUsed / 2 ** 20).toFixed(1)} → ${(after.heapUsed / 2 ** 20).toFixed(1)} MiB, opened in ${opened.seconds.toFixed(1)} s` +
        (errors.length > 0 ? ` — ${opened.errors.length + dropped} ERRORS, e.g. ${errors[0]}` : ''),
    );
    return {
      workload: workload.id,
      system,
      server: id,
      round,
      rate: held / opened.seconds,
      requests: workload.count,
      errors: opened.errors.length + dropped + extraErrors,
      errorSamples: [...new Set(errors)].slice(0, MAX_ERROR_SAMPLES),
      held,
      rssBefore: before.rss,
      rssBytes: after.rss,
      heapBefore: before.heapUsed,
      heapAfter: after.heapUsed,
      ...(loaded && baseline ? { p50: loaded.p50, p99: loaded.p99, baselineP50: baseline.p50, baselineP99: baseline.p99 } : {}),
      ...(fanOut ? { fanOutMs: fanOut.allMs, fanOutP50Ms: fanOut.p50Ms } : {}),
    };
  } finally {
    await stopPid(server.pid);
  }
}

interface FanOut {
  told: number;
  allMs: number;
  p50Ms: number;
  errors: string[];
}

/**
 * One change on the server (its diagnostics POST /change adds a tool), then
 * the time until each held stream received the notification naming it;
 * undefined where the server has no change hook.
 */
async function measureFanOut(diagnosticsUrl: string, connections: readonly HeldConnection[], marker: string): Promise<FanOut | undefined> {
  const arrivals = connections.map((c) => c.nextContaining(marker));
  const started = performance.now();
  const response = await fetch(new URL('/change', diagnosticsUrl), { method: 'POST' });
  if (response.status === 404) {
    for (const arrival of arrivals) arrival.catch(() => undefined);
    return undefined;
  }
  const settled = await Promise.allSettled(arrivals);
  const times = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value - started] : []));
  const errors = settled.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).message)] : []));
  return { told: times.length, allMs: times.length ? Math.max(...times) : Number.NaN, p50Ms: median(times), errors };
}

export async function runHeldPhase(config: BenchConfig, record: (cell: CellMeasurement) => void): Promise<void> {
  const need = Math.max(...HELD_WORKLOADS.map((w) => w.count)) + 1_000;
  const limit = raiseOwnFileLimit(FILES_WANTED);
  if (limit && limit.soft < need) throw new Error(`the load generator may open ${limit.soft} files (hard limit ${limit.hard}); the held-connection cells need ${need}`);
  log(`held connections: open-file limit ${limit ? `${limit.soft} (hard ${limit.hard})` : 'unknown'}, a fresh server per cell, ${config.rounds} round(s)`);
  for (let round = 1; round <= config.rounds; round++) {
    for (const workload of HELD_WORKLOADS) {
      for (const [system, id] of Object.entries(workload.systems) as Array<[SystemId, ServerId]>) {
        record(await runCell(config, workload, system, id, round));
      }
    }
  }
}
