/**
 * The services the cluster bench runs beside its servers: a redis-server
 * (no persistence) and nginx from the recipe's own template
 * (deploy/nginx/mcp-cluster.conf), each on a free 127.0.0.1 port in a
 * directory of its own, tracked and stopped by PID like every other child.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { accepting, freePort } from '../../fixtures/ports.js';
import { stopPid, track, untrack } from './processes.js';

// From dist/bench/harness/ to the repository's deploy/.
const NGINX_TEMPLATE = fileURLToPath(new URL('../../../deploy/nginx/mcp-cluster.conf', import.meta.url));

export interface Service {
  url: string;
  stop(): Promise<void>;
}

async function started(child: ChildProcess, port: number, what: string): Promise<void> {
  track(child.pid);
  child.once('exit', () => untrack(child.pid));
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited before listening on ${port}`);
    if (await accepting(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not listen on ${port}`);
}

export async function startRedisServer(): Promise<Service> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await started(child, port, 'redis-server');
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopPid(child.pid) };
}

/** nginx round-robin over `ports` (the template's three upstream lines; one port fills all three). */
export async function startNginx(ports: number[]): Promise<Service> {
  const listen = await freePort();
  const prefix = mkdtempSync(join(tmpdir(), 'tessera-bench-nginx-'));
  chmodSync(prefix, 0o755); // run as root, nginx's workers drop to a user that must reach the temporary directories
  let conf = readFileSync(NGINX_TEMPLATE, 'utf8').replaceAll('__LISTEN__', `127.0.0.1:${listen}`);
  for (let i = 1; i <= 3; i++) conf = conf.replaceAll(`__PORT_${i}__`, String(ports[(i - 1) % ports.length]));
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  // Debian puts nginx in /usr/sbin, which is not on a non-root user's PATH.
  const binary = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  const child = spawn(binary, ['-p', `${prefix}/`, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')], { stdio: 'ignore' });
  await started(child, listen, 'nginx');
  return {
    url: `http://127.0.0.1:${listen}/mcp`,
    stop: async () => {
      // SIGTERM first (stopPid): the master stops its workers.
      await stopPid(child.pid);
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
