/**
 * The headline tables of a run: every system at its steady state (after the
 * warm-up rule of harness/steady-state.ts), medians with their spread
 * (min–max over the interleaved rounds), both load generators, Tessera
 * against the official SDK at its best and against the ceiling. Ratios are
 * the median of the per-round ratios (the systems of a round ran within
 * seconds of each other, so a per-round ratio cancels most of the drift of
 * a shared machine), with their min–max.
 */

import { median } from '../harness/stats.js';
import { SYSTEM_LABELS, type SystemId } from '../systems.js';
import type { CellRecord, RunResults } from './results.js';

export interface SteadyRow {
  label: string;
  workload: string;
  generator: 'autocannon' | 'wrk';
  /** The ceiling this row compares with: bare node:http, or for MRTR bare node:http parsing each request (bareJson). */
  ceiling: SystemId;
}

export const STEADY_ROWS: readonly SteadyRow[] = [
  { label: 'echo c16', workload: 'http-echo-c16', generator: 'autocannon', ceiling: 'bare' },
  { label: 'echo c16', workload: 'wrk-echo-c16', generator: 'wrk', ceiling: 'bare' },
  { label: 'MRTR 1 question c16', workload: 'mrtr-confirm-c16', generator: 'autocannon', ceiling: 'bareJson' },
  { label: 'MRTR 1 question c16', workload: 'wrk-mrtr-confirm-c16', generator: 'wrk', ceiling: 'bareJson' },
  { label: 'MRTR 3 rounds + once c16', workload: 'mrtr-wizard-c16', generator: 'autocannon', ceiling: 'bareJson' },
  { label: 'MRTR 3 rounds + once c16', workload: 'wrk-mrtr-wizard-c16', generator: 'wrk', ceiling: 'bareJson' },
];

/** The stdio rows: no ceiling, Tessera against the official SDK (echo only) over the same pipe. */
export const STDIO_ROWS: ReadonlyArray<{ label: string; workload: string }> = [
  { label: 'stdio echo sequential, one raw client for both', workload: 'stdio-raw-echo-seq' },
  { label: 'stdio echo sequential, each SDK its own client', workload: 'stdio-echo-seq' },
  { label: 'stdio echo 16 in flight, each SDK its own client', workload: 'stdio-echo-c16' },
];

/** stdio at steady state: calls/s and server CPU per call, with the per-round ratios. */
export function stdioTable(results: RunResults): string | undefined {
  const rows = STDIO_ROWS.filter((row) => results.cells.some((c) => c.workload === row.workload)).map((row) => [
    `${row.label}, calls/s`,
    'stdio',
    range(systemSpread(results, row.workload, 'tessera', 'rate')),
    range(systemSpread(results, row.workload, 'official', 'rate')),
    range(roundRatios(results, row.workload, 'tessera', 'official', 'rate'), times),
    range(systemSpread(results, row.workload, 'tessera', 'cpu')),
    range(systemSpread(results, row.workload, 'official', 'cpu')),
    range(roundRatios(results, row.workload, 'tessera', 'official', 'cpu'), times),
  ]);
  if (rows.length === 0) return undefined;
  return markdownTable(['stdio, median (min–max) of rounds', 'transport', 'Tessera', 'Official (echo only)', 'T / official, rate', 'Tessera server µs per call', 'Official server µs per call', 'T / official, server CPU'], rows);
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  count: number;
}

export function spreadOf(values: readonly number[]): Spread | undefined {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return undefined;
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), count: finite.length };
}

const cellsOf = (results: RunResults, workload: string, system: SystemId): CellRecord[] => results.cells.filter((c) => c.workload === workload && c.system === system);
const cpuPerUnit = (c: CellRecord): number => (c.serverCpu !== undefined && c.rate > 0 ? (c.serverCpu / c.rate) * 1e6 : Number.NaN);

/** A system's rate or server µs per unit over the rounds. */
export function systemSpread(results: RunResults, workload: string, system: SystemId, pick: 'rate' | 'cpu'): Spread | undefined {
  return spreadOf(cellsOf(results, workload, system).map((c) => (pick === 'rate' ? c.rate : cpuPerUnit(c))));
}

