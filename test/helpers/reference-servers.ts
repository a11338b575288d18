/**
 * The reference MCP servers people run today (`@modelcontextprotocol/
 * server-everything`, `-filesystem`, `-memory`, pinned in the root
 * devDependencies; all on the official SDK 1.x, speaking 2025-11-25), started
 * as real child processes: over stdio as the command a client spawns, and
 * server-everything over Streamable HTTP on a free port. A tap
 * (fixtures/stdio-tap.ts) between client and server records what reached
 * the server. Every process is stopped by PID.
 */

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { accepting, freePort } from '../../fixtures/ports.js';
import { compiledFixture, ROOT, stopPid, trackPid } from './child-processes.js';

export type ReferenceServer = 'everything' | 'filesystem' | 'memory';

/** The installed server's entry point (the file its `bin` runs). */
export function referenceServer(name: ReferenceServer): string {
  return `${ROOT}node_modules/@modelcontextprotocol/server-${name}/dist/index.js`;
}

/** The command line that starts a reference server over stdio. */
export function stdioCommand(name: ReferenceServer, args: string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: [referenceServer(name), ...(name === 'everything' ? ['stdio'] : []), ...args] };
}

/** The same command behind the tap, which writes every line the client sends to `record`. */
export function tappedCommand(record: string, server: { command: string; args: string[] }): { command: string; args: string[] } {
  return { command: process.execPath, args: [compiledFixture('stdio-tap'), '--record', record, '--', server.command, ...server.args] };
}

/** The JSON-RPC messages a tap recorded, in order (none before the first). */
export function tapped(record: string): Array<Record<string, any>> {
  if (!existsSync(record)) return [];
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

const GUARD_MS = 20_000;

/** Polls `check` every 25 ms until it returns something, for at most 20 s. */
export async function eventually<T>(what: string, check: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + GUARD_MS;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface HttpReferenceServer {
  url: string;
  pid: number | undefined;
  /** What the server printed so far. */
  output(): string;
  stop(): void;
}

/** server-everything over Streamable HTTP (`streamableHttp`, port from $PORT) on a free port; resolves once it accepts connections. */
export async function startEverythingHttp(): Promise<HttpReferenceServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [referenceServer('everything'), 'streamableHttp'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackPid(child.pid);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
  const server: HttpReferenceServer = { url: `http://127.0.0.1:${port}/mcp`, pid: child.pid, output: () => output, stop: () => stopPid(child.pid) };
  const deadline = Date.now() + GUARD_MS;
  while (!(await accepting(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      server.stop();
      throw new Error(`server-everything did not start listening on ${port}: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return server;
}
