/** The targets, checked against the medians of a run. */

import { summarize, type RunResults } from './results.js';

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | undefined;
}

/** Heap growth below this over all abandoned flows counts as "zero, within measurement noise". */
export const HEAP_NOISE_BYTES = 256 * 1024;

function ratio(
  results: RunResults,
  workload: string,
  pick: 'rate' | 'p99',
  of: 'official' | 'officialEchoOnly' | 'bare' | 'officialJwt',
  tesseraSystem: 'tessera' | 'tesseraJwt' = 'tessera',
): number | undefined {
  const tessera = summarize(results, workload, tesseraSystem);
  const other = summarize(results, workload, of);
  if (!tessera || !other) return undefined;
  return tessera[pick] / other[pick];
}

function atLeast(target: string, value: number | undefined, bound: number, format: (v: number) => string): TargetCheck {
  return { target, measured: value === undefined ? 'not measured' : format(value), met: value === undefined ? undefined : value >= bound };
}

const times = (v: number): string => `${v.toFixed(2)}×`;
const percent = (v: number): string => `${(v * 100).toFixed(0)}%`;

/** The same target against the official server that registers only echo, as a second opinion in the text. */
function withEchoOnly(check: TargetCheck, results: RunResults, workload: string, pick: 'rate' | 'p99'): TargetCheck {
  const reference = ratio(results, workload, pick, 'officialEchoOnly');
  return reference === undefined ? check : { ...check, measured: `${check.measured} (vs echo-only official: ${times(reference)})` };
}

export function checkTargets(results: RunResults): TargetCheck[] {
  const checks: TargetCheck[] = [
    withEchoOnly(atLeast('HTTP echo c16: ≥ 8× official req/s', ratio(results, 'http-echo-c16', 'rate', 'official'), 8, times), results, 'http-echo-c16', 'rate'),
    withEchoOnly(atLeast('HTTP echo c64: ≥ 8× official req/s', ratio(results, 'http-echo-c64', 'rate', 'official'), 8, times), results, 'http-echo-c64', 'rate'),
    atLeast('HTTP echo c16: ≥ 50% of bare req/s', ratio(results, 'http-echo-c16', 'rate', 'bare'), 0.5, percent),
    atLeast('HTTP echo c64: ≥ 50% of bare req/s', ratio(results, 'http-echo-c64', 'rate', 'bare'), 0.5, percent),
    atLeast('MRTR exchanges/s c16: ≥ 8× official', ratio(results, 'mrtr-confirm-c16', 'rate', 'official'), 8, times),
    atLeast('HTTP echo + JWT verification c16: ≥ 8× official with its bearer middleware (issue 13)', ratio(results, 'http-echo-jwt-c16', 'rate', 'officialJwt', 'tesseraJwt'), 8, times),
  ];
  const p99 = ratio(results, 'http-echo-c64', 'p99', 'official');
  checks.push(
    withEchoOnly(
      { target: 'HTTP echo c64: p99 ≤ ¼ of official', measured: p99 === undefined ? 'not measured' : `${times(p99)} of official`, met: p99 === undefined ? undefined : p99 <= 0.25 },
      results,
      'http-echo-c64',
      'p99',
    ),
  );
  checks.push(
    atLeast('stdio sequential: ≥ 2× official calls/s', ratio(results, 'stdio-echo-seq', 'rate', 'official'), 2, times),
    atLeast('stdio 16 in flight: ≥ 2× official calls/s', ratio(results, 'stdio-echo-c16', 'rate', 'official'), 2, times),
  );
  const heap = results.memory.find((m) => m.system === 'tessera');
  checks.push({
    target: `Zero retained heap per abandoned flow (growth < ${HEAP_NOISE_BYTES / 1024} KiB over all of them)`,
    measured: heap ? `${heap.retainedBytesPerFlow.toFixed(1)} B/flow (${((heap.heapAfter - heap.heapBefore) / 1024).toFixed(0)} KiB over ${heap.abandonedFlows})` : 'not measured',
    met: heap ? heap.heapAfter - heap.heapBefore < HEAP_NOISE_BYTES : undefined,
  });
  return checks;
}
