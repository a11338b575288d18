/**
 * Where the machine allows it (taskset present, at least 2 cores), the load
 * generator runs on core 0 and every server on core 1, so neither steals the
 * other's core and the generator's own ceiling is visible on its own. The
 * machine may still be shared with other work, which pinning cannot stop.
 */

import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface Pinning {
  /** taskset CPU lists. */
  generator: string;
  server: string;
}

let chosen: Pinning | undefined;

export function hasCommand(command: string, args: string[] = ['--version']): boolean {
  const probe = spawnSync(command, args, { stdio: 'ignore' });
  return probe.error === undefined;
}

/** Decides once per run; `enabled: false` (--no-pin) turns it off. Returns why when it cannot pin. */
export function choosePinning(enabled: boolean): { pinning?: Pinning; reason: string } {
  if (!enabled) return { reason: 'pinning off (--no-pin)' };
  if (availableParallelism() < 2) return { reason: 'one core: nothing to pin apart' };
  if (!hasCommand('taskset', ['-V'])) return { reason: 'taskset not found (util-linux): load generator and servers share the cores' };
  chosen = { generator: '0', server: '1' };
  // -a: every thread of this process (libuv and V8 threads too), not only the main one.
  const self = spawnSync('taskset', ['-a', '-p', '-c', chosen.generator, String(process.pid)], { stdio: 'ignore' });
  if (self.status !== 0) {
    chosen = undefined;
    return { reason: 'taskset could not pin this process' };
  }
  return { pinning: chosen, reason: `load generator on CPU ${chosen.generator}, servers on CPU ${chosen.server}` };
}

export function currentPinning(): Pinning | undefined {
  return chosen;
}

/** The command line that runs `command args` on the servers' core (unchanged without pinning). */
export function onServerCore(command: string, args: string[]): { command: string; args: string[] } {
  return chosen ? { command: 'taskset', args: ['-c', chosen.server, command, ...args] } : { command, args };
}

/** The command line that runs `command args` on the load generator's core. */
export function onGeneratorCore(command: string, args: string[]): { command: string; args: string[] } {
  return chosen ? { command: 'taskset', args: ['-c', chosen.generator, command, ...args] } : { command, args };
}
