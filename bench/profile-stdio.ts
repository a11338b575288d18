/**
 * `node dist/bench/profile-stdio.js [--system tessera|official] [--calls N] [--in-flight K] [--server-prof DIR] [--pin]`
 *
 * N echo calls over stdio with one SDK's client and server child (the stdio
 * cells' subjects), then the CPU time each side spent per call: the client
 * (this process, process.cpuUsage) and the server child (/proc/<pid>/stat,
 * Linux). CPU per call does not depend on what else the machine runs, unlike
 * calls/s. Run this process under `node --cpu-prof` for the client's profile;
 * --server-prof DIR runs the child under `--cpu-prof` too.
 */

import { parseArgs } from 'node:util';
import { processCpuSeconds } from './harness/cpu.js';
import { choosePinning } from './harness/pinning.js';
import { OFFICIAL_SCRIPT, TESSERA_SCRIPT } from './systems.js';
import { connectOfficial, connectTessera, type StdioSubject } from './workloads/stdio.js';

const { values } = parseArgs({
  options: {
    system: { type: 'string', default: 'tessera' },
    calls: { type: 'string', default: '50000' },
    'in-flight': { type: 'string', default: '1' },
    warmup: { type: 'string', default: '5000' },
    'server-prof': { type: 'string' },
    pin: { type: 'boolean', default: false },
  },
});
// --pin: this process on CPU 0 and the child on CPU 1, as the bench runs them.
if (values.pin) choosePinning(true);

const nodeFlags = values['server-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['server-prof']] : [];
const subject: StdioSubject =
  values.system === 'official' ? await connectOfficial(OFFICIAL_SCRIPT, nodeFlags) : await connectTessera(TESSERA_SCRIPT, nodeFlags);

/** The child's user + system CPU time in µs (/proc, through the bench's own reader). */
function childCpuMicros(pid: number): number {
  const seconds = processCpuSeconds(pid);
  if (seconds === undefined) throw new Error(`no CPU time for pid ${pid}: this needs Linux's /proc`);
  return seconds * 1e6;
}

async function run(calls: number, inFlight: number): Promise<void> {
  let left = calls;
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      const error = await subject.callEcho();
      if (error !== undefined) throw new Error(error);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

const calls = Number(values.calls);
const inFlight = Number(values['in-flight']);
await run(Number(values.warmup), inFlight);
const pid = subject.pid!;
const serverBefore = childCpuMicros(pid);
const clientBefore = process.cpuUsage();
const started = performance.now();
await run(calls, inFlight);
const wall = performance.now() - started;
const client = process.cpuUsage(clientBefore);
const server = childCpuMicros(pid) - serverBefore;
await subject.close();
const perCall = (micros: number): string => (micros / calls).toFixed(1);
process.stdout.write(
  `${values.system} ${inFlight} in flight, ${calls} calls: ${Math.round(calls / (wall / 1000))} calls/s; ` +
    `CPU per call: client ${perCall(client.user + client.system)} µs (user ${perCall(client.user)}), server ${perCall(server)} µs\n`,
);
