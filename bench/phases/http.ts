/**
 * The HTTP workloads: a warm-up per system and workload until its CPU per
 * unit stops falling (harness/steady-state.ts), then `rounds`
 * rounds in which every workload runs against each system in turn
 * (A, B, C, A, B, C …), so drift on the machine hits all systems alike.
 * Each cell also records how much CPU the server and the load generator
 * used, so a saturated generator shows in the report. wrk cells are skipped,
 * with one message, where wrk is not installed.
 */

import type { BenchConfig } from '../config.js';
import { processCpuSeconds } from '../harness/cpu.js';
import { runHttpCell, type CellResult } from '../harness/http-cell.js';
import { describeRate, log } from '../harness/log.js';
import { readMemory } from '../harness/memory-probe.js';
import type { ServerProcess } from '../harness/processes.js';
import { describeRule, warmUntilSteady } from '../harness/steady-state.js';
import { runWrkCell, wrkAvailable } from '../harness/wrk-cell.js';
import type { CellMeasurement, WarmupRecord } from '../report/results.js';
import type { ServerId, SystemId } from '../systems.js';
import { HTTP_WORKLOADS, type HttpWorkload } from '../workloads/http-workloads.js';

interface CellRun {
  workload: HttpWorkload;
  server: ServerProcess;
  seconds: number;
  headers: Record<string, string> | undefined;
  midway?: () => Promise<void>;
}

function runCell({ workload, server, seconds, headers, midway }: CellRun): Promise<CellResult> {
  if (workload.generator === 'wrk') return runWrkCell({ url: server.url, flow: workload.wrkFlow!, connections: workload.connections, seconds });
  return runHttpCell({ url: server.url, flow: workload.flow, connections: workload.connections, seconds, headers, midway });
}

/**
 * `recordWarmup` receives each system's warm-up (how many cells it took);
 * `headersFor` gives the headers a server's requests carry besides the
 * flow's (a bearer token for the servers that verify them); `all` the
 * workloads (the payloads, tasks and scale phases pass their own).
 */
export async function runHttpPhase(
  config: BenchConfig,
  servers: Record<ServerId, ServerProcess>,
  record: (cell: CellMeasurement) => void,
  recordWarmup: (warmup: WarmupRecord) => void,
  headersFor: (server: ServerId) => Record<string, string> | undefined = () => undefined,
  all: readonly HttpWorkload[] = HTTP_WORKLOADS,
): Promise<void> {
  const withWrk = wrkAvailable();
  if (!withWrk && all.some((w) => w.generator === 'wrk')) log('wrk is not installed (Debian: apt-get install wrk): the wrk rows are skipped, autocannon rows only');
  const workloads = all.filter((w) => w.generator !== 'wrk' || withWrk);
  const cellsOf = (workload: HttpWorkload): Array<[SystemId, ServerId]> => Object.entries(workload.systems) as Array<[SystemId, ServerId]>;

  // Each system warms on each workload (both generators) until its CPU per unit stops falling.
  log(`HTTP warm-up: ${describeRule(config.warmup)}`);
  const warmedSeconds = new Map<ServerId, number>();
  for (const workload of workloads) {
    for (const [system, id] of cellsOf(workload)) {
      const server = servers[id];
      const already = warmedSeconds.get(id) ?? 0;
      const outcome = await warmUntilSteady(async () => {
        const before = processCpuSeconds(server.pid);
        const warm = await runCell({ workload, server, seconds: config.warmup.cellSeconds, headers: headersFor(id) });
        const after = processCpuSeconds(server.pid);
        if (warm.errors > 0) log(`warm-up ${workload.id} ${id}: ${warm.errors} errors, e.g. ${warm.errorSamples.join(' | ')}`);
        return before === undefined || after === undefined || warm.units === 0 ? Number.NaN : ((after - before) / warm.units) * 1e6;
      }, config.warmup, already);
      warmedSeconds.set(id, already + outcome.series.length * config.warmup.cellSeconds);
      recordWarmup({ workload: workload.id, system, server: id, generator: workload.generator ?? 'autocannon', cpuPerUnitUs: outcome.series, steady: outcome.steady });
      log(`warm-up ${workload.id} ${id}: ${outcome.series.length} cells${outcome.steady ? '' : ' (not steady at the bound)'}, µs per unit ${outcome.series.map((v) => v.toFixed(0)).join(' → ')}`);
    }
  }

  for (let round = 1; round <= config.rounds; round++) {
    for (const workload of workloads) {
      for (const [system, id] of cellsOf(workload)) {
        const server = servers[id];
        // The cells of the other systems left this one idle: a short unrecorded cell puts it back where its warm-up left it.
        if (config.primeSeconds > 0) await runCell({ workload, server, seconds: config.primeSeconds, headers: headersFor(id) });
        let rssBytes: number | undefined;
        const serverCpuBefore = processCpuSeconds(server.pid);
        const result = await runCell({
          workload,
          server,
          seconds: config.httpSeconds,
          headers: headersFor(id),
          midway: workload.sampleRss
            ? async () => {
                rssBytes = (await readMemory(server.diagnosticsUrl)).rss;
              }
            : undefined,
        });
        const serverCpuAfter = processCpuSeconds(server.pid);
        // Multi-request units (MRTR exchanges, paged listings, polled tasks) record their own latency too.
        const exchanges = workload.flow.unit !== 'request';
        record({
          workload: workload.id,
          system,
          server: id,
          generator: workload.generator ?? 'autocannon',
          round,
          rate: result.unitsPerSecond,
          p50: result.p50,
          p99: result.p99,
          ...(exchanges ? { exchangeP50: result.unitP50, exchangeP99: result.unitP99 } : {}),
          requests: result.requests,
          errors: result.errors,
          errorSamples: result.errorSamples,
          ...(rssBytes !== undefined ? { rssBytes } : {}),
          ...(result.generatorCpuSeconds !== undefined ? { generatorCpu: result.generatorCpuSeconds / result.seconds } : {}),
          ...(serverCpuBefore !== undefined && serverCpuAfter !== undefined ? { serverCpu: (serverCpuAfter - serverCpuBefore) / result.seconds } : {}),
        });
        const unit = exchanges ? `${workload.flow.unit === 'exchange' ? 'exchange' : workload.flow.unit}s/s` : 'req/s';
        log(`round ${round}/${config.rounds} ${workload.id} ${id}: ${describeRate(result.unitsPerSecond, unit, result.p50, result.p99, result.errors)}`);
        if (result.errors > 0) log(`  e.g. ${result.errorSamples.join(' | ')}`);
      }
    }
  }
}
