/**
 * `npm run bench:capacity [-- --units N] [-- --quick]`
 *
 * What one unit of work costs a Tessera instance and its Redis, for the
 * capacity model (docs/capacity.md): per echo, per MRTR exchange (one form
 * question: the call and its retry), per 2025-11-25 session (initialize,
 * initialized, DELETE), and what a live 2025 session holds in Redis. Each
 * unit runs N times, one after the other, on one kept-alive connection
 * (after an unrecorded warm-up of the same units), every reply checked as in
 * the HTTP cells, and the script reads:
 *
 * - the server's CPU time over the N units (/proc), per unit;
 * - the bytes the connection wrote and read (the socket's counters: HTTP
 *   headers and bodies, as a real client puts them on the wire), per unit;
 * - Redis's `INFO commandstats` (commands, a script's own calls included)
 *   and `INFO stats` network bytes, per unit, less what the INFO calls
 *   themselves add (measured with no units in between).
 *
 * Servers: Tessera on memory stores, Tessera on Redis (`redisStores`), and
 * the cluster bench's server on Redis, whose `confirm` has `singleUseState`
 * (a retry redeemed once, through the shared store). Sequential units show
 * the cost, not the rate: a CPU µs per unit at load is in the main bench.
 */

import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient } from '@redis/client';
import { REDIS_ENV } from './config.js';
import { startRedisServer, type Service } from './harness/cluster-services.js';
import { processCpuSeconds } from './harness/cpu.js';
import { log } from './harness/log.js';
import { choosePinning } from './harness/pinning.js';
import { startServer, stopAll, stopAllOnExit, stopPid, type ServerProcess } from './harness/processes.js';
import { machineInfo } from './report/machine.js';
import { HTTP_SERVERS } from './systems.js';
import { confirmFlow, echoFlow, type FlowContext, type HttpFlow } from './workloads/http-flows.js';
import { sessionFlow } from './workloads/session-flows.js';

const { values } = parseArgs({ options: { units: { type: 'string' }, quick: { type: 'boolean', default: false } } });
const UNITS = Number(values.units ?? (values.quick ? 200 : 2_000));
const WARM_UNITS = values.quick ? 100 : 1_000;
/** Sessions left open to read what each holds in Redis. */
const KEPT_SESSIONS = values.quick ? 200 : 1_000;

/** A 2025 session made and left open: initialize and initialized, no DELETE. */
const keptSessionFlow: HttpFlow = { unit: 'session', steps: sessionFlow.steps.slice(0, 2) };

