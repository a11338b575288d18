/** What a run records, and the medians the report is made of. */

import type { BenchConfig } from '../config.js';
import { median } from '../harness/stats.js';
import type { ServerId, SystemId } from '../systems.js';
import type { MachineInfo } from './machine.js';

/** One system in one cell of one round. */
export interface CellRecord {
  workload: string;
  /** The column the cell belongs to… */
  system: SystemId;
  /** …and the server process measured for it (HTTP cells). */
  server?: ServerId;
  /** Which load generator drove the cell (HTTP cells). */
  generator?: 'autocannon' | 'wrk';
  round: number;
  /** Requests/s for single-request workloads, exchanges/s for MRTR flows, operations/s for sealing. */
  rate: number;
  /** Per-request latency, ms (absent for sealing). */
  p50?: number;
  p99?: number;
  /** Per-exchange latency for MRTR flows, ms. */
  exchangeP50?: number;
  exchangeP99?: number;
  requests: number;
  errors: number;
  errorSamples: string[];
  /** Server RSS sampled halfway through the cell. */
  rssBytes?: number;
  /** CPU the load generator used over the cell, in cores (1 = one core busy all the time). */
  generatorCpu?: number;
  /** CPU the server process used over the cell, in cores. */
  serverCpu?: number;
  /** Size of one sealed state (sealing cells). */
  tokenBytes?: number;
  /** Held-connection cells (scale phase): how many connections or streams were open and checked when memory was read… */
  held?: number;
  /** …the server's RSS and V8 heap after full GCs before they were opened (rssBytes is the RSS with them open)… */
  rssBefore?: number;
  heapBefore?: number;
  /** …and the heap with them open. */
  heapAfter?: number;
  /** Held-connection cells with an echo cell while held: its p50/p99 (p50, p99) and the same cell's before the units were opened. */
  baselineP50?: number;
  baselineP99?: number;
  /** Fan-out cells: ms from one change until every held stream was told, and until half were. */
  fanOutMs?: number;
  fanOutP50Ms?: number;
  /** The machine's 1-minute load average when the cell ended: other work on the machine shows here. */
  load1: number;
}

/** What a phase measures; the run adds the load average. */
export type CellMeasurement = Omit<CellRecord, 'load1'>;

/** How one system warmed up on one workload before round 1 (harness/steady-state.ts). */
export interface WarmupRecord {
  workload: string;
  system: SystemId;
  server: ServerId;
  generator: 'autocannon' | 'wrk';
  /** Server CPU µs per unit of each warm-up cell, in order: its length is the number of cells it needed. */
  cpuPerUnitUs: number[];
  /** False when the bound on cells was reached while the CPU per unit was still falling. */
  steady: boolean;
}

export interface MemoryRecord {
  system: SystemId;
  abandonedFlows: number;
  errors: number;
  /** V8 heap used after full GCs, before and after the abandoned first rounds. */
  heapBefore: number;
  heapAfter: number;
  retainedBytesPerFlow: number;
  rssAfter: number;
}

export interface RunResults {
  date: string;
  wallSeconds: number;
  machine: MachineInfo;
  config: BenchConfig;
  officialResponseMode: string;
  /** 1-minute load average at the start and end: anything else running on the machine shows here. */
  loadAverage: { start: number; end: number };
  cells: CellRecord[];
  memory: MemoryRecord[];
  /** The steady-state rule and each system's warm-up under it (HTTP phases). */
  warmupRule?: string;
  warmups?: WarmupRecord[];
  /** How the load generator and the servers were placed on the cores. */
  pinning?: string;
  /** Whether the wrk rows ran (wrk installed). */
  wrk?: boolean;
}

export interface Summary {
  rate: number;
  p50: number;
  p99: number;
  exchangeP50: number;
  exchangeP99: number;
  rssBytes: number;
  tokenBytes: number;
  /** Held-connection cells: RSS before, and RSS and heap growth per held connection or stream, bytes. */
  rssBefore: number;
  rssPerHeld: number;
  heapPerHeld: number;
  baselineP50: number;
  baselineP99: number;
  fanOutMs: number;
  fanOutP50Ms: number;
  generatorCpu: number;
  serverCpu: number;
  /** Server CPU seconds per unit of work (request, exchange): what it costs, whether or not the server was the limit. */
  serverCpuPerUnit: number;
  errors: number;
  rounds: number;
}

const medianOf = (cells: CellRecord[], pick: (cell: CellRecord) => number | undefined): number =>
  median(cells.map(pick).filter((v): v is number => v !== undefined && !Number.isNaN(v)));

/** Medians across rounds of one system in one workload; undefined when it did not run there. */
export function summarize(results: RunResults, workload: string, system: SystemId): Summary | undefined {
  const cells = results.cells.filter((cell) => cell.workload === workload && cell.system === system);
  if (cells.length === 0) return undefined;
  return {
    rate: medianOf(cells, (c) => c.rate),
    p50: medianOf(cells, (c) => c.p50),
    p99: medianOf(cells, (c) => c.p99),
    exchangeP50: medianOf(cells, (c) => c.exchangeP50),
    exchangeP99: medianOf(cells, (c) => c.exchangeP99),
    rssBytes: medianOf(cells, (c) => c.rssBytes),
    tokenBytes: medianOf(cells, (c) => c.tokenBytes),
    rssBefore: medianOf(cells, (c) => c.rssBefore),
    rssPerHeld: medianOf(cells, (c) => (c.held && c.rssBefore !== undefined && c.rssBytes !== undefined ? (c.rssBytes - c.rssBefore) / c.held : undefined)),
    heapPerHeld: medianOf(cells, (c) => (c.held && c.heapBefore !== undefined && c.heapAfter !== undefined ? (c.heapAfter - c.heapBefore) / c.held : undefined)),
    baselineP50: medianOf(cells, (c) => c.baselineP50),
    baselineP99: medianOf(cells, (c) => c.baselineP99),
    fanOutMs: medianOf(cells, (c) => c.fanOutMs),
    fanOutP50Ms: medianOf(cells, (c) => c.fanOutP50Ms),
    generatorCpu: medianOf(cells, (c) => c.generatorCpu),
    serverCpu: medianOf(cells, (c) => c.serverCpu),
    serverCpuPerUnit: medianOf(cells, (c) => (c.serverCpu !== undefined && c.rate > 0 ? c.serverCpu / c.rate : undefined)),
    errors: cells.reduce((sum, c) => sum + c.errors, 0),
    rounds: cells.length,
  };
}

export function totalErrors(results: RunResults): number {
  return results.cells.reduce((sum, c) => sum + c.errors, 0) + results.memory.reduce((sum, m) => sum + m.errors, 0);
}
