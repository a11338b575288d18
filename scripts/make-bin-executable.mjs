// tsc writes files without the exec bit; the `tessera` bin (cli/package.json "bin") needs it to run as a command.
import { chmodSync } from 'node:fs';

chmodSync(new URL('../cli/dist/main.js', import.meta.url), 0o755);
