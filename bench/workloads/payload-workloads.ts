/**
 * The cells of the payloads and tasks phases, run like the http phase's
 * (bench/phases/http.ts): Tessera against the official SDK at its best, only
 * the resource or tool the workload uses. The official SDK 2.4.0 has no 2026
 * Tasks extension (its tasks/get is the 2025 era's), so the tasks row is
 * Tessera's alone.
 */

import type { HttpWorkload } from './http-workloads.js';
import { bigArgsFlow, pagedListFlow, resourceReadFlow } from './payload-flows.js';
import { taskFlow } from './task-flows.js';

export const PAYLOAD_WORKLOADS: readonly HttpWorkload[] = [
  { id: 'http-resource-1mib-c16', label: 'HTTP resources/read 1 MiB, c16', flow: resourceReadFlow, connections: 16, systems: { tessera: 'tesseraPayloads', official: 'officialResource' }, sampleRss: true },
  { id: 'http-args-64kib-c16', label: 'HTTP tools/call with 64 KiB arguments, c16', flow: bigArgsFlow, connections: 16, systems: { tessera: 'tesseraPayloads', official: 'officialLength' }, sampleRss: false },
  { id: 'http-list-1000-c16', label: 'HTTP tools/list of 1,000 tools, all pages, c16', flow: pagedListFlow, connections: 16, systems: { tessera: 'tesseraMany', official: 'officialMany' }, sampleRss: false },
];

export const TASK_WORKLOADS: readonly HttpWorkload[] = [
  { id: 'http-tasks-c16', label: 'HTTP task created and polled to completed, c16', flow: taskFlow, connections: 16, systems: { tessera: 'tesseraPayloads' }, sampleRss: true },
];
