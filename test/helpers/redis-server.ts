/**
 * A real redis-server (Debian's) for the tests: started on a free 127.0.0.1
 * port with no persistence, stopped by PID; restartable on the same port to
 * test an outage (it comes back empty), and frozen (SIGSTOP) and thawed
 * (SIGCONT) by PID to test a Redis that stops answering while its socket still
 * takes bytes. `.ci/run` installs redis-server when it is missing.
 */

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from '../../fixtures/ports.js';
import { forgetPid, stopPid, trackPid } from './child-processes.js';

export interface RedisServer {
  port: number;
  url: string;
  /** Stops the server (SIGKILL: an outage, not a shutdown). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** SIGSTOP: the process stops answering; connections stay open and the kernel still takes what is sent. */
  freeze(): void;
  /** SIGCONT, and resolves once it answers PING again. */
  thaw(): Promise<void>;
}

function existsOnPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/** Fails with what to install when redis-server (or, for a cluster, redis-cli: both in Debian's redis-server) is missing. */
export function requireRedisServer(): void {
  for (const command of ['redis-server', 'redis-cli']) {
    if (!existsOnPath(command)) {
      throw new Error(`${command} is not installed: the Redis tests start a real redis-server (Debian: apt-get install redis-server, which brings redis-cli; .ci/run does)`);
    }
  }
}

/** Whether redis-server answers PING on a fresh connection within a second (a frozen one takes the connection, never answers). */
export function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (answer: boolean): void => {
      clearTimeout(guard);
      socket.destroy();
      resolve(answer);
    };
    const guard = setTimeout(() => done(false), 1000);
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export async function startRedis(): Promise<RedisServer> {
  requireRedisServer();
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: 'ignore' });
    trackPid(child.pid);
    const started = child;
    started.once('exit', () => forgetPid(started.pid));
    for (let i = 0; i < 100; i++) {
      if (await answersPing(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server did not answer on port ${port}`);
  };
  const stop = async (): Promise<void> => {
    const stopping = child;
    child = undefined;
    if (!stopping || stopping.exitCode !== null) return;
    const exited = new Promise((resolve) => stopping.once('exit', resolve));
    stopPid(stopping.pid);
    await exited;
  };
  const signal = (name: 'SIGSTOP' | 'SIGCONT'): void => {
    if (!child?.pid) throw new Error('redis-server is not running');
    process.kill(child.pid, name);
  };
  const thaw = async (): Promise<void> => {
    signal('SIGCONT');
    for (let i = 0; i < 100; i++) {
      if (await answersPing(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server did not answer on port ${port} after SIGCONT`);
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start, freeze: () => signal('SIGSTOP'), thaw };
}
