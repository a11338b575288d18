/**
 * Retained heap per abandoned flow: each server gets N first rounds of the
 * one-question MRTR flow that are never retried. A stateless server keeps
 * nothing of them, so its heap after full GCs should not grow. Measured
 * through each server's diagnostics endpoint (servers/diagnostics.ts). A
 * slow server stops early (config.abandonMaxSeconds); the report divides by
 * what was really sent.
 */

import type { BenchConfig } from '../config.js';
import { runHttpCell } from '../harness/http-cell.js';
import { log } from '../harness/log.js';
import { readMemory } from '../harness/memory-probe.js';
import type { ServerProcess } from '../harness/processes.js';
import type { MemoryRecord } from '../report/results.js';
import type { ServerId, SystemId } from '../systems.js';
import { confirmFirstRound, type HttpFlow } from '../workloads/http-flows.js';

const ABANDONED: HttpFlow = { unit: 'first round', steps: [confirmFirstRound] };
/** Each column on a server with the MRTR tool: the SDK at its best serves it alone, with its codec. */
const SYSTEMS: ReadonlyArray<[SystemId, ServerId]> = [
  ['tessera', 'tessera'],
  ['official', 'officialConfirm'],
  ['official50', 'officialFull'],
  ['officialPlain', 'officialConfirmPlain'],
  ['bare', 'bare'],
];

export async function runMemoryPhase(config: BenchConfig, servers: Record<ServerId, ServerProcess>, record: (m: MemoryRecord) => void): Promise<void> {
  for (const [system, id] of SYSTEMS) {
    const server = servers[id];
    const before = await readMemory(server.diagnosticsUrl, { gc: true });
    const sent = await runHttpCell({ url: server.url, flow: ABANDONED, connections: 16, amount: config.abandonedFlows, maxSeconds: config.abandonMaxSeconds });
    const after = await readMemory(server.diagnosticsUrl, { gc: true });
    const retained = after.heapUsed - before.heapUsed;
    record({
      system,
      abandonedFlows: sent.units,
      errors: sent.errors,
      heapBefore: before.heapUsed,
      heapAfter: after.heapUsed,
      retainedBytesPerFlow: retained / Math.max(1, sent.units),
      rssAfter: after.rss,
    });
    log(`memory ${system}: ${sent.units} abandoned first rounds, heap ${(before.heapUsed / 2 ** 20).toFixed(2)} → ${(after.heapUsed / 2 ** 20).toFixed(2)} MiB` +
      (sent.errors > 0 ? ` — ${sent.errors} ERRORS, e.g. ${sent.errorSamples.join(' | ')}` : ''));
  }
}
