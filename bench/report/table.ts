/**
 * The report as Markdown (stdout, and pasted into the README): one row per
 * measured quantity, medians across rounds, then the ratios and the targets.
 */

import { SYSTEM_LABELS, SYSTEM_ORDER, type SystemId } from '../systems.js';
import { summarize, totalErrors, type RunResults, type Summary } from './results.js';
import { scaleTable, stdioTable, steadyCpuTable, steadyTable, warmupTable } from './steady-table.js';
import { checkTargets } from './targets.js';

type RowKind = 'rate' | 'heldLatency' | 'fanOut' | 'latency' | 'exchangeLatency' | 'rss' | 'token' | 'cpu' | 'cpuPerUnit' | 'rssBeforeAfter' | 'rssPerHeld' | 'heapPerHeld';

interface RowSpec {
  label: string;
  workload: string;
  kind: RowKind;
  /** Which system's measurement a column shows, when not its own (the JWT rows: Tessera + JWT under Tessera…). */
  columns?: Partial<Record<SystemId, SystemId>>;
}

const JWT_COLUMNS: Partial<Record<SystemId, SystemId>> = { tessera: 'tesseraJwt', official: 'officialJwt' };
const JWT_NO_CACHE_COLUMNS: Partial<Record<SystemId, SystemId>> = { tessera: 'tesseraJwtNoCache', official: 'officialJwt' };

