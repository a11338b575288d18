/**
 * The server processes of a run: started as separate node processes on
 * 127.0.0.1, remembered by PID, and stopped by PID at the end, on an error,
 * or on Ctrl-C. Nothing is ever stopped by name.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { withFileLimit } from './file-limit.js';
import { log } from './log.js';
import { onServerCore } from './pinning.js';

export interface ServerProcess {
  name: string;
  pid: number;
  /** The MCP endpoint. */
  url: string;
  /** The diagnostics endpoint (GET …/memory), see servers/diagnostics.ts. */
  diagnosticsUrl: string;
  child: ChildProcess;
}

export interface SpawnOptions {
  name: string;
  script: string;
  args?: string[];
  /** Flags for node itself, e.g. --expose-gc or --cpu-prof. */
  nodeFlags?: string[];
  /** How long to wait for the "listening" line. */
  startTimeoutMs?: number;
  /** Raise the server's open-file limit to this (bounded by the hard limit; see file-limit.ts). */
  fileLimit?: number;
}

/** PIDs of everything this run started that may still be running (servers and stdio children alike). */
const running = new Set<number>();
/** PIDs this run is stopping: their exit is expected. */
const stopping = new Set<number>();

export function track(pid: number | null | undefined): void {
  if (pid) running.add(pid);
}

export function untrack(pid: number | null | undefined): void {
  if (pid) running.delete(pid);
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false; // already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts a server script and resolves once it printed both its endpoint and its diagnostics URL. */
export function startServer(options: SpawnOptions): Promise<ServerProcess> {
  // On the servers' core where pinning is on (taskset execs node, so the PID is the server's).
  const pinned = onServerCore(process.execPath, [...(options.nodeFlags ?? []), options.script, ...(options.args ?? [])]);
  const { command, args } = options.fileLimit === undefined ? pinned : withFileLimit(options.fileLimit, pinned.command, pinned.args);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  track(child.pid);
  return new Promise((resolve, reject) => {
    let url: string | undefined;
    let diagnosticsUrl: string | undefined;
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const fail = (error: Error): void => {
      clearTimeout(timer);
      void stopPid(child.pid);
      reject(error);
    };
    const startTimeoutMs = options.startTimeoutMs ?? 10_000;
    timer = setTimeout(() => fail(new Error(`${options.name} did not start within ${startTimeoutMs} ms:\n${stderr}`)), startTimeoutMs);
    child.once('error', fail);
    child.once('exit', (code, sig) => {
      untrack(child.pid);
      if (url === undefined || diagnosticsUrl === undefined) fail(new Error(`${options.name} exited (${sig ?? `code ${code}`}) before listening:\n${stderr}`));
      // A server that dies mid-run shows only as connection errors: say why, with what it last printed.
      else if (child.pid !== undefined && !stopping.has(child.pid)) log(`${options.name} (pid ${child.pid}) exited unexpectedly (${sig ?? `code ${code}`}); its stderr ends:\n${stderr.slice(-4_000)}`);
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      stderr += text;
      url ??= /^listening (\S+)$/m.exec(stderr)?.[1];
      diagnosticsUrl ??= /^diagnostics (\S+)$/m.exec(stderr)?.[1];
      if (url !== undefined && diagnosticsUrl !== undefined && child.pid !== undefined) {
        clearTimeout(timer);
        resolve({ name: options.name, pid: child.pid, url, diagnosticsUrl, child });
      }
      // Keep the tail only: a long run must not grow this forever (the server's warnings still show on failure).
      if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
    });
  });
}

/**
 * SIGTERM, then SIGKILL if the process is still there after `graceMs`. Only
 * a PID this run still tracks is signalled: once its child's exit was seen
 * the number is free, and the system (pid_max may be as low as 32768) can
 * hand it to any other process, someone else's included.
 */
export async function stopPid(pid: number | null | undefined, graceMs = 3000): Promise<void> {
  if (!pid || !running.has(pid)) return;
  stopping.add(pid);
  if (!signal(pid, 'SIGTERM')) {
    untrack(pid);
    return;
  }
  const deadline = Date.now() + graceMs;
  const stillOurs = (): boolean => running.has(pid) && alive(pid);
  while (stillOurs() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  if (stillOurs()) signal(pid, 'SIGKILL');
  untrack(pid);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((pid) => stopPid(pid)));
}

let interrupted = false;

/** True once Ctrl-C, SIGTERM or a crash started the shutdown: whatever is still measuring is void. */
export function wasInterrupted(): boolean {
  return interrupted;
}

/** Stops every tracked child on Ctrl-C, SIGTERM, or a crash of the load generator, then exits. */
export function stopAllOnExit(): void {
  const bail = (code: number) => (reason?: unknown): void => {
    if (reason instanceof Error) console.error(reason);
    interrupted = true;
    void stopAll().finally(() => process.exit(code));
  };
  process.once('SIGINT', bail(130));
  process.once('SIGTERM', bail(143));
  process.once('uncaughtException', bail(1));
  process.once('unhandledRejection', bail(1));
  // Last resort for a synchronous exit: no waiting possible, so straight to SIGKILL.
  process.once('exit', () => {
    for (const pid of running) signal(pid, 'SIGKILL');
  });
}