/** Runs a flow's units one after the other on one kept-alive socket; counts that socket's bytes. */
class SequentialClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private socket: Socket | undefined;
  private nextId = 1;
  constructor(private readonly url: URL) {}

  get bytes(): { written: number; read: number } {
    return { written: this.socket?.bytesWritten ?? 0, read: this.socket?.bytesRead ?? 0 };
  }

  private send(method: string, headers: Record<string, string>, body: string | undefined): Promise<{ status: number; text: string; headers: IncomingHttpHeaders }> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest({ host: this.url.hostname, port: this.url.port, path: this.url.pathname, method, headers, agent: this.agent }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text, headers: response.headers }));
      });
      outgoing.on('socket', (socket: Socket) => {
        if (this.socket && this.socket !== socket) reject(new Error('the kept-alive connection was replaced: the byte counts would be split'));
        this.socket = socket;
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  /** One unit of the flow; throws on a wrong reply (the figures would not be the flow's). */
  async unit(flow: HttpFlow): Promise<void> {
    const context: FlowContext = {};
    for (const step of flow.steps) {
      const id = this.nextId++;
      const body = step.body(id, context);
      if (body === undefined) throw new Error('the flow stopped before its last step');
      context.id = id;
      const headers = step.headersFor ? step.headersFor(context) : step.headers;
      const reply = await this.send(step.method ?? 'POST', { ...headers, 'content-length': String(Buffer.byteLength(body)) }, step.method === 'DELETE' ? undefined : body);
      const error = step.check(reply.status, reply.text, context, reply.headers as Record<string, string | string[]>);
      if (error !== undefined) throw new Error(error);
      if (context.done) return;
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

type Redis = ReturnType<typeof createClient>;

/** Commands run so far (every command, INFO included) and network bytes in and out. */
async function redisCounters(redis: Redis): Promise<{ commands: number; netIn: number; netOut: number; usedMemory: number }> {
  const stats = await redis.info('commandstats');
  let commands = 0;
  for (const match of stats.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) commands += Number(match[1]);
  const net = await redis.info('stats');
  const memory = await redis.info('memory');
  const field = (text: string, name: string): number => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { commands, netIn: field(net, 'total_net_input_bytes'), netOut: field(net, 'total_net_output_bytes'), usedMemory: field(memory, 'used_memory') };
}

interface CapacityRow {
  unit: string;
  server: string;
  units: number;
  cpuUs: number;
  bytesSent: number;
  bytesReceived: number;
  redisCommands?: number;
  redisBytesIn?: number;
  redisBytesOut?: number;
}

interface Subject {
  label: string;
  server: ServerProcess;
  redis?: Redis;
}

async function measure(subject: Subject, unit: string, flow: HttpFlow, probe: { commands: number; netIn: number; netOut: number } | undefined): Promise<CapacityRow> {
  const client = new SequentialClient(new URL(subject.server.url));
  try {
    for (let i = 0; i < WARM_UNITS; i++) await client.unit(flow);
    const bytesBefore = client.bytes;
    const redisBefore = subject.redis ? await redisCounters(subject.redis) : undefined;
    const cpuBefore = processCpuSeconds(subject.server.pid) ?? Number.NaN;
    for (let i = 0; i < UNITS; i++) await client.unit(flow);
    const cpuAfter = processCpuSeconds(subject.server.pid) ?? Number.NaN;
    const redisAfter = subject.redis ? await redisCounters(subject.redis) : undefined;
    const bytesAfter = client.bytes;
    const row: CapacityRow = {
      unit,
      server: subject.label,
      units: UNITS,
      cpuUs: ((cpuAfter - cpuBefore) / UNITS) * 1e6,
      bytesSent: (bytesAfter.written - bytesBefore.written) / UNITS,
      bytesReceived: (bytesAfter.read - bytesBefore.read) / UNITS,
    };
    if (redisBefore && redisAfter && probe) {
      row.redisCommands = (redisAfter.commands - redisBefore.commands - probe.commands) / UNITS;
      row.redisBytesIn = (redisAfter.netIn - redisBefore.netIn - probe.netIn) / UNITS;
      row.redisBytesOut = (redisAfter.netOut - redisBefore.netOut - probe.netOut) / UNITS;
    }
    log(`${unit} on ${subject.label}: ${row.cpuUs.toFixed(0)} µs CPU, ${row.bytesSent.toFixed(0)} B sent, ${row.bytesReceived.toFixed(0)} B received${row.redisCommands !== undefined ? `, Redis ${row.redisCommands.toFixed(2)} commands, ${row.redisBytesIn!.toFixed(0)} B in, ${row.redisBytesOut!.toFixed(0)} B out` : ''}`);
    return row;
  } finally {
    client.close();
  }
}

/** What the INFO readings themselves add to Redis's counters (two readings, nothing between). */
async function infoOverhead(redis: Redis): Promise<{ commands: number; netIn: number; netOut: number }> {
  const a = await redisCounters(redis);
  const b = await redisCounters(redis);
  return { commands: b.commands - a.commands, netIn: b.netIn - a.netIn, netOut: b.netOut - a.netOut };
}

/** Redis memory per live 2025 session: sessions made and left open, used_memory before and after. */
async function redisBytesPerSession(subject: Subject): Promise<number> {
  const client = new SequentialClient(new URL(subject.server.url));
  try {
    const before = (await redisCounters(subject.redis!)).usedMemory;
    for (let i = 0; i < KEPT_SESSIONS; i++) await client.unit(keptSessionFlow);
    const after = (await redisCounters(subject.redis!)).usedMemory;
    const perSession = (after - before) / KEPT_SESSIONS;
    log(`${KEPT_SESSIONS} 2025 sessions kept on ${subject.label}: Redis used_memory +${Math.round(perSession)} B each`);
    return perSession;
  } finally {
    client.close();
  }
}

const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url));
stopAllOnExit();
const machine = machineInfo();
const placement = choosePinning(true);
let redisServer: Service | undefined;
const subjects: Subject[] = [];
const rows: CapacityRow[] = [];
let sessionRedisBytes = Number.NaN;
try {
  redisServer = await startRedisServer();
  process.env[REDIS_ENV] = redisServer.url;
  const start = async (label: string, script: string, args: string[], withRedis: boolean): Promise<Subject> => {
    const server = await startServer({ name: label, script, args, nodeFlags: ['--expose-gc'], startTimeoutMs: 60_000 });
    const subject: Subject = { label, server };
    if (withRedis) {
      subject.redis = createClient({ url: redisServer!.url });
      await subject.redis.connect();
    }
    subjects.push(subject);
    return subject;
  };
  const memory = await start('Tessera, memory stores', HTTP_SERVERS.tessera.script, ['--sessions'], false);
  const onRedis = await start('Tessera, Redis stores', HTTP_SERVERS.tessera.script, ['--sessions', '--redis'], true);
  const singleUse = await start('Tessera, Redis stores, single-use confirm', HTTP_SERVERS.tessera.script.replace(/tessera\.js$/, 'tessera-cluster.js'), ['--redis', redisServer.url], true);
  log(`capacity: ${UNITS} units per row after ${WARM_UNITS} warm-up units, one connection, ${placement.reason}`);
  const probe = await infoOverhead(onRedis.redis!);
  for (const subject of [memory, onRedis]) {
    rows.push(await measure(subject, 'echo (tools/call)', echoFlow, subject.redis ? probe : undefined));
    rows.push(await measure(subject, 'MRTR exchange (call + retry)', confirmFlow, subject.redis ? probe : undefined));
    rows.push(await measure(subject, '2025-11-25 session (initialize, initialized, DELETE)', sessionFlow, subject.redis ? probe : undefined));
  }
  rows.push(await measure(singleUse, 'MRTR exchange (call + retry)', confirmFlow, probe));
  sessionRedisBytes = await redisBytesPerSession(onRedis);
} finally {
  for (const subject of subjects) {
    await subject.redis?.quit().catch(() => undefined);
    await stopPid(subject.server.pid);
  }
  await redisServer?.stop();
  await stopAll();
}

const int = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? '–' : Math.round(v).toLocaleString('en-US'));
const two = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? '–' : v.toFixed(2));
const table = [
  '| Unit | Server | server CPU µs | bytes sent | bytes received | Redis commands | Redis bytes in | Redis bytes out |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.unit} | ${r.server} | ${int(r.cpuUs)} | ${int(r.bytesSent)} | ${int(r.bytesReceived)} | ${two(r.redisCommands)} | ${int(r.redisBytesIn)} | ${int(r.redisBytesOut)} |`),
].join('\n');
const report = [
  `Date: ${new Date().toISOString()} · ${machine.cpuModel}, ${machine.logicalCores} cores · Node ${machine.node} · ${placement.reason} · load average ${loadavg()[0]!.toFixed(2)}`,
  `Per unit: ${UNITS} units one after the other on one kept-alive connection, after ${WARM_UNITS} unrecorded; every reply checked.`,
  '',
  table,
  '',
  `Redis memory per live 2025-11-25 session (${KEPT_SESSIONS} made and left open): ${int(sessionRedisBytes)} bytes.`,
].join('\n');
mkdirSync(RESULTS_DIR, { recursive: true });
writeFileSync(`${RESULTS_DIR}capacity.json`, `${JSON.stringify({ date: new Date().toISOString(), machine, units: UNITS, warmUnits: WARM_UNITS, rows, sessionRedisBytes, keptSessions: KEPT_SESSIONS }, null, 2)}\n`);
writeFileSync(`${RESULTS_DIR}capacity.md`, `${report}\n`);
process.stdout.write(`${report}\n`);
