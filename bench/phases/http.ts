/**
 * The HTTP workloads: a warm-up per system and workload, then `rounds`
 * rounds in which every workload runs against each system in turn
 * (A, B, C, A, B, C …), so drift on the machine hits all systems alike.
 */

import type { BenchConfig } from '../config.js';
import { runHttpCell } from '../harness/http-cell.js';
import { describeRate, log } from '../harness/log.js';
import { readMemory } from '../harness/memory-probe.js';
import type { ServerProcess } from '../harness/processes.js';
import type { CellMeasurement } from '../report/results.js';
import type { SystemId } from '../systems.js';
import { HTTP_WORKLOADS } from '../workloads/http-workloads.js';

/**
 * `headersFor` gives the headers a system's requests carry besides the
 * flow's (a bearer token for the systems that verify them).
 */
export async function runHttpPhase(
  config: BenchConfig,
  servers: Record<SystemId, ServerProcess>,
  record: (cell: CellMeasurement) => void,
  headersFor: (system: SystemId) => Record<string, string> | undefined = () => undefined,
): Promise<void> {
  log(`HTTP warm-up: ${config.warmupSeconds} s per system and workload`);
  for (const workload of HTTP_WORKLOADS) {
    for (const system of workload.systems) {
      const warm = await runHttpCell({ url: servers[system].url, flow: workload.flow, connections: workload.connections, seconds: config.warmupSeconds, headers: headersFor(system) });
      if (warm.errors > 0) log(`warm-up ${workload.id} ${system}: ${warm.errors} errors, e.g. ${warm.errorSamples.join(' | ')}`);
    }
  }

  for (let round = 1; round <= config.rounds; round++) {
    for (const workload of HTTP_WORKLOADS) {
      for (const system of workload.systems) {
        const server = servers[system];
        let rssBytes: number | undefined;
        const result = await runHttpCell({
          url: server.url,
          flow: workload.flow,
          connections: workload.connections,
          seconds: config.httpSeconds,
          headers: headersFor(system),
          midway: workload.sampleRss
            ? async () => {
                rssBytes = (await readMemory(server.diagnosticsUrl)).rss;
              }
            : undefined,
        });
        const exchanges = workload.flow.unit === 'exchange';
        record({
          workload: workload.id,
          system,
          round,
          rate: result.unitsPerSecond,
          p50: result.p50,
          p99: result.p99,
          ...(exchanges ? { exchangeP50: result.unitP50, exchangeP99: result.unitP99 } : {}),
          requests: result.requests,
          errors: result.errors,
          errorSamples: result.errorSamples,
          ...(rssBytes !== undefined ? { rssBytes } : {}),
        });
        const unit = exchanges ? 'exchanges/s' : 'req/s';
        log(`round ${round}/${config.rounds} ${workload.id} ${system}: ${describeRate(result.unitsPerSecond, unit, result.p50, result.p99, result.errors)}`);
        if (result.errors > 0) log(`  e.g. ${result.errorSamples.join(' | ')}`);
      }
    }
  }
}