/** `of(a) / of(b)` per round (the rounds both ran in), for rates, or `cpu(b) / cpu(a)` for CPU: above 1 means a is better. */
export function roundRatios(results: RunResults, workload: string, a: SystemId, b: SystemId, pick: 'rate' | 'cpu'): Spread | undefined {
  const byRound = new Map(cellsOf(results, workload, b).map((c) => [c.round, c]));
  const ratios = cellsOf(results, workload, a).flatMap((c) => {
    const other = byRound.get(c.round);
    if (!other) return [];
    return [pick === 'rate' ? c.rate / other.rate : cpuPerUnit(other) / cpuPerUnit(c)];
  });
  return spreadOf(ratios);
}

const int = (v: number): string => Math.round(v).toLocaleString('en-US');
const range = (s: Spread | undefined, format: (v: number) => string = int): string => (s ? `${format(s.median)} (${format(s.min)}–${format(s.max)})` : '–');
const times = (v: number): string => `${v.toFixed(2)}×`;
const percent = (v: number): string => `${(v * 100).toFixed(0)} %`;

function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i < 2 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** Rates and ratios at steady state, one row per workload and generator. */
export function steadyTable(results: RunResults): string | undefined {
  const rows = STEADY_ROWS.filter((row) => results.cells.some((c) => c.workload === row.workload && c.system === 'tessera')).map((row) => {
    const unit = row.workload.includes('echo') ? 'req/s' : 'exch/s';
    return [
      `${row.label}, ${unit}`,
      row.generator,
      range(systemSpread(results, row.workload, 'tessera', 'rate')),
      range(systemSpread(results, row.workload, 'official', 'rate')),
      `${range(systemSpread(results, row.workload, row.ceiling, 'rate'))} ${row.ceiling === 'bare' ? '(bare)' : '(bare + JSON)'}`,
      range(roundRatios(results, row.workload, 'tessera', 'official', 'rate'), times),
      range(roundRatios(results, row.workload, 'tessera', 'official', 'cpu'), times),
      range(roundRatios(results, row.workload, 'tessera', row.ceiling, 'rate'), percent),
      range(roundRatios(results, row.workload, 'tessera', row.ceiling, 'cpu'), percent),
    ];
  });
  if (rows.length === 0) return undefined;
  return markdownTable(
    ['Steady state, median (min–max) of rounds', 'generator', 'Tessera', 'Official at its best', 'Ceiling', 'T / official, rate', 'T / official, server CPU', 'T % of ceiling, rate', 'T % of ceiling, server CPU'],
    rows,
  );
}

/** Server CPU µs per request or exchange at steady state: the cost, whatever limited the rate. */
export function steadyCpuTable(results: RunResults): string | undefined {
  const rows = STEADY_ROWS.filter((row) => results.cells.some((c) => c.workload === row.workload && c.system === 'tessera')).map((row) => [
    row.label,
    row.generator,
    range(systemSpread(results, row.workload, 'tessera', 'cpu')),
    range(systemSpread(results, row.workload, 'official', 'cpu')),
    `${range(systemSpread(results, row.workload, row.ceiling, 'cpu'))} ${row.ceiling === 'bare' ? '(bare)' : '(bare + JSON)'}`,
  ]);
  if (rows.length === 0) return undefined;
  return markdownTable(['Server CPU µs per unit, median (min–max)', 'generator', 'Tessera', 'Official at its best', 'Ceiling'], rows);
}

/** How many warm-up cells each system needed on each workload, with its CPU per unit first → last. */
export function warmupTable(results: RunResults): string | undefined {
  const warmups = results.warmups ?? [];
  if (warmups.length === 0) return undefined;
  const systems = [...new Set(warmups.map((w) => w.system))];
  const workloads = [...new Set(warmups.map((w) => w.workload))];
  const rows = workloads.map((workload) => [
    workload,
    warmups.find((w) => w.workload === workload)!.generator,
    ...systems.map((system) => {
      const w = warmups.find((x) => x.workload === workload && x.system === system);
      if (!w) return '–';
      const first = w.cpuPerUnitUs[0]!;
      const last = w.cpuPerUnitUs[w.cpuPerUnitUs.length - 1]!;
      return `${w.cpuPerUnitUs.length}${w.steady ? '' : '!'} (${int(first)} → ${int(last)} µs)`;
    }),
  ]);
  return markdownTable(['Warm-up cells (server µs per unit, first → last)', 'generator', ...systems.map((s) => SYSTEM_LABELS[s])], rows);
}

