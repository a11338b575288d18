/**
 * The systems under test: the report's columns (SystemId) and the server
 * processes behind them (ServerId). A column can be served by a different
 * process per workload: "Official SDK" is the SDK at its best for that
 * workload (only the tools it calls), so echo and the MRTR rows each have
 * their own official server (bench/README.md says how each is configured).
 */

import { fileURLToPath } from 'node:url';
import { OFFICIAL_RESPONSE_MODE } from './config.js';

/** A column of the report (what a cell is recorded under). */
export type SystemId = 'tessera' | 'official' | 'official50' | 'officialPlain' | 'bare' | 'bareJson' | 'tesseraJwt' | 'tesseraJwtNoCache' | 'officialJwt' | 'tesseraTraced' | 'tesseraRedis';

/** A server process of the run. */
export type ServerId =
  | 'tessera'
  | 'officialEcho'
  | 'officialConfirm'
  | 'officialWizard'
  | 'officialFull'
  | 'officialConfirmPlain'
  | 'officialWizardPlain'
  | 'bare'
  | 'bareJson'
  | 'tesseraJwt'
  | 'tesseraJwtNoCache'
  | 'officialJwt'
  | 'tesseraTraced'
  | 'tesseraPayloads'
  | 'tesseraMany'
  | 'officialResource'
  | 'officialLength'
  | 'officialMany'
  | 'tesseraHeld'
  | 'tesseraHeldRedis'
  | 'officialHeld'
  | 'bareHeld'
  | 'officialSessions';

export interface HttpServerSpec {
  id: ServerId;
  label: string;
  script: string;
  args: string[];
}

const script = (name: string): string => fileURLToPath(new URL(`./servers/${name}.js`, import.meta.url));

export const TESSERA_SCRIPT = script('tessera');
export const OFFICIAL_SCRIPT = script('official');

const official = (...args: string[]): string[] => [...args, '--response-mode', OFFICIAL_RESPONSE_MODE];

/** The scale phase holds connections for a while: no server may close an idle one meanwhile (the default is 65 s). */
export const HELD_KEEP_ALIVE_MS = 600_000;
const held = ['--keep-alive-ms', String(HELD_KEEP_ALIVE_MS)];

