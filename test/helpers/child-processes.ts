/**
 * Built programs (fixtures, examples, the CLI) in real child processes. Every
 * child a test starts is remembered by PID so that `stopAll` in afterAll stops
 * whatever is still running.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A compiled file under dist/, or a clear instruction when it is missing or older than its sources. */
export function compiledFile(relative: string, sources: string[]): string {
  const file = `${ROOT}dist/${relative}`;
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (\`npm test\` builds before testing)`);
  const built = statSync(file).mtimeMs;
  for (const source of sources) {
    if (existsSync(source) && statSync(source).mtimeMs > built) throw new Error(`${file} is older than ${source}: run \`npm run build\` again`);
  }
  return file;
}

export function compiledFixture(name: string): string {
  return compiledFile(`fixtures/${name}.js`, [`${ROOT}fixtures/${name}.ts`]);
}

const running = new Set<number>();

/** Remembers a child so that `stopAll` stops it. */
export function trackPid(pid: number | null | undefined): void {
  if (pid !== null && pid !== undefined) running.add(pid);
}

/** Forgets a child that has exited by itself. */
export function forgetPid(pid: number | null | undefined): void {
  if (pid !== null && pid !== undefined) running.delete(pid);
}

export function stopPid(pid: number | null | undefined): void {
  if (pid === null || pid === undefined) return;
  running.delete(pid);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const groups = new Set<number>();

/** Remembers a child started with `detached: true` (its own process group: a shell, npm and what they start), so that `stopAll` stops all of it. */
export function trackGroup(pid: number | null | undefined): void {
  if (pid !== null && pid !== undefined) groups.add(pid);
}

/** Stops a process group started with `detached: true`: the child and everything it started. */
export function stopGroup(pid: number | null | undefined): void {
  if (pid === null || pid === undefined) return;
  groups.delete(pid);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Stops every tracked child and process group that is still running (afterAll). */
export function stopAll(): void {
  for (const pid of [...running]) stopPid(pid);
  for (const pid of [...groups]) stopGroup(pid);
}

export interface HttpFixture {
  url: string;
  child: ChildProcess;
  /** Everything the fixture has written to stderr so far. */
  stderr(): string;
}

/** Starts an HTTP fixture on a free port and resolves with the URL it prints on stderr ("listening <url>"). */
export async function startHttpFixture(name: string): Promise<HttpFixture> {
  const child = spawn(process.execPath, [compiledFixture(name), '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  trackPid(child.pid);
  let stderr = '';
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      const match = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`${name} exited (${signal ?? code}) before listening; stderr: ${stderr}; stdout: ${stdout}`)));
  });
  return { url, child, stderr: () => stderr };
}
