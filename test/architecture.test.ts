/**
 * The layer rules of docs/architecture.md over the real import graph of src/,
 * the CLI package's boundary (only the library's public entry points), and
 * proof that the checkers catch each kind of violation they exist for.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { literalAccessors, literalAccessorsIn } from './architecture/literal-accessors.js';
import { importCycles, importGraph, LAYER_RULES, layerOf, layerViolations, packageViolations, referencesOutside, type ImportGraph, type PackageBoundary } from './architecture/import-graph.js';
import { documentedFiles } from './architecture/doc-files.js';

const src = fileURLToPath(new URL('../src', import.meta.url));
const cliSrc = fileURLToPath(new URL('../cli/src', import.meta.url));

interface Manifest {
  name: string;
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const manifest = (path: string): Manifest => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Manifest;
const library = manifest('../package.json');
const cli = manifest('../cli/package.json');
const cliBoundary: PackageBoundary = {
  library: library.name,
  entries: Object.keys(library.exports).filter((e) => e !== './package.json'),
  dependencies: [...Object.keys(cli.dependencies ?? {}), ...Object.keys(cli.devDependencies ?? {})],
};

describe('the layers of src/', () => {
  const graph = importGraph(src);

  it('reads the whole tree (every layer has files, and imports were found)', () => {
    const layers = new Set([...graph.keys()].map((f) => f.split('/')[0]));
    for (const layer of ['protocol', 'transport', 'mrtr', 'server', 'client', 'legacy', 'tasks', 'schema', 'stores', 'platform']) expect(layers).toContain(layer);
    for (const layer of ['auth/client', 'auth/server', 'skills', 'skills/client', 'skills/server', 'apps', 'apps/server', 'apps/host']) expect([...graph.keys()].map(layerOf)).toContain(layer);
    expect([...graph.values()].reduce((n, targets) => n + targets.length, 0)).toBeGreaterThan(100);
  });

  it('has no import cycles, type-only imports included', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('imports only downwards', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('never reaches outside src/ (the CLI, tests and examples sit on top of the library)', () => {
    expect(referencesOutside(src)).toEqual([]);
  });

  it('gives every layer a rule', () => {
    const ruled = new Set(LAYER_RULES.map((r) => r.layer));
    expect([...new Set([...graph.keys()].map(layerOf))].filter((layer) => !ruled.has(layer)).sort()).toEqual([]);
  });
});

describe('docs/architecture.md', () => {
  const doc = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8');
  const files = new Set(importGraph(src).keys());

  it('lists every file under src/ with its concern, and no file that is not there', () => {
    const { listed, unknown } = documentedFiles(doc, files);
    expect([...files].filter((f) => !listed.has(f)).sort()).toEqual([]);
    expect(unknown).toEqual([]);
  });
});

describe('object literals with accessors in src/ (V8 makes them in old space, which keeps what they point to alive through scavenges)', () => {
  it('has none', () => {
    expect(literalAccessors(src)).toEqual([]);
  });

  it('finds a getter or setter in a literal, and not one on a class', () => {
    const text = ['const view = { method: "POST", get aborted() { return false; } };', 'const box = { set value(v) {} };', 'class View { get aborted() { return false; } }'].join('\n');
    expect(literalAccessorsIn('x.ts', text)).toEqual(['x.ts:1 aborted', 'x.ts:2 value']);
  });
});

describe('the CLI package (cli/src)', () => {
  it('uses the library only through its public entry points, and only the packages it declares', () => {
    expect(packageViolations(cliSrc, cliBoundary)).toEqual([]);
  });

  it('does use the library (the check sees its imports)', () => {
    const graph = importGraph(cliSrc);
    expect(graph.size).toBeGreaterThan(10);
    expect(cli.dependencies?.[library.name]).toBe((JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version);
  });
});

describe('the checker', () => {
  const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

  it('finds a cycle of three files, and a file that imports itself', () => {
    const graph = graphOf({
      'server/context.ts': ['tasks/task-work.ts'],
      'tasks/task-work.ts': ['server/tools.ts'],
      'server/tools.ts': ['server/context.ts'],
      'server/self.ts': ['server/self.ts'],
      'server/leaf.ts': [],
    });
    expect(importCycles(graph)).toEqual([['server/context.ts', 'server/tools.ts', 'tasks/task-work.ts'], ['server/self.ts']]);
  });

  it.each([
    ['mrtr/questions.ts', 'server/schema.ts', 'mrtr never imports server'],
    ['client/result-checks.ts', 'mrtr/capabilities.ts', 'client never imports mrtr'],
    ['server/server.ts', 'legacy/era.ts', 'server never imports legacy'],
    ['server/tools.ts', 'tasks/task-work.ts', 'server never imports tasks'],
    ['client/client.ts', 'server/server.ts', 'client never imports server'],
    ['protocol/types.ts', 'server/tools.ts', 'protocol may import only nothing else'],
    ['transport/http/core.ts', 'server/server.ts', 'transport may import only protocol'],
    ['auth/client/oauth-provider.ts', 'auth/server/protected-resource.ts', 'auth/client may import only protocol'],
    ['auth/server/request-guard.ts', 'server/core.ts', 'auth/server may import only protocol, platform, stores'],
    ['auth/server/request-guard.ts', 'client/client.ts', 'auth/server may import only protocol, platform, stores'],
    ['server/tools.ts', 'auth/server/scopes.ts', 'server never imports auth/server'],
    ['client/client.ts', 'auth/server/scopes.ts', 'client never imports auth/server'],
    ['transport/http/core.ts', 'auth/server/request-guard.ts', 'transport may import only protocol'],
    ['apps/server/register-app.ts', 'apps/host/app-view.ts', 'apps/server may import only protocol, schema, server, apps'],
    ['apps/host/app-view.ts', 'server/tools.ts', 'apps/host may import only protocol, client, apps'],
    ['apps/csp.ts', 'server/tools.ts', 'apps may import only protocol'],
    ['server/core.ts', 'apps/server/extension.ts', 'server never imports apps/server'],
    ['server/core.ts', 'skills/server/skills-extension.ts', 'server never imports skills/server'],
    ['client/client.ts', 'skills/client/skills-client.ts', 'client never imports skills/client'],
    ['skills/server/skill-library.ts', 'client/client.ts', 'skills/server may import only skills, protocol, platform, server'],
    ['skills/client/skills-client.ts', 'server/core.ts', 'skills/client may import only skills, protocol, platform, client'],
    ['skills/frontmatter.ts', 'server/core.ts', 'skills may import only protocol, platform'],
  ])('flags %s importing %s (%s)', (from, to, rule) => {
    const problems = layerViolations(graphOf({ [from]: [to], [to]: [] }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(rule);
  });

  it('finds a file the doc leaves out, and a name that matches no file', () => {
    const doc = ['## server/', '', '| File | Concern |', '| --- | --- |', '| `core.ts`, `gone.ts` | The core. |', '', '## Entry points (src/)', '', '| `index.ts` | The root. |'].join('\n');
    const { listed, unknown } = documentedFiles(doc, new Set(['server/core.ts', 'server/tools.ts', 'index.ts']));
    expect([...listed].sort()).toEqual(['index.ts', 'server/core.ts']);
    expect(unknown).toEqual(['gone.ts (under server/)']);
  });

  it('finds a layer without a rule', () => {
    const ruled = new Set(LAYER_RULES.map((r) => r.layer));
    expect(ruled.has(layerOf('nowhere/file.ts'))).toBe(false);
  });

  it('tells the two halves of auth and of skills apart, and everything else by its first folder', () => {
    expect(layerOf('auth/server/scopes.ts')).toBe('auth/server');
    expect(layerOf('auth/client/dpop.ts')).toBe('auth/client');
    expect(layerOf('skills/server/skill-library.ts')).toBe('skills/server');
    expect(layerOf('skills/wire.ts')).toBe('skills');
    expect(layerOf('apps/host/app-view.ts')).toBe('apps/host');
    expect(layerOf('apps/csp.ts')).toBe('apps');
    expect(layerOf('transport/http/core.ts')).toBe('transport');
    expect(layerOf('mcp-server.ts')).toBe('root');
  });

  it('lets a layer import its own files and what lies below it', () => {
    expect(layerViolations(graphOf({ 'server/server.ts': ['server/tools.ts', 'mrtr/replay.ts', 'protocol/types.ts'] }))).toEqual([]);
  });

  it('flags a package file reaching into the library, past its entries, or into an undeclared package', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-boundary-'));
    try {
      mkdirSync(join(dir, 'src'));
      writeFileSync(
        join(dir, 'src', 'a.ts'),
        [
          "import { Client } from 'tessera-mcp/client';",
          "import { isObject } from '../../src/protocol/guards.js';",
          "import type { Tool } from 'tessera-mcp/dist/src/protocol/types.js';",
          "import { Command } from 'commander';",
          "import pc from 'left-pad';",
          "import { readFile } from 'node:fs/promises';",
          "import { b } from './b.js';",
        ].join('\n'),
      );
      writeFileSync(join(dir, 'src', 'b.ts'), "import { McpServer } from 'tessera-mcp';\nexport const b = 1;");
      writeFileSync(join(dir, 'outside.ts'), "import '../src/a.js';");
      const problems = packageViolations(join(dir, 'src'), { library: 'tessera-mcp', entries: ['.', './client'], dependencies: ['commander'] });
      expect(problems).toEqual([
        'a.ts imports ../../src/protocol/guards.js: outside its package',
        'a.ts imports tessera-mcp/dist/src/protocol/types.js: not a public entry point of tessera-mcp',
        'a.ts imports left-pad: left-pad is not a dependency of the package',
      ]);
      expect(referencesOutside(join(dir, 'src'))).toEqual(['a.ts imports ../../src/protocol/guards.js: nothing under src/ reaches outside it']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
