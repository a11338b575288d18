#!/usr/bin/env node
/** The `tessera` command. */

import { generateStateKey } from '../mrtr/keyring.js';

const USAGE = `Usage: tessera <command>

Commands:
  keygen [id]   Print a new requestState key ("id:base64url"). Give every instance
                the same keys, e.g. TESSERA_STATE_KEYS="<new>,<old>" (first seals).`;

function main(argv: string[]): number {
  const [command, ...rest] = argv;
  switch (command) {
    case 'keygen':
      console.log(generateStateKey(rest[0]));
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(`tessera: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(`tessera: ${(error as Error).message}`);
  process.exitCode = 1;
}
