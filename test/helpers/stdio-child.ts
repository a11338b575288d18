/**
 * A stdio MCP server in a real child process: write lines to its stdin, read
 * its stdout line by line (every line must be one valid server message), and
 * watch stderr. Stopped by PID.
 */

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { ROOT } from './child-processes.js';
import { Changes } from './changes.js';
import { assertServerMessage } from './wire-schema.js';

export type Message = Record<string, unknown>;

export class StdioChild {
  readonly proc: ChildProcessWithoutNullStreams;
  /** Raw stdout text, exactly as received. */
  stdout = '';
  /** Every complete stdout line parsed, in order. */
  readonly messages: Message[] = [];
  /** Lines that were not valid JSON-RPC server messages, with the reason. */
  readonly violations: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private pending = '';
  private readonly methods = new Map<unknown, string>();
  private readonly changes = new Changes();

  constructor(script: string, args: string[] = []) {
    this.proc = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stderr.setEncoding('utf8');
    this.proc.stdout.on('data', (text: string) => this.onStdout(text));
    this.proc.stderr.on('data', (text: string) => {
      this.stderr += text;
      this.changes.changed();
    });
    // Writing to a child that already exited must not crash the test run.
    this.proc.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => this.changes.changed());
  }

  private onStdout(text: string): void {
    this.stdout += text;
    this.pending += text;
    let newline: number;
    while ((newline = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, newline);
      this.pending = this.pending.slice(newline + 1);
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        this.violations.push(`not JSON: ${line}`);
        continue;
      }
      try {
        this.validate(message);
      } catch (error) {
        this.violations.push((error as Error).message);
      }
      this.messages.push(message);
    }
    this.changes.changed();
  }

  /** Checks one message the server wrote; throws with the reason when it is not valid wire. */
  protected validate(message: Message): void {
    assertServerMessage(message, this.methods.get(message.id));
  }

  /** Writes raw text to stdin (no newline added). */
  write(text: string): void {
    this.proc.stdin.write(text);
  }

  /** Writes one message as one line; remembers request methods to validate their results. */
  send(message: Message): void {
    if (typeof message.method === 'string' && 'id' in message) this.methods.set(message.id, message.method);
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves once `check` returns a value; rejects after `timeoutMs` (a guard against hangs, not a performance bound). */
  until<T>(what: string, check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
    const checkWhileRunning = (): T | undefined => {
      const value = check();
      if (value === undefined && (this.proc.exitCode !== null || this.proc.signalCode !== null)) throw new Error(`the server exited while waiting for ${what}`);
      return value;
    };
    return this.changes.until(what, checkWhileRunning, timeoutMs, () => `stderr: ${this.stderr}`);
  }

  response(id: string | number): Promise<Message> {
    return this.until(`the response to ${JSON.stringify(id)}`, () => this.messages.find((m) => m.id === id && ('result' in m || 'error' in m)));
  }

  stderrLine(line: string): Promise<true> {
    return this.until(`stderr line "${line}"`, () => (this.stderr.split('\n').includes(line) ? true : undefined));
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
