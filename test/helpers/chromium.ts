/**
 * Debian's headless `chromium`, driven with the Chrome DevTools Protocol over
 * `--remote-debugging-pipe`: JSON messages, each ended by a NUL byte, written
 * to the browser's fd 3 and read from its fd 4. A pipe needs no WebSocket
 * client (Node 20 has none without a flag) and no port, so no dependency.
 * The browser is tracked by PID (child-processes.ts) and stopped by it.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { forgetPid, trackPid } from './child-processes.js';

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

type EventListener = (params: Record<string, unknown>, sessionId: string | undefined) => void;

export class Chromium {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners: EventListener[] = [];
  private buffer = '';
  private stderr = '';
  private failed: Error | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    (child.stdio[4] as Readable | null)?.setEncoding('utf8').on('data', (text: string) => this.read(text));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => (this.stderr += text));
    // A browser that is gone is reported by 'error' or 'exit' (pending commands reject); not as a write error too.
    (child.stdio[3] as Writable | null)?.on('error', () => undefined);
    child.once('error', (error) => {
      this.failed = new Error(`chromium could not start (${error.message}): install Debian's chromium package (.ci/run does)`);
      for (const { reject } of this.pending.values()) reject(this.failed);
      this.pending.clear();
    });
    child.once('exit', (code, signal) => {
      for (const { reject } of this.pending.values()) reject(new Error(`chromium exited (${signal ?? code}); stderr: ${this.stderr}`));
      this.pending.clear();
    });
  }

  static launch(): Chromium {
    const profile = mkdtempSync(join(tmpdir(), 'tessera-chromium-'));
    const child = spawn(
      process.env.CHROMIUM ?? 'chromium',
      [
        '--headless=new',
        '--remote-debugging-pipe',
        `--user-data-dir=${profile}`,
        // The CI user may be root, where chromium's sandbox cannot start.
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--no-default-browser-check',
        '--disable-extensions',
        '--disable-background-networking',
        '--disable-component-update',
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
    );
    trackPid(child.pid);
    return new Chromium(child, profile);
  }

  private read(text: string): void {
    this.buffer += text;
    let end: number;
    while ((end = this.buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(this.buffer.slice(0, end)) as { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { message: string }; sessionId?: string };
      this.buffer = this.buffer.slice(end + 1);
      if (message.id !== undefined) {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) pending?.reject(new Error(`CDP: ${message.error.message}`));
        else pending?.resolve(message.result ?? {});
      } else if (message.method) {
        for (const listener of this.listeners) listener({ method: message.method, ...message.params }, message.sessionId);
      }
    }
  }

  /** One CDP command, to the browser or (with `sessionId`) to a page. */
  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      (this.child.stdio[3] as Writable).write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  /** Every event, with its method in `params.method`. */
  onEvent(listener: EventListener): void {
    this.listeners.push(listener);
  }

  /** A new tab, attached: its CDP session id. */
  async newPage(): Promise<string> {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    return sessionId as string;
  }

  /**
   * Stops the browser: first with CDP's `Browser.close`, so chromium ends its renderer and
   * utility processes and finishes writing its profile; by its PID (SIGTERM, then SIGKILL) if
   * it has not exited within a bound. Then removes the profile, retrying while a process that
   * was still closing writes into it (ENOTEMPTY on a fresh CI machine).
   */
  async close(): Promise<void> {
    forgetPid(this.child.pid);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<boolean>((resolve) => this.child.once('exit', () => resolve(true)));
      const within = (ms: number) => Promise.race([exited, new Promise<boolean>((resolve) => setTimeout(resolve, ms, false).unref())]);
      this.send('Browser.close').catch(() => undefined);
      if (!(await within(5_000))) {
        this.child.kill('SIGTERM');
        if (!(await within(5_000))) this.child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(this.profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  }
}
