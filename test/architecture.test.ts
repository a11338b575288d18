/**
 * The layer rules of docs/architecture.md over the real import graph of src/,
 * and proof that the checker catches each kind of violation it exists for.
 */

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, layerOf, layerViolations, type ImportGraph } from './architecture/import-graph.js';

const src = fileURLToPath(new URL('../src', import.meta.url));

describe('the layers of src/', () => {
  const graph = importGraph(src);

  it('reads the whole tree (every layer has files, and imports were found)', () => {
    const layers = new Set([...graph.keys()].map((f) => f.split('/')[0]));
    for (const layer of ['protocol', 'transport', 'mrtr', 'server', 'client', 'legacy', 'tasks', 'cli']) expect(layers).toContain(layer);
    for (const layer of ['auth/client', 'auth/server']) expect([...graph.keys()].map(layerOf)).toContain(layer);
    expect([...graph.values()].reduce((n, targets) => n + targets.length, 0)).toBeGreaterThan(100);
  });

  it('has no import cycles, type-only imports included', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('imports only downwards', () => {
    expect(layerViolations(graph)).toEqual([]);
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
    ['tasks/tasks.ts', 'cli/program.ts', 'nothing but cli imports cli'],
    ['auth/client/oauth-provider.ts', 'auth/server/protected-resource.ts', 'auth/client may import only protocol'],
    ['auth/server/request-guard.ts', 'server/core.ts', 'auth/server may import only protocol, platform, stores'],
    ['auth/server/request-guard.ts', 'client/client.ts', 'auth/server may import only protocol, platform, stores'],
    ['server/tools.ts', 'auth/server/scopes.ts', 'server never imports auth/server'],
    ['client/client.ts', 'auth/server/scopes.ts', 'client never imports auth/server'],
    ['transport/http/core.ts', 'auth/server/request-guard.ts', 'transport may import only protocol'],
  ])('flags %s importing %s (%s)', (from, to, rule) => {
    const problems = layerViolations(graphOf({ [from]: [to], [to]: [] }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(rule);
  });

  it('tells the two halves of auth apart, and everything else by its first folder', () => {
    expect(layerOf('auth/server/scopes.ts')).toBe('auth/server');
    expect(layerOf('auth/client/dpop.ts')).toBe('auth/client');
    expect(layerOf('transport/http/core.ts')).toBe('transport');
    expect(layerOf('mcp-server.ts')).toBe('root');
  });

  it('lets a layer import its own files and what lies below it', () => {
    expect(layerViolations(graphOf({ 'server/server.ts': ['server/tools.ts', 'mrtr/replay.ts', 'protocol/types.ts'], 'cli/main.ts': ['client/client.ts'] }))).toEqual([]);
  });
});
