/**
 * requestState seal + open per second, interleaved by round: Tessera's
 * StateSealer against the official SDK's createRequestStateCodec (recorded
 * under "official at its best", with a `bind` on the method so the state is bound as Tessera's is; the SDK's default state is unprotected, so it has
 * nothing to measure here).
 */

import type { BenchConfig } from '../config.js';
import { describeRate, log } from '../harness/log.js';
import type { CellMeasurement } from '../report/results.js';
import type { SystemId } from '../systems.js';
import { runStateSealCell, type SealSystem } from '../workloads/state-seal.js';

export const LEDGER_SIZES = [200, 16 * 1024] as const;

const SYSTEMS: ReadonlyArray<{ seal: SealSystem; system: SystemId }> = [
  { seal: 'tessera', system: 'tessera' },
  { seal: 'official', system: 'official' },
];

export async function runSealPhase(config: BenchConfig, record: (cell: CellMeasurement) => void): Promise<void> {
  for (let round = 1; round <= config.rounds; round++) {
    for (const bytes of LEDGER_SIZES) {
      for (const { seal, system } of SYSTEMS) {
        const result = await runStateSealCell(seal, bytes, config.sealSeconds);
        record({ workload: `seal-${bytes}`, system, round, rate: result.opsPerSecond, requests: result.ops, errors: 0, errorSamples: [], tokenBytes: result.tokenBytes });
        log(`round ${round}/${config.rounds} seal-${bytes} ${system}: ${describeRate(result.opsPerSecond, 'seal+open/s')} (token ${result.tokenBytes} B)`);
      }
    }
  }
}
