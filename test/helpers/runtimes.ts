/**
 * The runtimes of the matrix, each a real process serving runtimes/.build/worker.js
 * on 127.0.0.1: Node (this one), and Bun, Deno and workerd from npm, installed
 * in runtimes/ only (`npm ci --prefix runtimes`) so the root lockfile stays free
 * of them. Each is tracked by PID (child-processes.ts) and stopped by it.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
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

/**
 * The command of each runtime. The launchers print `listening <url>` on stdout; workerd listens on
 * port 0 too and reports the port it got on its control descriptor (fd 3 here) as JSON.
 */
function command(name: RuntimeName, workerdConfig: string): [string, ...string[]] {
  switch (name) {
    case 'node':
      return [process.execPath, 'serve-node.mjs'];
    case 'bun':
      return [installed('bun'), 'run', 'serve-bun.mjs'];
    case 'deno':
      // Network on loopback only; no prompt (there is no terminal to ask on).
      return [installed('deno'), 'run', '--allow-net=127.0.0.1', '--no-prompt', 'serve-deno.mjs'];
    case 'workerd':
      return [installed('workerd'), 'serve', workerdConfig, '--socket-addr', 'http=127.0.0.1:0', '--control-fd', '3'];
  }
}

export async function startRuntime(name: RuntimeName, workerdConfig = 'workerd.capnp'): Promise<RunningRuntime> {
  const argv = command(name, workerdConfig);
  const child = spawn(argv[0], argv.slice(1), {
    cwd: RUNTIMES_DIR,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
  });
  trackPid(child.pid);
  let stdout = '';
  let stderr = '';
  const drained = Promise.all(
    [child.stdout!, child.stderr!, child.stdio[3] as Readable].map((stream) => new Promise<void>((resolve) => stream.once('close', resolve))),
  );
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
    let control = '';
    (child.stdio[3] as Readable).setEncoding('utf8').on('data', (text: string) => {
      control += text;
      const match = /"event":"listen","socket":"http","port":(\d+)/.exec(control);
      if (match) resolve(`http://127.0.0.1:${match[1]}/mcp`);
    });
  });
  const url = await Promise.race([printed, exited]);
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
