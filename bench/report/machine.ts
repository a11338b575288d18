/** The machine a run happened on, for the report and the JSON file. */

import os from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  logicalCores: number;
  memoryGiB: number;
  node: string;
  platform: string;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    logicalCores: os.availableParallelism?.() ?? cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  };
}
