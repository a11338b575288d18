/**
 * Runs the client in a child process (client-probe.mjs) against a server a
 * test controls, and reads back what happened and how the child's memory
 * moved: how a hostile server's reply is measured without the test process's
 * own memory in the way. The child is tracked by PID and always stopped.
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compiledFile, forgetPid, ROOT, stopPid, trackPid } from './child-processes.js';

export interface ProbeError {
  name: string;
  message: string;
  reason?: string;
  status?: number;
  limit?: number;
  cause?: { name: string; message: string };
}

export interface ProbeReport {
  ok: boolean;
  result?: { content?: Array<{ type: string; text?: string }> };
  error?: ProbeError;
  setupFailed?: boolean;
  /** process.memoryUsage() just before the call, and the highest values seen while it ran. */
  before: { rss: number; heapUsed: number };
  peak: { rss: number; heapUsed: number };
  warnings: string[];
  /** Which of the probe's handlers ran (form:<message>, roots). */
  handled: string[];
  /** What a stdio server wrote to its stderr. */
  serverStderr: string;
}

export interface ProbePlan {
  target: { url: string } | { command: string; args?: string[] };
  client?: Record<string, unknown>;
  http?: Record<string, unknown>;
  call?: { tool: string; args?: Record<string, unknown> };
  handlers?: boolean;
  /** A path on the server's origin to GET before measuring (see hostile-http.ts WARM_UP_PATH). */
  warmUp?: string;
  abortAfterMs?: number;
  settleMs?: number;
}

const PROBE = fileURLToPath(new URL('./client-probe.mjs', import.meta.url));

/** How much more than before the call the child's RSS and heap grew at most, in bytes. */
export function growth(report: ProbeReport): { rss: number; heap: number } {
  return { rss: report.peak.rss - report.before.rss, heap: report.peak.heapUsed - report.before.heapUsed };
}

export async function probe(plan: ProbePlan, options: { maxOldSpaceMb?: number } = {}): Promise<ProbeReport> {
  compiledFile('src/client/client.js', [`${ROOT}src/client/client.ts`, `${ROOT}src/client/http-transport.ts`, `${ROOT}src/client/bounded-body.ts`, `${ROOT}src/protocol/bounded-body.ts`]);
  const args = ['--expose-gc', ...(options.maxOldSpaceMb ? [`--max-old-space-size=${options.maxOldSpaceMb}`] : []), PROBE, JSON.stringify(plan)];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  trackPid(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    forgetPid(child.pid);
    const line = stdout.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !line.startsWith('{')) throw new Error(`client probe exited with ${code}; stderr: ${stderr.slice(0, 2000)}; stdout: ${stdout.slice(0, 2000)}`);
    return JSON.parse(line) as ProbeReport;
  } finally {
    // Only a child still running is stopped (an exited one's PID may belong to someone else by now).
    if (child.exitCode === null && child.signalCode === null) stopPid(child.pid);
  }
}
