/**
 * One measurement cell driven by wrk (C, one thread) instead of autocannon:
 * the flow's templates go into a Lua prelude in front of bench/wrk/flows.lua,
 * wrk runs on the load generator's core for a fixed time, and the script's
 * last line (WRK_RESULT {...}) carries the counts, the latencies, the checks'
 * error samples and wrk's own CPU time.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { luaLiteral, wrkFlow } from '../workloads/wrk-flows.js';
import { clockTicks } from './cpu.js';
import type { CellResult } from './http-cell.js';
import { hasCommand, onGeneratorCore } from './pinning.js';
import { track, untrack } from './processes.js';

// From dist/bench/harness/ to the repository's bench/wrk/.
const SCRIPT = fileURLToPath(new URL('../../../bench/wrk/flows.lua', import.meta.url));

export interface WrkCellOptions {
  url: string;
  flow: 'echo' | 'confirm' | 'wizard';
  connections: number;
  seconds: number;
}

interface WrkReport {
  durationUs: number;
  responses: number;
  units: number;
  errors: number;
  socketErrors: number;
  timeouts: number;
  p50Us: number;
  p99Us: number;
  unitP50Ms: number | null;
  unitP99Ms: number | null;
  cpuTicks: number;
  clock: boolean;
  errorSamples: string[];
}

let available: boolean | undefined;

/** Whether wrk is installed (Debian: apt-get install wrk); asked once per run. */
export function wrkAvailable(): boolean {
  available ??= hasCommand('wrk', ['-v']);
  return available;
}

export async function runWrkCell(options: WrkCellOptions): Promise<CellResult> {
  const url = new URL(options.url);
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-wrk-'));
  const script = join(dir, `${options.flow}.lua`);
  writeFileSync(script, `FLOW = ${luaLiteral(wrkFlow(options.flow, url.pathname))}\n${readFileSync(SCRIPT, 'utf8')}`);
  try {
    const wrk = onGeneratorCore('wrk', ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', script, url.origin]);
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn(wrk.command, wrk.args, { stdio: ['ignore', 'pipe', 'pipe'] });
      track(child.pid);
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
      child.stderr.setEncoding('utf8').on('data', (text: string) => (err += text));
      child.once('error', reject);
      child.once('exit', (code) => {
        untrack(child.pid);
        if (code === 0) resolve(out);
        else reject(new Error(`wrk exited with ${code}: ${err}${out}`));
      });
    });
    const line = /^WRK_RESULT (.*)$/m.exec(stdout)?.[1];
    if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
    const report = JSON.parse(line) as WrkReport;
    const seconds = report.durationUs / 1e6;
    const errors = report.errors + report.socketErrors;
    const samples = [...report.errorSamples];
    if (report.socketErrors > 0) samples.push(`${report.socketErrors} socket errors (${report.timeouts} timeouts)`);
    return {
      seconds,
      requests: report.responses,
      units: report.units,
      errors,
      errorSamples: samples.slice(0, 5),
      requestsPerSecond: report.responses / seconds,
      unitsPerSecond: report.units / seconds,
      p50: report.p50Us / 1000,
      p99: report.p99Us / 1000,
      unitP50: report.unitP50Ms ?? Number.NaN,
      unitP99: report.unitP99Ms ?? Number.NaN,
      generatorCpuSeconds: report.cpuTicks >= 0 ? report.cpuTicks / clockTicks() : undefined,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
