/**
 * A real nginx (Debian's) for the tests, from the repository's own config
 * template (deploy/nginx/mcp-cluster.conf, the file the several-instances
 * recipe uses): the placeholders filled in, run in the foreground with its
 * own prefix directory (pid, error log, temporary files), stopped by PID.
 * `.ci/run` installs nginx when it is missing.
 */

import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { accepting as listening } from '../../fixtures/ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetPid, ROOT, stopPid, trackPid } from './child-processes.js';

export const NGINX_TEMPLATE = `${ROOT}deploy/nginx/mcp-cluster.conf`;

/** One line of the access log (the config's `mcp_cluster` format). */
export interface AccessEntry {
  method: string;
  status: number;
  /** The instance's port (the last one tried, when nginx had to try another). */
  upstreamPort: number | undefined;
  /** `Mcp-Session-Id`, when the request carried one. */
  session: string | undefined;
}

export interface Nginx {
  url: string;
  /** Every request nginx has finished so far. */
  accessLog(): AccessEntry[];
  /** The error log so far (for failure messages). */
  errorLog(): string;
  stop(): Promise<void>;
}

/** The template with the listen port and the instances' ports in place. */
export function nginxConfig(listenPort: number, upstreamPorts: number[]): string {
  let text = readFileSync(NGINX_TEMPLATE, 'utf8').replaceAll('__LISTEN__', `127.0.0.1:${listenPort}`);
  upstreamPorts.forEach((port, i) => (text = text.replaceAll(`__PORT_${i + 1}__`, String(port))));
  if (/__[A-Z_0-9]+__/.test(text)) throw new Error(`${NGINX_TEMPLATE} has placeholders left for ${upstreamPorts.length} instances`);
  return text;
}

/** nginx on PATH, else Debian's /usr/sbin/nginx (not on a non-root user's PATH there). */
export function nginxBinary(): string {
  if (spawnSync('sh', ['-c', 'command -v nginx']).status === 0) return 'nginx';
  if (existsSync('/usr/sbin/nginx')) return '/usr/sbin/nginx';
  throw new Error('nginx is not installed: the cluster test runs a real one (Debian: apt-get install nginx; .ci/run does)');
}

export async function startNginx(listenPort: number, upstreamPorts: number[]): Promise<Nginx> {
  const binary = nginxBinary();
  const prefix = mkdtempSync(join(tmpdir(), 'tessera-nginx-'));
  // Run as root, nginx's workers drop to an unprivileged user that must reach the temporary directories.
  chmodSync(prefix, 0o755);
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(conf, nginxConfig(listenPort, upstreamPorts));
  const child = spawn(binary, ['-p', `${prefix}/`, '-c', conf, '-e', join(prefix, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  trackPid(child.pid);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', () => forgetPid(child.pid));
  const errorLog = (): string => {
    const file = join(prefix, 'error.log');
    return `${stderr}${existsSync(file) ? readFileSync(file, 'utf8') : ''}`;
  };
  for (let i = 0; i < 100 && !(await listening(listenPort)); i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${errorLog()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!(await listening(listenPort))) throw new Error(`nginx did not listen on ${listenPort}: ${errorLog()}`);
  const accessLog = (): AccessEntry[] => {
    const file = join(prefix, 'access.log');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => /^\S+ (\S+) (\d+) upstream=(\S+) session=(\S+)$/.exec(line))
      .filter((match) => match !== null)
      .map(([, method, status, upstream, session]) => {
        const port = /:(\d+)$/.exec(upstream!)?.[1];
        return { method: method!, status: Number(status), upstreamPort: port ? Number(port) : undefined, session: session === '-' ? undefined : session };
      });
  };
  return {
    url: `http://127.0.0.1:${listenPort}/mcp`,
    accessLog,
    errorLog,
    stop: async () => {
      if (child.exitCode === null) {
        // SIGTERM, not SIGKILL: the master stops its workers (killed, it would leave them holding the port).
        process.kill(child.pid!, 'SIGTERM');
        const guard = setTimeout(() => stopPid(child.pid), 10_000);
        await exited;
        clearTimeout(guard);
        forgetPid(child.pid);
      }
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
