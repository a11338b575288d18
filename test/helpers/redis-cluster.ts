/**
 * A real Redis Cluster for the tests: six Debian redis-server processes in
 * cluster mode on free 127.0.0.1 ports (each with its own cluster bus port and
 * directory, no persistence), joined by `redis-cli --cluster create
 * --cluster-replicas 1` into three masters with a replica each; stopped by
 * PID. A node can be killed (SIGKILL) and started again: its replica takes
 * over, and the node comes back as a replica (its directory keeps
 * nodes.conf). A node can be frozen (SIGSTOP) and thawed (SIGCONT) by PID:
 * with a `nodeTimeoutMs` longer than the freeze the cluster does not fail it
 * over, so it wakes up as the master it was. redis-cli comes with
 * redis-server (Debian's redis-tools).
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { freePort } from '../../fixtures/ports.js';
import { forgetPid, stopPid, trackPid } from './child-processes.js';
import { answersPing, requireRedisServer } from './redis-server.js';

const NODES = 6;
/** How long a master may not answer before the others count it failed (and its replica takes over), unless a test gives its own. */
const NODE_TIMEOUT_MS = 1000;

export interface RedisClusterOptions {
  /** `cluster-node-timeout`, in ms (default 1000: a killed master is failed over within seconds). */
  nodeTimeoutMs?: number;
}
/** Polls of a bounded wait, 100 ms apart. */
const POLLS = 300;

export interface ClusterNode {
  port: number;
  role: 'master' | 'replica';
  /** The master's port, for a replica. */
  masterPort?: number;
  /** A replica's link to its master is up. */
  linked: boolean;
  failed: boolean;
}

export interface RedisCluster {
  /** One seed node URL per node (a client needs one that answers). */
  urls: string[];
  /** The first seed's URL. */
  url: string;
  /** The nodes as the cluster sees them now (asked of a node that answers). */
  nodes(): Promise<ClusterNode[]>;
  /** The port of the master serving `key`'s hash slot now. */
  masterOf(key: string): Promise<number>;
  /** SIGKILL of one node, by PID; resolves once it is gone. */
  kill(port: number): Promise<void>;
  /** Starts a killed node again (it rejoins, as a replica if its slots moved). */
  restart(port: number): Promise<void>;
  /** SIGSTOP of one node, by PID: it stops answering, its sockets still take what is sent. */
  freeze(port: number): void;
  /** SIGCONT of a frozen node; resolves once it answers PING again. */
  thaw(port: number): Promise<void>;
  /** Resolves once every live node says cluster_state:ok and, with `replicas`, every master has a replica in sync. */
  healthy(replicas?: boolean): Promise<void>;
  /** Keys on one node matching `pattern` (SCAN). */
  keysOn(port: number, pattern: string): Promise<string[]>;
  stop(): Promise<void>;
}

/** How many times a node is started again on fresh ports after its port was taken meanwhile. */
const PORT_ATTEMPTS = 5;

