/**
 * A stdio MCP server in a real child process, driven with raw newline-delimited
 * JSON-RPC in either era. Each request is sent tagged with its era; each line
 * the server writes must be one JSON-RPC message and is validated against the
 * schema of its era: responses by the era of the request they answer, the
 * server's own requests (which only a 2025-era connection may get) and
 * notifications against 2025-11-25 once `initialize` was sent. Stopped by PID.
 */

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assertServerMessage } from './wire-schema.js';
import { assertServerMessage2025 } from './wire-schema-2025.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type Json = Record<string, any>;
export type Era = 'legacy' | 'modern';

export class EraStdioChild {
  readonly proc: ChildProcessWithoutNullStreams;
  /** Every line the server wrote, parsed, in order. */
  readonly messages: Json[] = [];
  /** Everything the test wrote, in order. */
  readonly sent: Json[] = [];
  /** Lines that were not JSON or failed their era's schema, with the reason. */
  readonly violations: string[] = [];
  stderr = '';
  private pending = '';
  private legacy = false;
  private readonly requests = new Map<unknown, { method: string; era: Era }>();
  private waiters: Array<() => void> = [];

  constructor(script: string, args: string[] = []) {
    this.proc = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stderr.setEncoding('utf8');
    this.proc.stdout.on('data', (text: string) => this.onStdout(text));
    this.proc.stderr.on('data', (text: string) => {
      this.stderr += text;
    });
    this.proc.stdin.on('error', () => undefined);
    this.proc.on('exit', () => this.wake());
  }

  private onStdout(text: string): void {
    this.pending += text;
    let newline: number;
    while ((newline = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, newline);
      this.pending = this.pending.slice(newline + 1);
      let message: Json;
      try {
        message = JSON.parse(line) as Json;
      } catch {
        this.violations.push(`not JSON: ${line}`);
        continue;
      }
      this.validate(message);
      this.messages.push(message);
    }
    this.wake();
  }

  private validate(message: Json): void {
    try {
      if ('result' in message || 'error' in message) {
        const request = this.requests.get(message.id);
        if (request?.era === 'modern') assertServerMessage(message, request.method);
        else assertServerMessage2025(message, request?.method);
      } else if ('id' in message) {
        if (!this.legacy) throw new Error(`a server request before initialize: ${JSON.stringify(message)}`);
        assertServerMessage2025(message);
      } else if (this.legacy) {
        assertServerMessage2025(message);
      } else {
        assertServerMessage(message);
      }
    } catch (error) {
      this.violations.push((error as Error).message);
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Writes one message as one line; a request is remembered with its era to validate its response. */
  send(message: Json, era: Era = 'legacy'): void {
    if (message.method === 'initialize') this.legacy = true;
    if (typeof message.method === 'string' && 'id' in message) this.requests.set(message.id, { method: message.method, era });
    this.sent.push(message);
    this.proc.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves once `check` returns a value; rejects after `timeoutMs` (a guard against hangs, not a performance bound). */
  async until<T>(what: string, check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined) return value;
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) throw new Error(`the server exited while waiting for ${what}; stderr: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`gave up waiting for ${what}; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  response(id: string | number): Promise<Json> {
    return this.until(`the response to ${JSON.stringify(id)}`, () => this.messages.find((m) => m.id === id && ('result' in m || 'error' in m)));
  }

  /** The first server request (a message with method and id) not in `seen`. */
  serverRequest(what: string, seen: ReadonlySet<unknown> = new Set()): Promise<Json> {
    return this.until(what, () => this.messages.find((m) => typeof m.method === 'string' && 'id' in m && !seen.has(m.id)));
  }

  /** Stops the process by its PID if it is still running. */
  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null && this.proc.pid !== undefined) {
      try {
        process.kill(this.proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}
