/**
 * One ES module bundle of a file, as a user's bundler would make it for a
 * Worker or a browser: Vite (a devDependency already; it bundles with
 * Rolldown) in library mode, every dependency inlined, resolved with the
 * web conditions (`browser`, `worker`), no minifying so failures read well.
 * `tessera-mcp` and `tessera-mcp/<entry>` resolve to src/ as in
 * vitest.config.ts, so the bundle is always the code under test.
 */

import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { build, type InlineConfig, type Rollup } from 'vite';
import { ROOT } from './child-processes.js';

export interface Bundle {
  file: string;
  code: string;
  /** What the bundler reported (e.g. a `node:*` module externalized for the browser). */
  warnings: string[];
  /** The modules the bundle still imports (statically or dynamically), as the bundler recorded them. */
  imports: string[];
}

const alias = [
  { find: /^tessera-mcp$/, replacement: `${ROOT}src/index.ts` },
  { find: /^tessera-mcp\/(.+)$/, replacement: `${ROOT}src/$1.ts` },
];

/** Runs Vite's build and returns the one JavaScript chunk it made, with what it reported. */
async function buildOne(config: InlineConfig, outDir: string): Promise<Bundle> {
  const warnings: string[] = [];
  const output = await build({
    ...config,
    configFile: false,
    logLevel: 'silent',
    publicDir: false,
    resolve: { alias, conditions: ['worker', 'browser', 'module', 'import', 'default'] },
    build: {
      ...config.build,
      outDir,
      minify: false,
      sourcemap: false,
      target: 'es2022',
      copyPublicDir: false,
      reportCompressedSize: false,
      rolldownOptions: {
        onwarn(warning: Rollup.RollupLog) {
          warnings.push(warning.message);
        },
      },
    },
  });
  const outputs = (Array.isArray(output) ? output : [output]) as Rollup.RollupOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((c): c is Rollup.OutputChunk => c.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`expected one chunk, got ${chunks.map((c) => c.fileName).join(', ')}`);
  const file = `${outDir}/${chunks[0]!.fileName}`;
  return { file, code: readFileSync(file, 'utf8'), warnings, imports: [...chunks[0]!.imports, ...chunks[0]!.dynamicImports] };
}

/** A module (a Worker) bundled into `outFile` (relative to the repository). */
export function bundle(entry: string, outFile: string): Promise<Bundle> {
  return buildOne(
    { root: ROOT, build: { lib: { entry: `${ROOT}${entry}`, formats: ['es'], fileName: () => basename(outFile) }, emptyOutDir: false } },
    `${ROOT}${dirname(outFile)}`,
  );
}

/** A page (its index.html and the module it loads) built as `npx vite build <dir>` would, into `<dir>/dist/` (or `outDir`, relative to the repository). */
export function bundlePage(dir: string, outDir = `${dir}/dist`): Promise<Bundle> {
  return buildOne({ root: `${ROOT}${dir}`, base: './', build: { emptyOutDir: true } }, `${ROOT}${outDir}`);
}
