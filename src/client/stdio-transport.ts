/**
 * Spawns a server command and speaks newline-delimited JSON-RPC on its stdin
 * and stdout. Closing writes what was sent before it (a cancellation made in
 * the same turn included), ends stdin, then waits, then SIGTERM, then SIGKILL.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { streamLink } from '../transport/stdio.js';
import { LinkClientTransport } from './link-transport.js';

export interface StdioServerParameters {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** What to do with the server's stderr (default: 'inherit', shown with this process's). */
  stderr?: 'inherit' | 'ignore' | 'pipe';
}

export class StdioClientTransport extends LinkClientTransport {
  readonly process: ChildProcess;

  constructor(parameters: StdioServerParameters) {
    const child = spawn(parameters.command, parameters.args ?? [], {
      cwd: parameters.cwd,
      env: parameters.env ? { ...process.env, ...parameters.env } : process.env,
      stdio: ['pipe', 'pipe', parameters.stderr ?? 'inherit'],
    });
    super(streamLink(child.stdout!, child.stdin!), 'stdio');
    this.process = child;
    child.on('error', (error) => this.fail(`Could not start ${parameters.command}: ${error.message}`));
    child.on('exit', (code, signal) => this.fail(`The server process exited (${signal ?? `code ${code}`})`));
    child.stdin!.on('error', () => undefined); // EPIPE after the server exits; reported through 'exit'
  }

  override async close(): Promise<void> {
    const child = this.process;
    this.fail('The client closed the connection');
    // The link batches a turn's messages into one write on the next tick: after end() they would be lost.
    this.link.flush?.();
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const waitFor = (ms: number): Promise<boolean> =>
      Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref())]);
    child.stdin?.end();
    if (await waitFor(2000)) return;
    child.kill('SIGTERM');
    if (await waitFor(2000)) return;
    child.kill('SIGKILL');
    await exited;
  }
}
