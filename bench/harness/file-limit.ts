/**
 * Open-file limits for the phases that hold thousands of sockets: this
 * process (the load generator) raises its own soft limit to its hard limit
 * with prlimit, and a server child is started through `sh -c 'ulimit -n …;
 * exec …'` so that it gets the same (the PID stays the server's: sh and
 * taskset exec). Neither can go past the hard limit the run was started with.
 */

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface FileLimit {
  soft: number;
  hard: number;
}

/** RLIMIT_NOFILE of a process, from /proc (Linux); undefined elsewhere. */
export function fileLimitOf(pid: number | 'self' = 'self'): FileLimit | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const [soft, hard] = (line ?? '').split(/\s{2,}/).slice(1, 3).map((v) => (v === 'unlimited' ? Number.POSITIVE_INFINITY : Number(v)));
    return soft !== undefined && hard !== undefined && !Number.isNaN(soft) && !Number.isNaN(hard) ? { soft, hard } : undefined;
  } catch {
    return undefined;
  }
}

/** Raises this process's soft limit to min(wanted, hard); returns the limit it has afterwards. */
export function raiseOwnFileLimit(wanted: number): FileLimit | undefined {
  const limit = fileLimitOf();
  if (!limit || limit.soft >= wanted) return limit;
  const target = Math.min(wanted, limit.hard);
  spawnSync('prlimit', ['--pid', String(process.pid), `--nofile=${target}:${limit.hard}`], { stdio: 'ignore' });
  return fileLimitOf();
}

/** The command line that runs `command args` with an open-file limit of min(wanted, hard). */
export function withFileLimit(wanted: number, command: string, args: string[]): { command: string; args: string[] } {
  const script = 'ulimit -n "$0" 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"';
  return { command: 'sh', args: ['-c', script, String(wanted), command, ...args] };
}
