// The build starts from an empty dist/ (and cli/dist/), so nothing removed from the sources lingers in a packed tarball.
import { rmSync } from 'node:fs';

for (const dir of process.argv.slice(2)) rmSync(new URL(`../${dir}`, import.meta.url), { recursive: true, force: true });
