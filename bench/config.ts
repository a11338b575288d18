/**
 * How long and how often each cell runs. The full run keeps HTTP and stdio
 * cells at 3 s (5 rounds) after each system reached its steady state; the
 * quick run is a one-round smoke test of every workload with a short
 * warm-up, for development.
 */

import type { SteadyStateRule } from './harness/steady-state.js';

export interface BenchConfig {
  mode: 'full' | 'quick';
  /** Interleaved rounds (A, B, C, A, B, C …); the report shows the median of these. */
  rounds: number;
  /** Seconds per HTTP cell. */
  httpSeconds: number;
  /** Seconds per stdio cell. */
  stdioSeconds: number;
  /** Seconds per seal + open cell (after its own 0.3 s warm-up). */
  sealSeconds: number;
  /** Unrecorded load per system and workload before round 1: until its CPU per unit stops falling (harness/steady-state.ts). */
  warmup: SteadyStateRule;
  /** Seconds of unrecorded load right before every measured HTTP cell: a server idle while the others ran starts its cell warm. */
  primeSeconds: number;
  /** Seconds of unrecorded load per system before the stdio rounds. */
  warmupSeconds: number;
  /** First rounds sent and never retried, for the retained-heap measurement. */
  abandonedFlows: number;
  /** …but for no longer than this: the official SDK takes far longer than Tessera to answer them. */
  abandonMaxSeconds: number;
}

export const FULL: BenchConfig = {
  mode: 'full',
  rounds: 5,
  httpSeconds: 3,
  stdioSeconds: 3,
  sealSeconds: 1,
  // The official SDK's servers take about 30 s of load to reach their steady cost (bench/README.md).
  warmup: { cellSeconds: 2, window: 2, maxFall: 0.1, minProcessSeconds: 30, maxCells: 16 },
  primeSeconds: 1,
  warmupSeconds: 6,
  abandonedFlows: 10_000,
  abandonMaxSeconds: 15,
};

export const QUICK: BenchConfig = {
  mode: 'quick',
  rounds: 1,
  httpSeconds: 1,
  stdioSeconds: 1,
  sealSeconds: 0.5,
  warmup: { cellSeconds: 1, window: 1, maxFall: 0.1, minProcessSeconds: 0, maxCells: 3 },
  primeSeconds: 0,
  warmupSeconds: 0.5,
  abandonedFlows: 1_000,
  abandonMaxSeconds: 2,
};

/** The official SDK's createMcpHandler responseMode; see the README's Performance section for why json. */
export const OFFICIAL_RESPONSE_MODE = 'json';

/** The environment variable bench servers started with `--redis` find the Redis URL in (the run starts the redis-server). */
export const REDIS_ENV = 'BENCH_REDIS_URL';
