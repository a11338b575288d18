/**
 * `npm run bench:schemas [-- --rounds N --flows N]`: what a form question
 * costs when its schema is written inline in the handler (issue 25), as a raw
 * JSON Schema object literal and as a zod schema, each made anew on every
 * round (the handler runs again from the top); and, for reference, the same
 * schemas made once at module scope.
 *
 * Each cell is a fresh child process (workloads/schema-asks-child.ts, under
 * --expose-gc) that runs N two-round flows through the real pipeline
 * (`tessera-mcp/testing`) and reports the time per flow and the heap kept per
 * flow after full collections. Cells are interleaved over the rounds; the
 * report is the median of the rounds, written to bench/results/schema-asks.json
 * and schema-asks.md. Every child is stopped by PID on an error or Ctrl-C.
 */

import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { log } from './harness/log.js';
import { stopAll, stopAllOnExit, track, untrack, wasInterrupted } from './harness/processes.js';
import { median } from './harness/stats.js';
import { machineInfo } from './report/machine.js';
import type { SchemaAskResult, SchemaStyle } from './workloads/schema-asks-child.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, flows: { type: 'string', default: '2000' }, warmup: { type: 'string', default: '200' } } });
const ROUNDS = Number(values.rounds);
const FLOWS = Number(values.flows);
const WARMUP = Number(values.warmup);

const CHILD = fileURLToPath(new URL('./workloads/schema-asks-child.js', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url));
const STYLES: ReadonlyArray<{ style: SchemaStyle; label: string }> = [
  { style: 'raw', label: 'raw JSON Schema' },
  { style: 'zod', label: 'zod' },
  // The reference: the same schemas made once at module scope, so the difference is what writing them inline costs.
  { style: 'raw-once', label: 'raw JSON Schema, made once at module scope' },
  { style: 'zod-once', label: 'zod, made once at module scope' },
];

function runCell(style: SchemaStyle): Promise<SchemaAskResult> {
  return new Promise((resolve, reject) => {
    // The callback runs once the child has exited; the timeout kills a stuck one; Ctrl-C stops it by PID.
    const child = execFile(
      process.execPath,
      ['--expose-gc', CHILD, '--style', style, '--flows', String(FLOWS), '--warmup', String(WARMUP)],
      { timeout: 600_000 },
      (error, stdout, stderr) => {
        untrack(child.pid);
        if (error) reject(new Error(`schema-asks child (${style}) failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as SchemaAskResult);
      },
    );
    track(child.pid);
  });
}

stopAllOnExit();
const started = performance.now();
const loadStart = loadavg()[0]!;
const cells: Array<SchemaAskResult & { round: number; load1: number }> = [];
try {
  for (let round = 1; round <= ROUNDS && !wasInterrupted(); round++) {
    for (const { style, label } of STYLES) {
      const cell = await runCell(style);
      cells.push({ ...cell, round, load1: loadavg()[0]! });
      log(`round ${round}/${ROUNDS} ${label}: ${cell.msPerFlow.toFixed(3)} ms per flow, ${Math.round(cell.heapBytesPerFlow)} B of heap kept per flow`);
    }
  }
} finally {
  await stopAll();
}
if (wasInterrupted()) {
  log('interrupted: no results written');
  await new Promise(() => {}); // the signal handler exits once every child is stopped
}

const of = (style: SchemaStyle): typeof cells => cells.filter((c) => c.style === style);
const range = (values: number[], digits: number): string => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
const machine = machineInfo();
const lines = [
  `# Inline form schemas, ${new Date().toISOString().slice(0, 10)}`,
  '',
  `${FLOWS.toLocaleString('en-US')} two-round flows per cell through \`tessera-mcp/testing\` (after ${WARMUP} unrecorded), one question \`{ type: 'object', properties: { n: { type: 'string', minLength: 1 } }, required: ['n'] }\` written in the handler; ${ROUNDS} interleaved rounds, a fresh process per cell, medians; heap after full GCs. Node ${process.version}, ${machine.cpuModel} × ${machine.logicalCores}, load average ${loadStart.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}.`,
  '',
  '| Schema written inline as | time per flow | heap kept per flow | per round (time, heap) |',
  '| --- | ---: | ---: | --- |',
];
for (const { style, label } of STYLES) {
  const mine = of(style);
  const ms = mine.map((c) => c.msPerFlow);
  const heap = mine.map((c) => c.heapBytesPerFlow);
  lines.push(`| ${label} | ${median(ms).toFixed(2)} ms | ${Math.round(median(heap)).toLocaleString('en-US')} B | ${range(ms, 2)} ms, ${range(heap, 0)} B |`);
}
// Per round, the two cells ran one after the other: their ratio is steadier than the ratio of medians on a shared machine.
const perRound = [...new Set(cells.map((c) => c.round))].map((round) => {
  const pick = (style: SchemaStyle): number => cells.find((c) => c.style === style && c.round === round)!.msPerFlow;
  return pick('raw') / pick('zod');
});
lines.push('', `Time per flow, raw ÷ zod: ${median(perRound).toFixed(2)}× (median of per-round ratios; ${range(perRound, 2)}).`);
const report = lines.join('\n');
mkdirSync(RESULTS_DIR, { recursive: true });
const json = { date: new Date().toISOString(), wallSeconds: (performance.now() - started) / 1000, machine, rounds: ROUNDS, flows: FLOWS, warmup: WARMUP, loadAverage: { start: loadStart, end: loadavg()[0]! }, cells, rawOverZod: perRound };
writeFileSync(`${RESULTS_DIR}schema-asks.json`, `${JSON.stringify(json, null, 2)}\n`);
writeFileSync(`${RESULTS_DIR}schema-asks.md`, `${report}\n`);
process.stdout.write(`${report}\n`);
log(`wrote ${RESULTS_DIR}schema-asks.json and schema-asks.md`);
