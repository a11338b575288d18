/**
 * The package's entry points (package.json "exports"): each built, each
 * matching its source file, none reaching a `node:*` module unless it is a
 * Node entry, every export listed in a reviewed snapshot (test/package/api/),
 * and every type a public signature uses exported by some entry.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compiledFile, ROOT } from '../helpers/child-processes.js';
import { sourceFiles, specifiersOf } from '../architecture/import-graph.js';
import { dirname, relative, resolve } from 'node:path';
import { publicApi } from './public-api.js';

interface Manifest {
  name: string;
  exports: Record<string, string | { types: string; default: string }>;
}
const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as Manifest;
const src = fileURLToPath(new URL('../../src/', import.meta.url));

/** Entry name (`index`, `client`, `skills-node` for `./skills/node`, …) → its export condition map. */
const entries = Object.fromEntries(
  Object.entries(manifest.exports)
    .filter(([key]) => key !== './package.json')
    .map(([key, target]) => [key === '.' ? 'index' : key.slice(2).replaceAll('/', '-'), target as { types: string; default: string }]),
);

/** The entries that must run anywhere: no `node:*` module reachable, in code or in types. */
const PORTABLE = ['index', 'client', 'protocol', 'fetch', 'hono', 'skills', 'apps', 'apps-host'];

/** Every module specifier reachable from `file` through src/'s own files (relative imports), with the file that names it; `files` gets those files. */
function reachableExternals(file: string, files = new Set<string>()): Map<string, string> {
  const externals = new Map<string, string>();
  const visit = (path: string): void => {
    if (files.has(relative(src, path))) return;
    files.add(relative(src, path));
    for (const specifier of specifiersOf(path)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(path), specifier.replace(/\.js$/, '.ts')));
      else if (!externals.has(specifier)) externals.set(specifier, relative(src, path));
    }
  };
  visit(file);
  return externals;
}

describe('the entry points', () => {
  it('are the ones the docs describe', () => {
    expect(Object.keys(entries).sort()).toEqual(['apps', 'apps-host', 'client', 'express', 'fastify', 'fetch', 'hono', 'index', 'node', 'protocol', 'redis', 'skills', 'skills-node', 'stdio', 'testing']);
  });

  it.each(Object.entries(entries))('%s: types and code from src/<entry>.ts, built', (name, target) => {
    expect(target).toEqual({ types: `./dist/src/${name}.d.ts`, default: `./dist/src/${name}.js` });
    expect(sourceFiles(src).map((f) => relative(src, f))).toContain(`${name}.ts`);
  });

  it.each(PORTABLE)('%s reaches no node:* module (code or types), so it runs in browsers and Workers', (name) => {
    const nodeModules = [...reachableExternals(`${src}${name}.ts`)].filter(([specifier]) => specifier.startsWith('node:')).map(([s, by]) => `${s} (${by})`);
    expect(nodeModules).toEqual([]);
  });

  it('the check sees node:* where it is (the Node entries)', () => {
    expect([...reachableExternals(`${src}node.ts`).keys()]).toContain('node:http');
    expect([...reachableExternals(`${src}stdio.ts`).keys()]).toContain('node:child_process');
    expect([...reachableExternals(`${src}skills-node.ts`).keys()]).toContain('node:fs/promises');
  });

  it.each(['index', 'client', 'protocol', 'node', 'fetch', 'stdio'])('%s does not load the Skills extension or its YAML parser (a server or client without skills pays nothing)', (name) => {
    const files = new Set<string>();
    expect([...reachableExternals(`${src}${name}.ts`, files).keys()]).not.toContain('yaml');
    expect([...files].filter((file) => file.startsWith('skills/'))).toEqual([]);
  });

  it('the check sees the YAML parser where it is (the skills entry)', () => {
    expect(reachableExternals(`${src}skills.ts`).get('yaml')).toBe('skills/frontmatter.ts');
  });
});

describe('the public API', () => {
  const distSrc = `${ROOT}dist/src`;
  const api = publicApi(
    Object.fromEntries(Object.keys(entries).map((name) => [name, compiledFile(`src/${name}.d.ts`, [`${src}${name}.ts`])])),
    distSrc,
  );

  it.each(Object.keys(entries))('%s exports what its snapshot lists (review the diff when it changes)', async (name) => {
    await expect(api[name]!.names.join('\n') + '\n').toMatchFileSnapshot(`./api/${name}.txt`);
  });

  it.each(Object.keys(entries))('%s: every type its signatures use is exported by some entry', (name) => {
    expect(api[name]!.unexported).toEqual([]);
  });

  it('the check finds a type a signature uses that no entry exports', () => {
    const fixture = publicApi({ index: fileURLToPath(new URL('./fixtures/declarations/index.d.ts', import.meta.url)) }, fileURLToPath(new URL('./fixtures/declarations', import.meta.url)));
    expect(fixture.index!.unexported).toEqual(['Hidden (declarations/hidden.d.ts, used by index.visible)']);
  });
});