/** The scale phase's rows: Tessera on memory and on Redis stores, the official SDK, bare node:http. */
const SCALE_SYSTEMS: readonly SystemId[] = ['tessera', 'tesseraRedis', 'official', 'bare'];

const held = (results: RunResults, workload: string, system: SystemId, pick: (c: CellRecord) => number | undefined): Spread | undefined =>
  spreadOf(cellsOf(results, workload, system).map((c) => pick(c) ?? Number.NaN));

const ms = (v: number): string => (v < 10 ? v.toFixed(2) : v.toFixed(1));

export function scaleTable(results: RunResults): string | undefined {
  const has = (workload: string): boolean => results.cells.some((c) => c.workload === workload);
  const perHeld = (c: CellRecord, after: number | undefined, before: number | undefined): number | undefined => (c.held && after !== undefined && before !== undefined ? (after - before) / c.held : undefined);
  const specs: Array<{ label: string; workload: string; value: (system: SystemId) => string }> = [
    { label: '2025-11-25 sessions c16 (initialize, initialized, DELETE), sessions/s', workload: 'legacy-sessions-c16', value: (s) => range(systemSpread(results, 'legacy-sessions-c16', s, 'rate')) },
    { label: '… server CPU µs per session', workload: 'legacy-sessions-c16', value: (s) => range(systemSpread(results, 'legacy-sessions-c16', s, 'cpu')) },
    { label: '10,000 idle keep-alive connections, RSS bytes per connection', workload: 'idle-connections-10k', value: (s) => range(held(results, 'idle-connections-10k', s, (c) => perHeld(c, c.rssBytes, c.rssBefore))) },
    { label: '… heap bytes per connection', workload: 'idle-connections-10k', value: (s) => range(held(results, 'idle-connections-10k', s, (c) => perHeld(c, c.heapAfter, c.heapBefore))) },
    { label: '… echo c16 p99 ms before → while held', workload: 'idle-connections-10k', value: (s) => {
      const before = held(results, 'idle-connections-10k', s, (c) => c.baselineP99);
      const during = held(results, 'idle-connections-10k', s, (c) => c.p99);
      return before && during ? `${ms(before.median)} → ${ms(during.median)}` : '–';
    } },
    { label: '1,000 subscriptions/listen streams, RSS bytes per stream', workload: 'listen-streams-1k', value: (s) => range(held(results, 'listen-streams-1k', s, (c) => perHeld(c, c.rssBytes, c.rssBefore))) },
    { label: '… heap bytes per stream', workload: 'listen-streams-1k', value: (s) => range(held(results, 'listen-streams-1k', s, (c) => perHeld(c, c.heapAfter, c.heapBefore))) },
    { label: '… one change told to all 1,000 streams, ms', workload: 'listen-streams-1k', value: (s) => range(held(results, 'listen-streams-1k', s, (c) => c.fanOutMs), ms) },
    { label: '1,000 2025-11-25 sessions with a GET stream, RSS bytes per session', workload: 'legacy-get-streams-1k', value: (s) => range(held(results, 'legacy-get-streams-1k', s, (c) => perHeld(c, c.rssBytes, c.rssBefore))) },
    { label: '… heap bytes per session', workload: 'legacy-get-streams-1k', value: (s) => range(held(results, 'legacy-get-streams-1k', s, (c) => perHeld(c, c.heapAfter, c.heapBefore))) },
  ];
  const rows = specs.filter((spec) => has(spec.workload)).map((spec) => [spec.label, '', ...SCALE_SYSTEMS.map(spec.value)]);
  if (rows.length === 0) return undefined;
  return markdownTable(['Scale, median (min–max) of rounds', '', ...SCALE_SYSTEMS.map((s) => SYSTEM_LABELS[s])], rows);
}
