/**
 * stdio round trips, interleaved like the HTTP cells. Two kinds of client:
 * each SDK with its own client and its own server child (sequential and 16
 * in flight), and one raw client (workloads/raw-stdio.ts) driving both
 * servers with the same bytes, sequentially, so that their ratio is the
 * servers' alone. Every subject first warms up until its server's CPU per
 * call stops falling (harness/steady-state.ts).
 */

import type { BenchConfig } from '../config.js';
import { processCpuSeconds } from '../harness/cpu.js';
import { describeRate, log } from '../harness/log.js';
import { describeRule, warmUntilSteady } from '../harness/steady-state.js';
import type { CellMeasurement, WarmupRecord } from '../report/results.js';
import { OFFICIAL_SCRIPT, TESSERA_SCRIPT, type SystemId } from '../systems.js';
import { connectRaw } from '../workloads/raw-stdio.js';
import { connectOfficial, connectTessera, runStdioCell, type StdioSubject } from '../workloads/stdio.js';

interface StdioCell {
  workload: string;
  inFlight: number;
  /** Which client drives the servers: each SDK's own, or the one raw client. */
  client: 'sdk' | 'raw';
}

const CELLS: readonly StdioCell[] = [
  { workload: 'stdio-echo-seq', inFlight: 1, client: 'sdk' },
  { workload: 'stdio-echo-c16', inFlight: 16, client: 'sdk' },
  { workload: 'stdio-raw-echo-seq', inFlight: 1, client: 'raw' },
];

export async function runStdioPhase(config: BenchConfig, record: (cell: CellMeasurement) => void, recordWarmup: (warmup: WarmupRecord) => void): Promise<void> {
  const subjects = { sdk: new Map<SystemId, StdioSubject>(), raw: new Map<SystemId, StdioSubject>() };
  /** CPU µs per call of the subject's server over one cell. */
  const measured = async (subject: StdioSubject, inFlight: number, seconds: number) => {
    const before = processCpuSeconds(subject.pid!);
    const result = await runStdioCell(subject, inFlight, seconds);
    const after = processCpuSeconds(subject.pid!);
    const serverCpu = before === undefined || after === undefined ? undefined : (after - before) / result.seconds;
    return { result, serverCpu };
  };
  try {
    subjects.sdk.set('tessera', await connectTessera(TESSERA_SCRIPT));
    subjects.sdk.set('official', await connectOfficial(OFFICIAL_SCRIPT));
    // The official server at its best over stdio: only the tool the cells call.
    subjects.raw.set('tessera', await connectRaw(TESSERA_SCRIPT, ['--stdio']));
    subjects.raw.set('official', await connectRaw(OFFICIAL_SCRIPT, ['--stdio', '--tools', 'echo']));
    log(`stdio warm-up: ${describeRule(config.warmup)}`);
    const warmedSeconds = new Map<StdioSubject, number>();
    for (const cell of CELLS) {
      for (const [system, subject] of subjects[cell.client]) {
        const already = warmedSeconds.get(subject) ?? 0;
        const outcome = await warmUntilSteady(async () => {
          const { result, serverCpu } = await measured(subject, cell.inFlight, config.warmup.cellSeconds);
          return serverCpu === undefined || result.unitsPerSecond === 0 ? Number.NaN : (serverCpu / result.unitsPerSecond) * 1e6;
        }, config.warmup, already);
        warmedSeconds.set(subject, already + outcome.series.length * config.warmup.cellSeconds);
        recordWarmup({ workload: cell.workload, system, server: system === 'tessera' ? 'tessera' : 'officialEcho', generator: 'autocannon', cpuPerUnitUs: outcome.series, steady: outcome.steady });
        log(`warm-up ${cell.workload} ${system}: ${outcome.series.length} cells, µs per call ${outcome.series.map((v) => v.toFixed(0)).join(' → ')}`);
      }
    }

    for (let round = 1; round <= config.rounds; round++) {
      for (const cell of CELLS) {
        for (const [system, subject] of subjects[cell.client]) {
          const { result, serverCpu } = await measured(subject, cell.inFlight, config.stdioSeconds);
          record({
            workload: cell.workload,
            system,
            round,
            rate: result.unitsPerSecond,
            p50: result.p50,
            p99: result.p99,
            requests: result.requests,
            errors: result.errors,
            errorSamples: result.errorSamples,
            ...(serverCpu !== undefined ? { serverCpu } : {}),
          });
          log(`round ${round}/${config.rounds} ${cell.workload} ${system}: ${describeRate(result.unitsPerSecond, 'calls/s', result.p50, result.p99, result.errors)}`);
          if (result.errors > 0) log(`  e.g. ${result.errorSamples.join(' | ')}`);
        }
      }
    }
  } finally {
    for (const group of Object.values(subjects)) for (const subject of group.values()) await subject.close();
  }
}
