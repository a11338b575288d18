/** The systems under test and the server process each one runs in. */

import { fileURLToPath } from 'node:url';
import { OFFICIAL_RESPONSE_MODE } from './config.js';

export type SystemId = 'tessera' | 'official' | 'officialCodec' | 'officialEchoOnly' | 'bare';

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
};

export const SYSTEM_ORDER: readonly SystemId[] = ['tessera', 'official', 'officialCodec', 'officialEchoOnly', 'bare'];
