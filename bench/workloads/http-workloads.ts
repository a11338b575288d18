/** The HTTP cells of a round: which flow, at which concurrency, against which systems. */

import type { SystemId } from '../systems.js';
import { confirmFlow, echoFlow, toolsListFlow, wizardFlow, type HttpFlow } from './http-flows.js';

export interface HttpWorkload {
  id: string;
  label: string;
  flow: HttpFlow;
  connections: number;
  systems: readonly SystemId[];
  /** Sample the server's RSS halfway through each cell. */
  sampleRss: boolean;
}

const WITHOUT_CODEC: readonly SystemId[] = ['tessera', 'official', 'bare'];
// Where the issue sets targets for echo, also the official SDK serving echo alone: its factory registers
// every tool on every request, so the shared 50-tool catalogue costs it on each call (a reference, not a target).
const ECHO_TARGETS: readonly SystemId[] = ['tessera', 'official', 'officialEchoOnly', 'bare'];
// The codec only changes how requestState is protected, so it only matters where there is state.
const WITH_CODEC: readonly SystemId[] = ['tessera', 'official', 'officialCodec', 'bare'];
// 'tesseraTraced' (the same server with the OpenTelemetry SDK) joins echo c16 and the MRTR rows, in the same rounds as Tessera.

export const HTTP_WORKLOADS: readonly HttpWorkload[] = [
  { id: 'http-echo-c1', label: 'HTTP tools/call echo, c1', flow: echoFlow, connections: 1, systems: WITHOUT_CODEC, sampleRss: false },
  { id: 'http-echo-c16', label: 'HTTP tools/call echo, c16', flow: echoFlow, connections: 16, systems: [...ECHO_TARGETS, 'tesseraTraced'], sampleRss: false },
  { id: 'http-echo-c64', label: 'HTTP tools/call echo, c64', flow: echoFlow, connections: 64, systems: ECHO_TARGETS, sampleRss: true },
  { id: 'http-list-c16', label: 'HTTP tools/list (50 tools), c16', flow: toolsListFlow, connections: 16, systems: WITHOUT_CODEC, sampleRss: false },
  { id: 'mrtr-confirm-c16', label: 'MRTR exchange, 1 form question, c16', flow: confirmFlow, connections: 16, systems: [...WITH_CODEC, 'tesseraTraced'], sampleRss: true },
  { id: 'mrtr-wizard-c16', label: 'MRTR 3 rounds + once step, c16', flow: wizardFlow, connections: 16, systems: [...WITH_CODEC, 'tesseraTraced'], sampleRss: false },
  // Echo again, every request with a bearer JWT both servers verify (Tessera with and without its verified-token cache).
  { id: 'http-echo-jwt-c16', label: 'HTTP tools/call echo with JWT verification, c16', flow: echoFlow, connections: 16, systems: ['tesseraJwt', 'tesseraJwtNoCache', 'officialJwt'], sampleRss: false },
];