const ROWS: readonly RowSpec[] = [
  { label: 'HTTP echo c1, req/s', workload: 'http-echo-c1', kind: 'rate' },
  { label: 'HTTP echo c1, p50 / p99 ms', workload: 'http-echo-c1', kind: 'latency' },
  { label: 'HTTP echo c16, req/s', workload: 'http-echo-c16', kind: 'rate' },
  { label: 'HTTP echo c16, p50 / p99 ms', workload: 'http-echo-c16', kind: 'latency' },
  { label: 'HTTP echo c64, req/s', workload: 'http-echo-c64', kind: 'rate' },
  { label: 'HTTP echo c64, p50 / p99 ms', workload: 'http-echo-c64', kind: 'latency' },
  { label: 'HTTP echo c64, server RSS MiB', workload: 'http-echo-c64', kind: 'rss' },
  { label: 'HTTP tools/list (50 tools) c16, req/s', workload: 'http-list-c16', kind: 'rate' },
  { label: 'HTTP tools/list c16, p50 / p99 ms', workload: 'http-list-c16', kind: 'latency' },
  { label: 'MRTR 1 question c16, exchanges/s', workload: 'mrtr-confirm-c16', kind: 'rate' },
  { label: 'MRTR 1 question c16, exchange p50 / p99 ms', workload: 'mrtr-confirm-c16', kind: 'exchangeLatency' },
  { label: 'MRTR 1 question c16, server RSS MiB', workload: 'mrtr-confirm-c16', kind: 'rss' },
  { label: 'MRTR 3 rounds + once c16, exchanges/s', workload: 'mrtr-wizard-c16', kind: 'rate' },
  { label: 'MRTR 3 rounds + once c16, exchange p50 / p99 ms', workload: 'mrtr-wizard-c16', kind: 'exchangeLatency' },
  { label: 'HTTP echo c16, CPU generator / server (autocannon)', workload: 'http-echo-c16', kind: 'cpu' },
  { label: 'HTTP echo c16, server CPU µs per request', workload: 'http-echo-c16', kind: 'cpuPerUnit' },
  { label: 'HTTP echo c64, CPU generator / server (autocannon)', workload: 'http-echo-c64', kind: 'cpu' },
  { label: 'MRTR 1 question c16, CPU generator / server (autocannon)', workload: 'mrtr-confirm-c16', kind: 'cpu' },
  { label: 'MRTR 1 question c16, server CPU µs per exchange', workload: 'mrtr-confirm-c16', kind: 'cpuPerUnit' },
  { label: 'MRTR 3 rounds + once c16, CPU generator / server (autocannon)', workload: 'mrtr-wizard-c16', kind: 'cpu' },
  { label: 'MRTR 3 rounds + once c16, server CPU µs per exchange', workload: 'mrtr-wizard-c16', kind: 'cpuPerUnit' },
  { label: 'wrk: HTTP echo c16, req/s', workload: 'wrk-echo-c16', kind: 'rate' },
  { label: 'wrk: HTTP echo c16, p50 / p99 ms', workload: 'wrk-echo-c16', kind: 'latency' },
  { label: 'wrk: HTTP echo c16, CPU generator / server', workload: 'wrk-echo-c16', kind: 'cpu' },
  { label: 'wrk: HTTP echo c16, server CPU µs per request', workload: 'wrk-echo-c16', kind: 'cpuPerUnit' },
  { label: 'wrk: HTTP echo c64, req/s', workload: 'wrk-echo-c64', kind: 'rate' },
  { label: 'wrk: HTTP echo c64, p50 / p99 ms', workload: 'wrk-echo-c64', kind: 'latency' },
  { label: 'wrk: HTTP echo c64, CPU generator / server', workload: 'wrk-echo-c64', kind: 'cpu' },
  { label: 'wrk: MRTR 1 question c16, exchanges/s', workload: 'wrk-mrtr-confirm-c16', kind: 'rate' },
  { label: 'wrk: MRTR 1 question c16, exchange p50 / p99 ms', workload: 'wrk-mrtr-confirm-c16', kind: 'exchangeLatency' },
  { label: 'wrk: MRTR 1 question c16, CPU generator / server', workload: 'wrk-mrtr-confirm-c16', kind: 'cpu' },
  { label: 'wrk: MRTR 1 question c16, server CPU µs per exchange', workload: 'wrk-mrtr-confirm-c16', kind: 'cpuPerUnit' },
  { label: 'wrk: MRTR 3 rounds + once c16, exchanges/s', workload: 'wrk-mrtr-wizard-c16', kind: 'rate' },
  { label: 'wrk: MRTR 3 rounds + once c16, exchange p50 / p99 ms', workload: 'wrk-mrtr-wizard-c16', kind: 'exchangeLatency' },
  { label: 'wrk: MRTR 3 rounds + once c16, CPU generator / server', workload: 'wrk-mrtr-wizard-c16', kind: 'cpu' },
  { label: 'wrk: MRTR 3 rounds + once c16, server CPU µs per exchange', workload: 'wrk-mrtr-wizard-c16', kind: 'cpuPerUnit' },
  { label: 'HTTP echo + JWT verification c16 (official: bearer middleware), req/s', workload: 'http-echo-jwt-c16', kind: 'rate', columns: JWT_COLUMNS },
  { label: 'HTTP echo + JWT c16, p50 / p99 ms', workload: 'http-echo-jwt-c16', kind: 'latency', columns: JWT_COLUMNS },
  { label: 'HTTP echo + JWT c16, Tessera verifying every request (no token cache), req/s', workload: 'http-echo-jwt-c16', kind: 'rate', columns: JWT_NO_CACHE_COLUMNS },
  { label: 'HTTP echo + JWT c16 no token cache, p50 / p99 ms', workload: 'http-echo-jwt-c16', kind: 'latency', columns: JWT_NO_CACHE_COLUMNS },
  { label: 'HTTP resources/read 1 MiB c16, req/s', workload: 'http-resource-1mib-c16', kind: 'rate' },
  { label: 'HTTP resources/read 1 MiB c16, p50 / p99 ms', workload: 'http-resource-1mib-c16', kind: 'latency' },
  { label: 'HTTP resources/read 1 MiB c16, server RSS MiB', workload: 'http-resource-1mib-c16', kind: 'rss' },
  { label: 'HTTP resources/read 1 MiB c16, CPU generator / server', workload: 'http-resource-1mib-c16', kind: 'cpu' },
  { label: 'HTTP resources/read 1 MiB c16, server CPU µs per request', workload: 'http-resource-1mib-c16', kind: 'cpuPerUnit' },
  { label: 'HTTP tools/call 64 KiB arguments c16, req/s', workload: 'http-args-64kib-c16', kind: 'rate' },
  { label: 'HTTP tools/call 64 KiB arguments c16, p50 / p99 ms', workload: 'http-args-64kib-c16', kind: 'latency' },
  { label: 'HTTP tools/call 64 KiB arguments c16, server CPU µs per request', workload: 'http-args-64kib-c16', kind: 'cpuPerUnit' },
  { label: 'HTTP tools/list 1,000 tools, all pages c16, listings/s', workload: 'http-list-1000-c16', kind: 'rate' },
  { label: 'HTTP tools/list 1,000 tools c16, listing p50 / p99 ms', workload: 'http-list-1000-c16', kind: 'exchangeLatency' },
  { label: 'HTTP tools/list 1,000 tools c16, CPU generator / server', workload: 'http-list-1000-c16', kind: 'cpu' },
  { label: 'HTTP tools/list 1,000 tools c16, server CPU µs per listing', workload: 'http-list-1000-c16', kind: 'cpuPerUnit' },
  { label: 'HTTP tasks created and polled to completed c16, tasks/s', workload: 'http-tasks-c16', kind: 'rate' },
  { label: 'HTTP tasks c16, task p50 / p99 ms (call + polls)', workload: 'http-tasks-c16', kind: 'exchangeLatency' },
  { label: 'HTTP tasks c16, server RSS MiB', workload: 'http-tasks-c16', kind: 'rss' },
  { label: 'HTTP tasks c16, CPU generator / server', workload: 'http-tasks-c16', kind: 'cpu' },
  { label: '2025-11-25 sessions (initialize, initialized, DELETE) c16, sessions/s', workload: 'legacy-sessions-c16', kind: 'rate' },
  { label: '2025-11-25 sessions c16, session p50 / p99 ms', workload: 'legacy-sessions-c16', kind: 'exchangeLatency' },
  { label: '2025-11-25 sessions c16, server RSS MiB', workload: 'legacy-sessions-c16', kind: 'rss' },
  { label: '2025-11-25 sessions c16, CPU generator / server', workload: 'legacy-sessions-c16', kind: 'cpu' },
  { label: '2025-11-25 sessions c16, server CPU µs per session', workload: 'legacy-sessions-c16', kind: 'cpuPerUnit' },
  { label: '10,000 idle keep-alive connections, server RSS MiB before → with them', workload: 'idle-connections-10k', kind: 'rssBeforeAfter' },
  { label: '10,000 idle keep-alive connections, RSS bytes per connection', workload: 'idle-connections-10k', kind: 'rssPerHeld' },
  { label: '10,000 idle keep-alive connections, heap bytes per connection', workload: 'idle-connections-10k', kind: 'heapPerHeld' },
  { label: '10,000 idle keep-alive connections, echo c16 p50 / p99 ms before → while held', workload: 'idle-connections-10k', kind: 'heldLatency' },
  { label: '1,000 subscriptions/listen streams, server RSS MiB before → with them', workload: 'listen-streams-1k', kind: 'rssBeforeAfter' },
  { label: '1,000 subscriptions/listen streams, RSS bytes per stream', workload: 'listen-streams-1k', kind: 'rssPerHeld' },
  { label: '1,000 subscriptions/listen streams, heap bytes per stream', workload: 'listen-streams-1k', kind: 'heapPerHeld' },
  { label: '1,000 subscriptions/listen streams, one change told to all / to half, ms', workload: 'listen-streams-1k', kind: 'fanOut' },
  { label: '1,000 2025-11-25 sessions with a GET stream, server RSS MiB before → with them', workload: 'legacy-get-streams-1k', kind: 'rssBeforeAfter' },
  { label: '1,000 2025-11-25 sessions with a GET stream, RSS bytes per session', workload: 'legacy-get-streams-1k', kind: 'rssPerHeld' },
  { label: '1,000 2025-11-25 sessions with a GET stream, heap bytes per session', workload: 'legacy-get-streams-1k', kind: 'heapPerHeld' },
  { label: 'stdio echo sequential, calls/s', workload: 'stdio-echo-seq', kind: 'rate' },
  { label: 'stdio echo sequential, p50 / p99 ms', workload: 'stdio-echo-seq', kind: 'latency' },
  { label: 'stdio echo 16 in flight, calls/s', workload: 'stdio-echo-c16', kind: 'rate' },
  { label: 'stdio echo sequential, one raw client for both, calls/s', workload: 'stdio-raw-echo-seq', kind: 'rate' },
  { label: 'stdio echo 16 in flight, p50 / p99 ms', workload: 'stdio-echo-c16', kind: 'latency' },
  { label: 'requestState seal + open, ~200 B ledger, ops/s', workload: 'seal-200', kind: 'rate' },
  { label: 'requestState ~200 B ledger, token bytes', workload: 'seal-200', kind: 'token' },
  { label: 'requestState seal + open, 16 KiB ledger, ops/s', workload: 'seal-16384', kind: 'rate' },
  { label: 'requestState 16 KiB ledger, token bytes', workload: 'seal-16384', kind: 'token' },
];