async function pause(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** One command on a fresh connection to one node; undefined when it does not answer. */
async function ask<T>(port: number, args: string[]): Promise<T | undefined> {
  const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.sendCommand<T>(args);
  } catch {
    return undefined;
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/** CLUSTER NODES, parsed. */
function parseNodes(text: string): ClusterNode[] {
  const lines = text.trim().split('\n').map((line) => line.split(' '));
  const portOfId = new Map(lines.map(([id, address]) => [id!, Number(address!.split('@')[0]!.split(':')[1])]));
  return lines.map(([, address, flags, master, , , , link]) => {
    const port = Number(address!.split('@')[0]!.split(':')[1]);
    const replica = flags!.includes('slave');
    return {
      port,
      role: replica ? 'replica' : 'master',
      ...(replica && master !== '-' ? { masterPort: portOfId.get(master!)! } : {}),
      linked: link === 'connected',
      failed: /fail/.test(flags!),
    };
  });
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const nodeTimeoutMs = options.nodeTimeoutMs ?? NODE_TIMEOUT_MS;
  requireRedisServer();
  // Twelve distinct ports: the OS may hand a port just closed out again, and two nodes on one fail to start.
  const chosen = new Set<number>();
  const unchosenPort = async (): Promise<number> => {
    for (let n = 0; n < 1000; n++) {
      const port = await freePort();
      if (!chosen.has(port)) {
        chosen.add(port);
        return port;
      }
    }
    throw new Error('no free port found for a Redis Cluster node');
  };
  for (let n = 0; n < NODES * 2; n++) await unchosenPort();
  const ports = [...chosen].slice(0, NODES);
  const busPorts = [...chosen].slice(NODES, NODES * 2);
  const dir = mkdtempSync(join(tmpdir(), 'tessera-redis-cluster-'));
  const children = new Map<number, ChildProcess>();

  /**
   * Starts node i and waits for its PING. A port free when chosen may be taken before redis-server binds it
   * (another test's connection gets it as its local port): then the node starts again on fresh ports.
   */
  const startNode = async (i: number): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const port = ports[i]!;
      const args = ['--port', String(port), '--cluster-port', String(busPorts[i]), '--bind', '127.0.0.1', '--protected-mode', 'yes'];
      args.push('--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', String(nodeTimeoutMs));
      // A replica syncs at once (no 5 s wait for others to join the transfer).
      args.push('--dir', dir, '--save', '', '--appendonly', 'no', '--dbfilename', `dump-${port}.rdb`, '--repl-diskless-sync-delay', '0');
      const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-2000));
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      trackPid(child.pid);
      child.once('exit', () => forgetPid(child.pid));
      children.set(port, child);
      for (let n = 0; n < POLLS && child.exitCode === null; n++) {
        if (await answersPing(port)) return;
        await pause(50);
      }
      const exited = child.exitCode !== null || child.signalCode !== null;
      if (exited && /Address already in use/.test(output) && attempt < PORT_ATTEMPTS) {
        children.delete(port);
        ports[i] = await unchosenPort();
        busPorts[i] = await unchosenPort();
        continue;
      }
      throw new Error(`redis-server (cluster node) did not answer on port ${port}: ${output}`);
    }
  };

  const live = (): number[] => ports.filter((port) => children.get(port)?.exitCode === null && children.get(port)?.signalCode === null);

  const nodes = async (): Promise<ClusterNode[]> => {
    for (const port of live()) {
      const text = await ask<string>(port, ['CLUSTER', 'NODES']);
      if (text !== undefined) return parseNodes(text);
    }
    throw new Error('no cluster node answers');
  };

  const healthy = async (replicas = false): Promise<void> => {
    let last = '';
    for (let n = 0; n < POLLS; n++) {
      const infos = await Promise.all(live().map((port) => ask<string>(port, ['CLUSTER', 'INFO'])));
      const ok = infos.every((info) => info?.includes('cluster_state:ok'));
      if (ok) {
        const seen = await nodes();
        const masters = seen.filter((node) => node.role === 'master' && !node.failed);
        // A replica in sync: its master says so (`state=online`), not only the cluster bus.
        const replication = await Promise.all(masters.map((m) => ask<string>(m.port, ['INFO', 'replication'])));
        const covered = replication.every((info) => info !== undefined && /^slave\d+:.*state=online/m.test(info));
        last = JSON.stringify(seen);
        if (!replicas || covered) return;
      }
      await pause(100);
    }
    throw new Error(`the Redis Cluster did not become healthy: ${last}`);
  };

  const stop = async (): Promise<void> => {
    await Promise.all(
      [...children.values()].map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        stopPid(child.pid);
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await Promise.all(ports.map((_, i) => startNode(i)));
    const create = spawn('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
    trackPid(create.pid);
    let output = '';
    create.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    create.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => create.once('exit', resolve));
    forgetPid(create.pid);
    if (code !== 0) throw new Error(`redis-cli --cluster create failed (${code}): ${output}`);
    await healthy(true);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    urls: ports.map((port) => `redis://127.0.0.1:${port}`),
    url: `redis://127.0.0.1:${ports[0]}`,
    nodes,
    async masterOf(key) {
      const slot = await ask<number>(live()[0]!, ['CLUSTER', 'KEYSLOT', key]);
      for (const port of live()) {
        const slots = await ask<Array<[number, number, [string, number]]>>(port, ['CLUSTER', 'SLOTS']);
        const range = slots?.find(([from, to]) => from <= slot! && slot! <= to);
        if (range) return Number(range[2][1]);
      }
      throw new Error(`no master found for ${key}`);
    },
    async kill(port) {
      const child = children.get(port);
      if (!child || child.exitCode !== null || child.signalCode !== null) throw new Error(`node ${port} is not running`);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      stopPid(child.pid);
      await exited;
    },
    async restart(port) {
      await startNode(ports.indexOf(port));
    },
    freeze(port) {
      const pid = children.get(port)?.pid;
      if (pid === undefined) throw new Error(`node ${port} is not running`);
      process.kill(pid, 'SIGSTOP');
    },
    async thaw(port) {
      const pid = children.get(port)?.pid;
      if (pid === undefined) throw new Error(`node ${port} is not running`);
      process.kill(pid, 'SIGCONT');
      for (let n = 0; n < POLLS; n++) {
        if (await answersPing(port)) return;
        await pause(50);
      }
      throw new Error(`cluster node ${port} did not answer after SIGCONT`);
    },
    healthy,
    async keysOn(port, pattern) {
      const found: string[] = [];
      let cursor = '0';
      for (let n = 0; n < 1000; n++) {
        const reply = await ask<[string, string[]]>(port, ['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000']);
        if (!reply) throw new Error(`node ${port} does not answer`);
        found.push(...reply[1]);
        cursor = reply[0];
        if (cursor === '0') break;
      }
      return found;
    },
    stop,
  };
}
