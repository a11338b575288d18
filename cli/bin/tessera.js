#!/usr/bin/env node
// The `tessera` command. This file is committed rather than built so that npm links the bin when it
// installs the package, in a fresh clone too (npm skips a bin whose file does not exist yet); the
// command itself is the build output it loads.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('tessera: the command is not built yet; in the Tessera repository, run `npm run build` (npm start and npm test build it too).\n');
  process.exit(1);
}
await import(main.href);
