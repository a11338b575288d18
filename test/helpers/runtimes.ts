/**
 * The runtimes of the matrix, each a real process serving runtimes/.build/worker.js
 * on 127.0.0.1: Node (this one), and Bun, Deno and workerd from npm, installed
 * in runtimes/ only (`npm ci --prefix runtimes`) so the root lockfile stays free
 * of them. Each is tracked by PID (child-processes.ts) and stopped by it.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { ROOT, forgetPid, trackPid } from './child-processes.js';

export const RUNTIMES_DIR = `${ROOT}runtimes/`;
export const WORKER_BUNDLE = 'runtimes/.build/worker.js';
/** The keyless worker, served by workerd-keyless.capnp. */
export const KEYLESS_BUNDLE = 'runtimes/.build/keyless.js';

export type RuntimeName = 'node' | 'bun' | 'deno' | 'workerd';

export interface RunningRuntime {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** Kills the process by its PID and resolves once its pipes are drained (all it wrote is in stderr()). */
  stop(): Promise<void>;
}

function installed(name: string): string {
  const binary = `${RUNTIMES_DIR}node_modules/.bin/${name}`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`npm ci --prefix runtimes\` (the matrix's runtimes are installed there only)`);
  return binary;
}

/** A port nobody listens on now (workerd takes its address on the command line, not port 0). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The command of each runtime; the launchers print `listening <url>` on stdout, workerd prints nothing. */
async function command(name: RuntimeName, workerdConfig: string): Promise<{ argv: [string, ...string[]]; url?: string }> {
  switch (name) {
    case 'node':
      return { argv: [process.execPath, 'serve-node.mjs'] };
    case 'bun':
      return { argv: [installed('bun'), 'run', 'serve-bun.mjs'] };
    case 'deno':
      // Network on loopback only; no prompt (there is no terminal to ask on).
      return { argv: [installed('deno'), 'run', '--allow-net=127.0.0.1', '--no-prompt', 'serve-deno.mjs'] };
    case 'workerd': {
      const port = await freePort();
      return { argv: [installed('workerd'), 'serve', workerdConfig, '--socket-addr', `http=127.0.0.1:${port}`], url: `http://127.0.0.1:${port}/mcp` };
    }
  }
}

/** Tries to connect until the server accepts (bounded: a fixed number of attempts, each waiting on the socket). */
async function reachable(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      await fetch(url, { method: 'GET' });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${url} never accepted a connection`);
}

/** Starts `name` on the matrix's worker (workerd: on the worker of `workerdConfig`). */
export async function startRuntime(name: RuntimeName, workerdConfig = 'workerd.capnp'): Promise<RunningRuntime> {
  const { argv, url: known } = await command(name, workerdConfig);
  const child = spawn(argv[0], argv.slice(1), {
    cwd: RUNTIMES_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
  });
  trackPid(child.pid);
  let stdout = '';
  let stderr = '';
  const drained = Promise.all([
    new Promise<void>((resolve) => child.stdout!.once('close', resolve)),
    new Promise<void>((resolve) => child.stderr!.once('close', resolve)),
  ]);
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`${name} exited (${signal ?? code}) before serving; stderr: ${stderr}; stdout: ${stdout}`)));
  });
  const printed = new Promise<string>((resolve) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const match = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stdout);
      if (match) resolve(match[1]!);
    });
  });
  const url = known ? await Promise.race([reachable(known, child).then(() => known), exited]) : await Promise.race([printed, exited]);
  exited.catch(() => undefined);
  if (child.exitCode !== null || child.signalCode !== null) await exited;
  return {
    url,
    child,
    stderr: () => stderr,
    async stop() {
      forgetPid(child.pid);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await drained;
    },
  };
}
