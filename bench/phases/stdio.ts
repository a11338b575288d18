/**
 * stdio round trips, each SDK with its own client and its own server child,
 * interleaved like the HTTP cells: sequential (1 in flight) and 16 in flight.
 */

import type { BenchConfig } from '../config.js';
import { describeRate, log } from '../harness/log.js';
import type { CellMeasurement } from '../report/results.js';
import { OFFICIAL_SCRIPT, TESSERA_SCRIPT, type SystemId } from '../systems.js';
import { connectOfficial, connectTessera, runStdioCell, type StdioSubject } from '../workloads/stdio.js';

const CELLS = [
  { workload: 'stdio-echo-seq', inFlight: 1 },
  { workload: 'stdio-echo-c16', inFlight: 16 },
] as const;

export async function runStdioPhase(config: BenchConfig, record: (cell: CellMeasurement) => void): Promise<void> {
  const subjects = new Map<SystemId, StdioSubject>();
  try {
    subjects.set('tessera', await connectTessera(TESSERA_SCRIPT));
    subjects.set('official', await connectOfficial(OFFICIAL_SCRIPT));
    log(`stdio warm-up: ${config.warmupSeconds} s per system`);
    for (const subject of subjects.values()) await runStdioCell(subject, 16, config.warmupSeconds);

    for (let round = 1; round <= config.rounds; round++) {
      for (const cell of CELLS) {
        for (const [system, subject] of subjects) {
          const result = await runStdioCell(subject, cell.inFlight, config.stdioSeconds);
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
          });
          log(`round ${round}/${config.rounds} ${cell.workload} ${system}: ${describeRate(result.unitsPerSecond, 'calls/s', result.p50, result.p99, result.errors)}`);
          if (result.errors > 0) log(`  e.g. ${result.errorSamples.join(' | ')}`);
        }
      }
    }
  } finally {
    for (const subject of subjects.values()) await subject.close();
  }
}
