/**
 * Running the built `tessera` command in tests: as a plain child process
 * (no terminal: stdin is a pipe), in a pseudo-terminal (@lydell/node-pty,
 * prebuilt, no native build), and the servers it talks to. Every child is
 * stopped by its PID; waits have a guard against hangs, never a timing
 * threshold.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { spawn as spawnPty, type IPty } from '@lydell/node-pty';
import { compiledFile, compiledFixture, forgetPid, ROOT, stopPid, trackPid } from './child-processes.js';

const GUARD_MS = 25_000;

/** The built command of the CLI workspace (cli/dist/main.js), checked to be newer than its sources. */
export function cliPath(): string {
  const dir = `${ROOT}cli/src/`;
  return compiledFile('../cli/dist/main.js', readdirSync(dir).map((f) => dir + f));
}

export function builtExample(name: string): string {
  return compiledFile(`examples/${name}.js`, [`${ROOT}examples/${name}.ts`]);
}

/** Removes colours and cursor movements, keeping the text a person would read. */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[78]|\x1b\][^\x07]*\x07/g, '');
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `tessera …` without a terminal and collects its output. */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; stdin?: string } = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [cliPath(), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  trackPid(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      stopPid(child.pid);
      reject(new Error(`tessera ${args.join(' ')} did not finish; stdout: ${stdout}\nstderr: ${stderr}`));
    }, GUARD_MS);
    child.on('close', (code) => {
      clearTimeout(guard);
      forgetPid(child.pid);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running child (a server) whose output is watched for a line. */
export class Background {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(readonly proc: ChildProcess) {
    trackPid(proc.pid);
    proc.stdout?.setEncoding('utf8').on('data', (t: string) => (this.stdout += t));
    proc.stderr?.setEncoding('utf8').on('data', (t: string) => (this.stderr += t));
    this.exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  }

  /** Resolves with the first match of `pattern` in stdout or stderr. */
  async waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
    const deadline = Date.now() + GUARD_MS;
    for (;;) {
      const match = this.stdout.match(pattern) ?? this.stderr.match(pattern);
      if (match) return match;
      if (this.proc.exitCode !== null) throw new Error(`the process exited before printing ${pattern}; stderr: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${pattern}; stdout: ${this.stdout}\nstderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  stop(): void {
    stopPid(this.proc.pid);
  }
}

/** `npm start`'s program (with `args`, as after `npm start --`): the example server on a free port; resolves once it prints its URL. */
export async function startExampleServer(args: string[] = []): Promise<{ url: string; server: Background }> {
  const server = new Background(spawn(process.execPath, [builtExample('server'), ...args], { cwd: ROOT, env: { ...process.env, PORT: '0', HOST: '127.0.0.1' } }));
  const [, url] = await server.waitFor(/Tessera example server on (http:\/\/\S+\/mcp)/);
  return { url: url!, server };
}

/** An official-SDK fixture over HTTP on a free port (it prints "listening <url>" on stderr). */
export async function startOfficialServer(name: 'official-sdk-server' | 'official-sdk-legacy-server'): Promise<{ url: string; server: Background }> {
  const server = new Background(spawn(process.execPath, [compiledFixture(name), '--port', '0'], { cwd: ROOT }));
  const [, url] = await server.waitFor(/listening (http:\/\/\S+)/);
  return { url: url!, server };
}

/** `tessera serve <args>` over HTTP on a free port; resolves once it prints its URL. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<{ url: string; server: Background }> {
  const server = new Background(spawn(process.execPath, [cliPath(), 'serve', ...args, '--port', '0'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env } }));
  const [, url] = await server.waitFor(/serving .* on (http:\/\/\S+\/mcp)/);
  return { url: url!, server };
}

/** `tessera …` in a pseudo-terminal: read what it draws, type into it. */
export class TerminalSession {
  private readonly term: IPty;
  private raw = '';
  /** Where the next `waitFor` starts looking, so each step waits for new output. */
  private cursor = 0;
  readonly exited: Promise<number>;

  /**
   * `tessera <args>` from this repository's build, or with `shell`, a command line
   * run by bash exactly as a person would type it (e.g. `npx tessera call …`).
   */
  constructor(args: string[], options: { env?: Record<string, string>; cwd?: string; shell?: string } = {}) {
    const [file, argv] = options.shell === undefined ? [process.execPath, [cliPath(), ...args]] : ['bash', ['-c', options.shell]];
    this.term = spawnPty(file, argv, {
      name: 'xterm-color',
      cols: 120,
      rows: 40,
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, FORCE_COLOR: '1', ...options.env } as Record<string, string>,
    });
    trackPid(this.term.pid);
    this.term.onData((data) => (this.raw += data));
    this.exited = new Promise((resolve) => this.term.onExit(({ exitCode }) => {
      forgetPid(this.term.pid);
      resolve(exitCode);
    }));
  }

  /** Everything written to the terminal so far, escape sequences and all. */
  get rawOutput(): string {
    return this.raw;
  }

  /** Everything shown so far, without colours or cursor movements. */
  get transcript(): string {
    return stripAnsi(this.raw);
  }

  /** Waits until `text` appears after what earlier waits consumed. */
  async waitFor(text: string): Promise<void> {
    const deadline = Date.now() + GUARD_MS;
    for (;;) {
      const at = this.transcript.indexOf(text, this.cursor);
      if (at >= 0) {
        this.cursor = at + text.length;
        return;
      }
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${JSON.stringify(text)}; transcript:\n${this.transcript}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  type(keys: string): void {
    this.term.write(keys);
  }

  stop(): void {
    stopPid(this.term.pid);
  }
}

export const KEY = { enter: '\r', down: '\x1b[B', space: ' ', clearLine: '\x15' } as const;
