/**
 * The issues' targets (7, 13, 15, 31), checked against the medians of a run.
 * Every ratio is against the official SDK at its best for that workload
 * (only the tools it calls, its codec for state); where wrk ran, the wrk
 * ratio is shown beside autocannon's and must meet the target too.
 */

import { summarize, type RunResults } from './results.js';
import { roundRatios } from './steady-table.js';

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | undefined;
}

/** Heap growth below this over all abandoned flows counts as "zero, within measurement noise". */
export const HEAP_NOISE_BYTES = 256 * 1024;

type Pick = 'rate' | 'p99' | 'tokenBytes';

/** `system`'s figure over `of`'s (Tessera's unless another system is named, e.g. the JSON floor). */
function ratio(results: RunResults, workload: string, pick: Pick, of: 'official' | 'bare' | 'bareJson' | 'officialJwt', system: 'tessera' | 'tesseraJwt' | 'bareJson' = 'tessera'): number | undefined {
  const measured = summarize(results, workload, system);
  const other = summarize(results, workload, of);
  if (!measured || !other) return undefined;
  const value = measured[pick] / other[pick];
  return Number.isFinite(value) ? value : undefined;
}

const times = (v: number): string => `${v.toFixed(2)}×`;
const percent = (v: number): string => `${(v * 100).toFixed(0)}%`;

/**
 * A bound on a ratio, met only when autocannon's ratio and wrk's (where wrk
 * ran) both meet it: autocannon can saturate before a fast server does (the
 * bare server's column), so one generator's figure alone can flatter.
 */
function bounded(meets: (value: number, bound: number) => boolean) {
  return (target: string, value: number | undefined, bound: number, format: (v: number) => string, wrk?: number): TargetCheck => {
    const measured = value === undefined ? 'not measured' : format(value);
    return { target, measured: wrk === undefined ? measured : `${measured} (wrk: ${format(wrk)})`, met: value === undefined ? undefined : meets(value, bound) && (wrk === undefined || meets(wrk, bound)) };
  };
}

const atLeast = bounded((value, bound) => value >= bound);
const atMost = bounded((value, bound) => value <= bound);

export function checkTargets(results: RunResults): TargetCheck[] {
  const r = (workload: string, pick: Pick, of: 'official' | 'bare' | 'bareJson' | 'officialJwt' = 'official'): number | undefined => ratio(results, workload, pick, of);
  // Server CPU per exchange, official over Tessera: how much more the SDK spends on the same work, whatever limited the rate.
  const cpuEdge = (workload: string): number | undefined => {
    const t = summarize(results, workload, 'tessera')?.serverCpuPerUnit;
    const o = summarize(results, workload, 'official')?.serverCpuPerUnit;
    return t !== undefined && o !== undefined && Number.isFinite(o / t) ? o / t : undefined;
  };
  const withCpu = (check: TargetCheck, workload: string): TargetCheck => {
    const edge = cpuEdge(workload);
    return edge === undefined ? check : { ...check, measured: `${check.measured}; server CPU per exchange: official ${times(edge)} Tessera's` };
  };
  // Ceiling µs over Tessera µs, the median of the per-round ratios (as the steady-state table): the share of the ceiling's efficiency Tessera reaches.
  const cpuShare = (workload: string, ceiling: 'bare' | 'bareJson' = 'bareJson'): number | undefined => roundRatios(results, workload, 'tessera', ceiling, 'cpu')?.median;
  // The JSON floor beside the bare target: how far below bare a server gets by parsing and serialising JSON alone.
  const withFloor = (check: TargetCheck, workload: string): TargetCheck => {
    const floor = ratio(results, workload, 'rate', 'bare', 'bareJson');
    return floor === undefined ? check : { ...check, measured: `${check.measured}; the JSON floor (bare + JSON, wrk): ${percent(floor)}` };
  };
  const checks: TargetCheck[] = [
    atLeast('HTTP echo c16: ≥ 8× official at its best, req/s', r('http-echo-c16', 'rate'), 8, times, r('wrk-echo-c16', 'rate')),
    atLeast('HTTP echo c64: ≥ 8× official at its best, req/s', r('http-echo-c64', 'rate'), 8, times, r('wrk-echo-c64', 'rate')),
    withFloor(atLeast('HTTP echo c16: ≥ 75% of bare req/s', r('http-echo-c16', 'rate', 'bare'), 0.75, percent, r('wrk-echo-c16', 'rate', 'bare')), 'wrk-echo-c16'),
    withFloor(atLeast('HTTP echo c64: ≥ 75% of bare req/s', r('http-echo-c64', 'rate', 'bare'), 0.75, percent, r('wrk-echo-c64', 'rate', 'bare')), 'wrk-echo-c64'),
    withCpu(atLeast('MRTR 1 question c16: ≥ 8× official at its best (its codec), exchanges/s', r('mrtr-confirm-c16', 'rate'), 8, times, r('wrk-mrtr-confirm-c16', 'rate')), 'wrk-mrtr-confirm-c16'),
    // Issue 31: MRTR against its ceiling (bare node:http parsing both requests of the exchange), by server CPU per exchange, both generators.
    atLeast('MRTR 1 question c16: ≥ 60% of the ceiling (bare + JSON), by server CPU per exchange (issue 31)', cpuShare('mrtr-confirm-c16'), 0.6, percent, cpuShare('wrk-mrtr-confirm-c16')),
    atLeast('HTTP echo c16: ≥ 75% of bare under wrk, by server CPU per request (issue 31)', cpuShare('wrk-echo-c16', 'bare'), 0.75, percent),
    withCpu(atLeast('MRTR 3 rounds + once c16: ≥ 8× official at its best (its codec), exchanges/s', r('mrtr-wizard-c16', 'rate'), 8, times, r('wrk-mrtr-wizard-c16', 'rate')), 'wrk-mrtr-wizard-c16'),
    atLeast(
      'HTTP echo + JWT verification c16: ≥ 8× official (echo only) with its bearer middleware (issue 13)',
      ratio(results, 'http-echo-jwt-c16', 'rate', 'officialJwt', 'tesseraJwt'),
      8,
      times,
    ),
    atMost('HTTP echo c64: p99 ≤ ¼ of official at its best', r('http-echo-c64', 'p99'), 0.25, (v) => `${times(v)} of official`, r('wrk-echo-c64', 'p99')),
    atLeast('stdio sequential: ≥ 3× official (echo only) calls/s', r('stdio-echo-seq', 'rate'), 3, times),
    atLeast('stdio sequential, one raw client for both: ≥ 3× official (echo only) calls/s (issue 31)', r('stdio-raw-echo-seq', 'rate'), 3, times),
    atLeast('stdio 16 in flight: ≥ 3× official (echo only) calls/s', r('stdio-echo-c16', 'rate'), 3, times),
    atMost('Sealed state, ~200 B ledger: no larger than the official codec\'s signed state', r('seal-200', 'tokenBytes'), 1, times),
  ];
  const heap = results.memory.find((m) => m.system === 'tessera');
  checks.push({
    target: `Zero retained heap per abandoned flow (growth < ${HEAP_NOISE_BYTES / 1024} KiB over all of them)`,
    measured: heap ? `${heap.retainedBytesPerFlow.toFixed(1)} B/flow (${((heap.heapAfter - heap.heapBefore) / 1024).toFixed(0)} KiB over ${heap.abandonedFlows})` : 'not measured',
    met: heap ? heap.heapAfter - heap.heapBefore < HEAP_NOISE_BYTES : undefined,
  });
  return checks;
}
