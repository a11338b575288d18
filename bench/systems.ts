/** The systems under test and the server process each one runs in. */

import { fileURLToPath } from 'node:url';
import { OFFICIAL_RESPONSE_MODE } from './config.js';

export type SystemId = 'tessera' | 'official' | 'officialCodec' | 'officialEchoOnly' | 'bare' | 'tesseraJwt' | 'tesseraJwtNoCache' | 'officialJwt' | 'tesseraTraced';

export interface HttpSystem {
  id: SystemId;
  label: string;
  script: string;
  args: string[];
}

const script = (name: string): string => fileURLToPath(new URL(`./servers/${name}.js`, import.meta.url));

export const TESSERA_SCRIPT = script('tessera');
export const OFFICIAL_SCRIPT = script('official');

export const HTTP_SYSTEMS: Record<SystemId, HttpSystem> = {
  tessera: { id: 'tessera', label: 'Tessera', script: TESSERA_SCRIPT, args: [] },
  official: { id: 'official', label: 'Official SDK', script: OFFICIAL_SCRIPT, args: ['--state', 'plain', '--response-mode', OFFICIAL_RESPONSE_MODE] },
  officialCodec: {
    id: 'officialCodec',
    label: 'Official + codec',
    script: OFFICIAL_SCRIPT,
    args: ['--state', 'codec', '--response-mode', OFFICIAL_RESPONSE_MODE],
  },
  officialEchoOnly: {
    id: 'officialEchoOnly',
    label: 'Official, echo only',
    script: OFFICIAL_SCRIPT,
    args: ['--echo-only', '--response-mode', OFFICIAL_RESPONSE_MODE],
  },
  bare: { id: 'bare', label: 'Bare node:http', script: script('bare'), args: [] },
  // The JWT rows: both servers as protected resources of the load generator's token issuer.
  tesseraJwt: { id: 'tesseraJwt', label: 'Tessera + JWT', script: TESSERA_SCRIPT, args: ['--auth'] },
  tesseraJwtNoCache: { id: 'tesseraJwtNoCache', label: 'Tessera + JWT, no token cache', script: TESSERA_SCRIPT, args: ['--auth-no-cache'] },
  officialJwt: { id: 'officialJwt', label: 'Official + bearer middleware', script: OFFICIAL_SCRIPT, args: ['--auth', '--state', 'plain', '--response-mode', OFFICIAL_RESPONSE_MODE] },
  // The tracing overhead rows: the same server with the OpenTelemetry SDK installed (issue 14).
  tesseraTraced: { id: 'tesseraTraced', label: 'Tessera + tracing', script: TESSERA_SCRIPT, args: ['--telemetry'] },
};

/** The report's columns, in order. */
export const SYSTEM_ORDER: readonly SystemId[] = ['tessera', 'official', 'officialCodec', 'officialEchoOnly', 'bare'];

/** Systems that verify access tokens: each request carries a token minted for its URL. */
export const JWT_SYSTEMS: readonly SystemId[] = ['tesseraJwt', 'tesseraJwtNoCache', 'officialJwt'];

/** Every HTTP server the run starts. */
export const STARTED_SYSTEMS: readonly SystemId[] = [...SYSTEM_ORDER, ...JWT_SYSTEMS, 'tesseraTraced'];