const int = (v: number): string => (Number.isNaN(v) ? '–' : Math.round(v).toLocaleString('en-US'));
const ms = (v: number): string => (Number.isNaN(v) ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const mib = (v: number): string => (Number.isNaN(v) ? '–' : (v / 2 ** 20).toFixed(0));
const cores = (v: number): string => (Number.isNaN(v) ? '–' : `${(v * 100).toFixed(0)}%`);

function cell(summary: Summary | undefined, kind: RowKind): string {
  if (!summary) return '–';
  switch (kind) {
    case 'rate':
      return int(summary.rate);
    case 'latency':
      return `${ms(summary.p50)} / ${ms(summary.p99)}`;
    case 'heldLatency':
      return `${ms(summary.baselineP50)} / ${ms(summary.baselineP99)} → ${ms(summary.p50)} / ${ms(summary.p99)}`;
    case 'fanOut':
      return `${ms(summary.fanOutMs)} / ${ms(summary.fanOutP50Ms)}`;
    case 'exchangeLatency':
      return `${ms(summary.exchangeP50)} / ${ms(summary.exchangeP99)}`;
    case 'rss':
      return mib(summary.rssBytes);
    case 'token':
      return int(summary.tokenBytes);
    case 'cpu':
      return `${cores(summary.generatorCpu)} / ${cores(summary.serverCpu)}`;
    case 'cpuPerUnit':
      return int(summary.serverCpuPerUnit * 1e6);
    case 'rssBeforeAfter':
      return `${mib(summary.rssBefore)} → ${mib(summary.rssBytes)}`;
    case 'rssPerHeld':
      return int(summary.rssPerHeld);
    case 'heapPerHeld':
      return int(summary.heapPerHeld);
  }
}

/** The value of a row's kind that the ratio columns compare. */
function compared(summary: Summary, kind: Exclude<RowKind, 'cpu'>): number {
  switch (kind) {
    case 'rate':
      return summary.rate;
    case 'latency':
    case 'heldLatency':
      return summary.p99;
    case 'fanOut':
      return summary.fanOutMs;
    case 'exchangeLatency':
      return summary.exchangeP99;
    case 'rss':
    case 'rssBeforeAfter':
      return summary.rssBytes;
    case 'rssPerHeld':
      return summary.rssPerHeld;
    case 'heapPerHeld':
      return summary.heapPerHeld;
    case 'cpuPerUnit':
      return summary.serverCpuPerUnit;
    case 'token':
      return summary.tokenBytes;
  }
}

/** Tessera over another system: × for rates (higher is better), × of p99 for latency (lower is better). */
function ratio(tessera: Summary | undefined, other: Summary | undefined, kind: RowKind, asPercent: boolean): string {
  if (!tessera || !other || kind === 'cpu') return '';
  const value = compared(tessera, kind) / compared(other, kind);
  if (!Number.isFinite(value)) return '';
  if (asPercent) return `${(value * 100).toFixed(0)}%`;
  return kind === 'latency' || kind === 'exchangeLatency' ? `p99 ${value.toFixed(2)}×` : `${value.toFixed(2)}×`;
}

function errors(results: RunResults, row: RowSpec): string {
  return SYSTEM_ORDER.map((system) => {
    const summary = summarize(results, row.workload, row.columns?.[system] ?? system);
    return summary ? String(summary.errors) : '–';
  }).join('/');
}

function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** The tracing overhead rows (issue 14): Tessera as it is (telemetry a no-op without an SDK) against Tessera with the SDK installed. */
const TRACING_ROWS: ReadonlyArray<{ label: string; workload: string; kind: RowKind }> = [
  { label: 'HTTP echo c16, req/s', workload: 'http-echo-c16', kind: 'rate' },
  { label: 'HTTP echo c16, p50 / p99 ms', workload: 'http-echo-c16', kind: 'latency' },
  { label: 'MRTR 1 question c16, exchanges/s', workload: 'mrtr-confirm-c16', kind: 'rate' },
  { label: 'MRTR 1 question c16, exchange p50 / p99 ms', workload: 'mrtr-confirm-c16', kind: 'exchangeLatency' },
  { label: 'MRTR 3 rounds + once c16, exchanges/s', workload: 'mrtr-wizard-c16', kind: 'rate' },
  { label: 'MRTR 3 rounds + once c16, exchange p50 / p99 ms', workload: 'mrtr-wizard-c16', kind: 'exchangeLatency' },
];

function tracingTable(results: RunResults): string | undefined {
  const rows = TRACING_ROWS.filter((row) => results.cells.some((c) => c.workload === row.workload && c.system === 'tesseraTraced')).map((row) => {
    const off = summarize(results, row.workload, 'tessera');
    const on = summarize(results, row.workload, 'tesseraTraced');
    return [row.label, cell(off, row.kind), cell(on, row.kind), ratio(on, off, row.kind, false), row.kind === 'rate' ? `${off?.errors ?? '–'}/${on?.errors ?? '–'}` : ''];
  });
  if (rows.length === 0) return undefined;
  return markdownTable(['Tracing overhead (median of rounds)', 'Tessera (no SDK)', 'Tessera + tracing', 'traced / untraced', 'errors'], rows);
}

/** The wrk echo rows with the JSON floor: what parsing and serialising JSON alone costs against the bare ceiling. */
const JSON_FLOOR_ROWS: ReadonlyArray<{ label: string; workload: string }> = [
  { label: 'HTTP echo c16 (wrk)', workload: 'wrk-echo-c16' },
  { label: 'HTTP echo c64 (wrk)', workload: 'wrk-echo-c64' },
];

function jsonFloorTable(results: RunResults): string | undefined {
  const rows = JSON_FLOOR_ROWS.filter((row) => results.cells.some((c) => c.workload === row.workload && c.system === 'bareJson')).map((row) => {
    const bare = summarize(results, row.workload, 'bare');
    const floor = summarize(results, row.workload, 'bareJson');
    const tessera = summarize(results, row.workload, 'tessera');
    const cpu = [tessera, floor, bare].map((s) => cell(s, 'cpuPerUnit')).join(' / ');
    return [row.label, cell(tessera, 'rate'), cell(floor, 'rate'), cell(bare, 'rate'), ratio(floor, bare, 'rate', true), ratio(tessera, bare, 'rate', true), ratio(tessera, floor, 'rate', true), cpu];
  });
  if (rows.length === 0) return undefined;
  return markdownTable(['JSON floor (median of rounds), req/s', 'Tessera', 'Bare + JSON', 'Bare', 'floor / bare', 'Tessera / bare', 'Tessera / floor', 'server CPU µs per request T / floor / bare'], rows);
}

export function renderReport(results: RunResults): string {
  const header = ['Workload (median of rounds)', ...SYSTEM_ORDER.map((s) => SYSTEM_LABELS[s]), 'T / official at best', 'T / official 50 tools', 'T / official unprotected', 'T / bare', 'errors T/O/O50/OU/B'];
  const rows = ROWS.filter((row) => results.cells.some((c) => c.workload === row.workload)).map((row) => {
    const byLatency = row.kind === 'latency' || row.kind === 'exchangeLatency';
    const s = Object.fromEntries(SYSTEM_ORDER.map((system) => [system, summarize(results, row.workload, row.columns?.[system] ?? system)])) as Record<SystemId, Summary | undefined>;
    return [
      row.label,
      ...SYSTEM_ORDER.map((system) => cell(s[system], row.kind)),
      ratio(s.tessera, s.official, row.kind, false),
      ratio(s.tessera, s.official50, row.kind, false),
      ratio(s.tessera, s.officialPlain, row.kind, false),
      ratio(s.tessera, s.bare, row.kind, !byLatency && row.kind === 'rate'),
      row.kind === 'rate' || row.kind === 'rssPerHeld' ? errors(results, row) : '',
    ];
  });
  if (results.memory.length > 0) {
    const bySystem = new Map(results.memory.map((m) => [m.system, m]));
    const flows = results.config.abandonedFlows.toLocaleString('en-US');
    rows.push([
      `Heap retained per abandoned first round (up to ${flows} sent), bytes`,
      ...SYSTEM_ORDER.map((system) => {
        const m = bySystem.get(system);
        return m ? m.retainedBytesPerFlow.toFixed(1) : '–';
      }),
      '',
      '',
      '',
      '',
      SYSTEM_ORDER.map((system) => String(bySystem.get(system)?.errors ?? '–')).join('/'),
    ]);
  }

  const { machine, config } = results;
  const tracing = tracingTable(results);
  const floor = jsonFloorTable(results);
  const lines = [
    `Date: ${results.date} · ${machine.cpuModel}, ${machine.logicalCores} cores, ${machine.memoryGiB} GiB · Node ${machine.node} · ${machine.platform}`,
    `Mode: ${config.mode} · ${config.rounds} interleaved round(s) · HTTP cells ${config.httpSeconds} s, stdio cells ${config.stdioSeconds} s, ` +
      `seal cells ${config.sealSeconds} s · official SDK responseMode "${results.officialResponseMode}" · wall time ${results.wallSeconds.toFixed(0)} s · ` +
      `1-min load average ${results.loadAverage.start.toFixed(2)} at start, ${results.loadAverage.end.toFixed(2)} at end`,
    `Placement: ${results.pinning ?? 'not recorded'} · wrk rows: ${results.wrk === false ? 'skipped (wrk not installed)' : 'yes'} · CPU rows: load generator / server, in % of one core; ` +
      'server CPU per request or exchange (µs) is what the server spent on each, whatever else limited the rate',
    '',
    ...(() => {
      const steady = steadyTable(results);
      const cpu = steadyCpuTable(results);
      const warm = warmupTable(results);
      const stdio = stdioTable(results);
      const scale = scaleTable(results);
      return [
        ...(results.warmupRule ? [`Steady state: ${results.warmupRule}; before each measured cell, ${config.primeSeconds ?? 0} s of unrecorded load. "!" marks a warm-up that reached its bound of cells still falling.`, ''] : []),
        ...(steady ? [steady, ''] : []),
        ...(cpu ? [cpu, ''] : []),
        ...(stdio ? [stdio, ''] : []),
        ...(scale ? [scale, ''] : []),
        ...(warm ? [warm, ''] : []),
      ];
    })(),
    markdownTable(header, rows),
    '',
    `Errors in all measured cells: ${totalErrors(results)}.`,
    '',
    ...(tracing ? [tracing, '', 'Tessera + tracing: the OpenTelemetry SDK installed in the server (every request traced, in-memory span and metric exporters, W3C propagator, AsyncLocalStorage context manager; bench/servers/telemetry-sdk.ts). The load carries no traceparent, so each server span is a root.', ''] : []),
    ...(floor
      ? [
          floor,
          '',
          'Bare + JSON: the bare server with `JSON.parse` of every request body and `JSON.stringify` of every reply object (bench/servers/bare.ts `--json`), still no MCP: what any server that reads its messages pays over the bare ceiling.',
          '',
        ]
      : []),
    markdownTable(
      ['Target (issues 7, 13, 15 and 31)', 'Measured', 'Met'],
      checkTargets(results).map((t) => [t.target, t.measured, t.met === undefined ? '–' : t.met ? 'yes' : 'no']),
    ),
  ];
  return lines.join('\n');
}
