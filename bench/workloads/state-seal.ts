/** Runs one seal + open measurement in a fresh child process (see state-seal-child.ts). */

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track, untrack } from '../harness/processes.js';

export type SealSystem = 'tessera' | 'official';

export interface SealResult {
  opsPerSecond: number;
  tokenBytes: number;
  ops: number;
  seconds: number;
}

const CHILD = fileURLToPath(new URL('./state-seal-child.js', import.meta.url));

export function runStateSealCell(system: SealSystem, bytes: number, seconds: number): Promise<SealResult> {
  return new Promise((resolve, reject) => {
    // The callback runs once the child has exited; the timeout kills a stuck one; Ctrl-C stops it by PID.
    const child = execFile(
      process.execPath,
      [CHILD, '--system', system, '--bytes', String(bytes), '--seconds', String(seconds)],
      { timeout: (seconds + 10) * 1000 },
      (error, stdout, stderr) => {
        untrack(child.pid);
        if (error) reject(new Error(`state seal child (${system}, ${bytes} B) failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as SealResult);
      },
    );
    track(child.pid);
  });
}
