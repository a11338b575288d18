/**
 * The HTTP cells of a round: which flow, at which concurrency, and which
 * server each column is measured on. "official" is always the SDK at its
 * best for that workload (only the tools it calls, its codec for state);
 * "official50" the whole catalogue; "officialPlain" unprotected state.
 */

import type { ServerId, SystemId } from '../systems.js';
import { confirmFlow, echoFlow, toolsListFlow, wizardFlow, type HttpFlow } from './http-flows.js';

export type LoadGenerator = 'autocannon' | 'wrk';

export interface HttpWorkload {
  id: string;
  label: string;
  flow: HttpFlow;
  connections: number;
  /** Column → the server process measured for it, in the order the cells run. */
  systems: Partial<Record<SystemId, ServerId>>;
  /** Sample the server's RSS halfway through each cell. */
  sampleRss: boolean;
  /** Which load generator drives the cells (default autocannon). */
  generator?: LoadGenerator;
  /** For wrk cells: the Lua flow (bench/wrk/flows.lua) to run. */
  wrkFlow?: 'echo' | 'confirm' | 'wizard';
}

const ECHO: Partial<Record<SystemId, ServerId>> = { tessera: 'tessera', official: 'officialEcho', official50: 'officialFull', bare: 'bare' };
const ECHO_C1: Partial<Record<SystemId, ServerId>> = { tessera: 'tessera', official: 'officialEcho', bare: 'bare' };
// tools/list of 50 tools: the SDK at its best has to register all 50, so it is the 50-tool server.
const LIST: Partial<Record<SystemId, ServerId>> = { tessera: 'tessera', official: 'officialFull', bare: 'bare' };
// The MRTR ceiling (bareJson): bare node:http parsing each request and serialising each reply, no MCP.
const CONFIRM: Partial<Record<SystemId, ServerId>> = { tessera: 'tessera', official: 'officialConfirm', official50: 'officialFull', officialPlain: 'officialConfirmPlain', bare: 'bare', bareJson: 'bareJson' };
const WIZARD: Partial<Record<SystemId, ServerId>> = { tessera: 'tessera', official: 'officialWizard', official50: 'officialFull', officialPlain: 'officialWizardPlain', bare: 'bare', bareJson: 'bareJson' };
// 'tesseraTraced' (the same server with the OpenTelemetry SDK) joins echo c16 and the MRTR rows, in the same rounds as Tessera.
const traced = (systems: Partial<Record<SystemId, ServerId>>): Partial<Record<SystemId, ServerId>> => ({ ...systems, tesseraTraced: 'tesseraTraced' });
// wrk cells: Tessera against the SDK at its best and the ceiling.
const wrkOf = (systems: Partial<Record<SystemId, ServerId>>): Partial<Record<SystemId, ServerId>> => ({
  tessera: systems.tessera!,
  official: systems.official!,
  bare: systems.bare!,
  ...(systems.bareJson ? { bareJson: systems.bareJson } : {}),
});
// The wrk echo cells also measure the JSON floor (the bare server parsing and serialising JSON), in the same rounds.
const withJsonFloor = (systems: Partial<Record<SystemId, ServerId>>): Partial<Record<SystemId, ServerId>> => ({ ...systems, bareJson: 'bareJson' });

export const HTTP_WORKLOADS: readonly HttpWorkload[] = [
  { id: 'http-echo-c1', label: 'HTTP tools/call echo, c1', flow: echoFlow, connections: 1, systems: ECHO_C1, sampleRss: false },
  { id: 'http-echo-c16', label: 'HTTP tools/call echo, c16', flow: echoFlow, connections: 16, systems: traced(ECHO), sampleRss: false },
  { id: 'http-echo-c64', label: 'HTTP tools/call echo, c64', flow: echoFlow, connections: 64, systems: ECHO, sampleRss: true },
  { id: 'http-list-c16', label: 'HTTP tools/list (50 tools), c16', flow: toolsListFlow, connections: 16, systems: LIST, sampleRss: false },
  { id: 'mrtr-confirm-c16', label: 'MRTR exchange, 1 form question, c16', flow: confirmFlow, connections: 16, systems: traced(CONFIRM), sampleRss: true },
  { id: 'mrtr-wizard-c16', label: 'MRTR 3 rounds + once step, c16', flow: wizardFlow, connections: 16, systems: traced(WIZARD), sampleRss: false },
  // Echo again, every request with a bearer JWT both servers verify (Tessera with and without its verified-token cache).
  {
    id: 'http-echo-jwt-c16',
    label: 'HTTP tools/call echo with JWT verification, c16',
    flow: echoFlow,
    connections: 16,
    systems: { tesseraJwt: 'tesseraJwt', tesseraJwtNoCache: 'tesseraJwtNoCache', officialJwt: 'officialJwt' },
    sampleRss: false,
  },
  // The same flows from wrk (C, one thread, Lua chaining the MRTR rounds): a load generator that is not the limit.
  { id: 'wrk-echo-c16', label: 'HTTP echo c16 (wrk)', flow: echoFlow, connections: 16, systems: withJsonFloor(wrkOf(ECHO)), sampleRss: false, generator: 'wrk', wrkFlow: 'echo' },
  { id: 'wrk-echo-c64', label: 'HTTP echo c64 (wrk)', flow: echoFlow, connections: 64, systems: withJsonFloor(wrkOf(ECHO)), sampleRss: false, generator: 'wrk', wrkFlow: 'echo' },
  { id: 'wrk-mrtr-confirm-c16', label: 'MRTR 1 question c16 (wrk)', flow: confirmFlow, connections: 16, systems: wrkOf(CONFIRM), sampleRss: false, generator: 'wrk', wrkFlow: 'confirm' },
  { id: 'wrk-mrtr-wizard-c16', label: 'MRTR 3 rounds + once c16 (wrk)', flow: wizardFlow, connections: 16, systems: wrkOf(WIZARD), sampleRss: false, generator: 'wrk', wrkFlow: 'wizard' },
];