export const HTTP_SERVERS: Record<ServerId, HttpServerSpec> = {
  // Tessera always serves the whole 50-tool catalogue with sealed state: the conservative side of every comparison.
  tessera: { id: 'tessera', label: 'Tessera', script: TESSERA_SCRIPT, args: [] },
  // The official SDK at its best, one process per workload: only the tools it calls, the HMAC codec for state.
  officialEcho: { id: 'officialEcho', label: 'Official, echo only', script: OFFICIAL_SCRIPT, args: official('--tools', 'echo') },
  officialConfirm: { id: 'officialConfirm', label: 'Official, confirm only + codec', script: OFFICIAL_SCRIPT, args: official('--tools', 'confirm', '--state', 'codec') },
  officialWizard: { id: 'officialWizard', label: 'Official, wizard only + codec', script: OFFICIAL_SCRIPT, args: official('--tools', 'wizard', '--state', 'codec') },
  // The realistic set-up: the whole catalogue registered per request, the codec bound to the method as well.
  officialFull: { id: 'officialFull', label: 'Official, 50 tools + codec', script: OFFICIAL_SCRIPT, args: official('--state', 'codec', '--bind') },
  // The unprotected set-up: plain JSON requestState (the SDK's default), only the tool called.
  officialConfirmPlain: { id: 'officialConfirmPlain', label: 'Official, confirm only, plain state', script: OFFICIAL_SCRIPT, args: official('--tools', 'confirm', '--state', 'plain') },
  officialWizardPlain: { id: 'officialWizardPlain', label: 'Official, wizard only, plain state', script: OFFICIAL_SCRIPT, args: official('--tools', 'wizard', '--state', 'plain') },
  bare: { id: 'bare', label: 'Bare node:http', script: script('bare'), args: [] },
  // The JSON floor: the bare server with JSON.parse of every body and JSON.stringify of every reply, still no MCP.
  bareJson: { id: 'bareJson', label: 'Bare node:http + JSON', script: script('bare'), args: ['--json'] },
  // The JWT rows: both servers as protected resources of the load generator's token issuer.
  tesseraJwt: { id: 'tesseraJwt', label: 'Tessera + JWT', script: TESSERA_SCRIPT, args: ['--auth'] },
  tesseraJwtNoCache: { id: 'tesseraJwtNoCache', label: 'Tessera + JWT, no token cache', script: TESSERA_SCRIPT, args: ['--auth-no-cache'] },
  officialJwt: { id: 'officialJwt', label: 'Official echo only + bearer middleware', script: OFFICIAL_SCRIPT, args: official('--auth', '--tools', 'echo') },
  // The tracing overhead rows: the same server with the OpenTelemetry SDK installed (issue 14).
  tesseraTraced: { id: 'tesseraTraced', label: 'Tessera + tracing', script: TESSERA_SCRIPT, args: ['--telemetry'] },
  // The workloads2 phase: Tessera with the catalogue plus the new resource and tools, or with 1,000 tools;
  // the official SDK at its best again, only what each workload reads or calls (all 1,000 for the listing).
  tesseraPayloads: { id: 'tesseraPayloads', label: 'Tessera + 1 MiB resource, length and task tools', script: TESSERA_SCRIPT, args: ['--payloads'] },
  tesseraMany: { id: 'tesseraMany', label: 'Tessera, 1,000 tools', script: TESSERA_SCRIPT, args: ['--many'] },
  officialResource: { id: 'officialResource', label: 'Official, 1 MiB resource only', script: OFFICIAL_SCRIPT, args: official('--tools', 'resource') },
  officialLength: { id: 'officialLength', label: 'Official, length only', script: OFFICIAL_SCRIPT, args: official('--tools', 'length') },
  officialMany: { id: 'officialMany', label: 'Official, 1,000 tools', script: OFFICIAL_SCRIPT, args: official('--tools', 'echo,confirm,wizard,lookup,many') },
  // The scale phase: long keep-alive everywhere; Tessera with its 2025 session caps lifted, the official
  // SDK's stateless handler with its listen-stream cap lifted, and its session-ful transport for the 2025 rows.
  tesseraHeld: { id: 'tesseraHeld', label: 'Tessera, long keep-alive, session caps lifted', script: TESSERA_SCRIPT, args: [...held, '--sessions'] },
  officialHeld: { id: 'officialHeld', label: 'Official, echo only, long keep-alive, listen cap lifted', script: OFFICIAL_SCRIPT, args: official('--tools', 'echo', ...held, '--max-subscriptions', '1000000') },
  // The same on Redis stores (the run starts a redis-server and passes its URL in the environment).
  tesseraHeldRedis: { id: 'tesseraHeldRedis', label: 'Tessera on Redis, long keep-alive, session caps lifted', script: TESSERA_SCRIPT, args: [...held, '--sessions', '--redis'] },
  bareHeld: { id: 'bareHeld', label: 'Bare node:http, long keep-alive', script: script('bare'), args: held },
  officialSessions: { id: 'officialSessions', label: 'Official 2025-11-25 sessions (session-ful transport), echo only', script: script('official-sessions'), args: held },
};

/** The report's main columns, in order. */
export const SYSTEM_ORDER: readonly SystemId[] = ['tessera', 'official', 'official50', 'officialPlain', 'bare'];

export const SYSTEM_LABELS: Record<SystemId, string> = {
  tessera: 'Tessera',
  official: 'Official SDK at its best',
  official50: 'Official, 50 tools',
  officialPlain: 'Official, unprotected state',
  bare: 'Bare node:http',
  bareJson: 'Bare node:http + JSON',
  tesseraJwt: 'Tessera + JWT',
  tesseraJwtNoCache: 'Tessera + JWT, no token cache',
  officialJwt: 'Official + bearer middleware',
  tesseraTraced: 'Tessera + tracing',
  tesseraRedis: 'Tessera on Redis',
};

/** Systems that verify access tokens: each request carries a token minted for its URL. */
export const JWT_SERVERS: readonly ServerId[] = ['tesseraJwt', 'tesseraJwtNoCache', 'officialJwt'];

/** The servers the memory phase needs (no JWT or tracing ones). */
export const MEMORY_SERVERS: readonly ServerId[] = ['tessera', 'officialConfirm', 'officialFull', 'officialConfirmPlain', 'bare'];

/** The servers of the payloads and tasks phases only. */
export const PAYLOAD_SERVERS: readonly ServerId[] = ['tesseraPayloads', 'tesseraMany', 'officialResource', 'officialLength', 'officialMany'];

/** The servers the scale phase starts once, for its session-creation cells (its memory cells start their own per cell). */
export const SCALE_SERVERS: readonly ServerId[] = ['tesseraHeld', 'tesseraHeldRedis', 'officialSessions'];
const SCALE_ONLY: readonly ServerId[] = ['tesseraHeld', 'tesseraHeldRedis', 'officialHeld', 'bareHeld', 'officialSessions'];

/** Every HTTP server the http phase starts. */
export const STARTED_SERVERS: readonly ServerId[] = (Object.keys(HTTP_SERVERS) as ServerId[]).filter((id) => !PAYLOAD_SERVERS.includes(id) && !SCALE_ONLY.includes(id));
