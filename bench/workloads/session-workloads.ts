/**
 * The autocannon cells of the scale phase, run like the http phase's
 * (bench/phases/http.ts): a whole 2025-11-25 session per unit, Tessera
 * (the 2025 era on its one endpoint, session caps lifted) against the
 * official SDK's session-ful transport (servers/official-sessions.ts).
 */

import type { HttpWorkload } from './http-workloads.js';
import { sessionFlow } from './session-flows.js';

export const SESSION_WORKLOADS: readonly HttpWorkload[] = [
  { id: 'legacy-sessions-c16', label: '2025-11-25 session created and deleted, c16', flow: sessionFlow, connections: 16, systems: { tessera: 'tesseraHeld', tesseraRedis: 'tesseraHeldRedis', official: 'officialSessions' }, sampleRss: true },
];
