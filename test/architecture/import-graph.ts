/**
 * The import graph of src/ and the layer rules of docs/architecture.md,
 * checked over it, and the boundary of the CLI package (cli/src), which may
 * use the library only through its public entry points. Every kind of
 * reference counts: `import`, `import type`, `export … from`, `import('…')`
 * in types and code, and `declare module` augmentations.
 */

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** File (relative to src/, e.g. `server/server.ts`) → the src files it references. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

export function specifiersOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text);
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      found.push(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The graph of every .ts file under `srcDir`; only references to other files of src/ are kept. */
export function importGraph(srcDir: string): ImportGraph {
  const root = resolve(srcDir);
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const targets = specifiersOf(file)
      .filter((s) => s.startsWith('.'))
      .map((s) => relative(root, resolve(dirname(file), s.replace(/\.js$/, '.ts'))))
      .filter((target) => !target.startsWith('..'));
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** Layers that are split in two by role, each half a layer of its own. */
const SPLIT_LAYERS: ReadonlySet<string> = new Set(['auth', 'skills', 'apps']);

/** The layer of a file: its first folder under src/ (`auth/client`, `auth/server`, `skills/client`, `skills/server`, `apps/server`, `apps/host` for the split ones), or `root` for src/*.ts. */
export function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 1) return 'root';
  return SPLIT_LAYERS.has(parts[0]!) && parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

export interface LayerRule {
  /** The layer the rule is about. */
  layer: string;
  /** Layers it may import (besides itself); everything else is a violation. */
  only?: readonly string[];
  /** Layers it may never import. */
  never?: readonly string[];
}

const SKILLS = ['skills', 'skills/server', 'skills/client'];
const APPS = ['apps', 'apps/server', 'apps/host'];

/** The rules of docs/architecture.md. */
export const LAYER_RULES: readonly LayerRule[] = [
  { layer: 'platform', only: [] },
  { layer: 'protocol', only: [] },
  { layer: 'schema', only: ['protocol'] },
  { layer: 'stores', only: ['protocol', 'platform'] },
  { layer: 'transport', only: ['protocol'] },
  // OpenTelemetry for both sides (the API package only): what a request is, trace context in _meta, spans and metrics.
  { layer: 'telemetry', only: ['protocol'] },
  // The client's sign-in: web-standard, and nothing of the client itself (it wraps the transport's fetch).
  { layer: 'auth/client', only: ['protocol'] },
  // The resource server: the transport seam and the caller's types (protocol), SHA-256 for DPoP (platform),
  // the redemption store and expiring map (stores). Never the server, client, eras, tasks or the CLI.
  { layer: 'auth/server', only: ['protocol', 'platform', 'stores'] },
  { layer: 'mrtr', never: ['server', 'client', 'transport', 'legacy', 'tasks', 'auth/client', 'auth/server', ...SKILLS, ...APPS] },
  { layer: 'server', never: ['legacy', 'tasks', 'client', 'auth/client', 'auth/server', ...SKILLS, ...APPS] },
  { layer: 'client', never: ['server', 'mrtr', 'legacy', 'tasks', 'schema', 'stores', 'auth/server', ...SKILLS, ...APPS] },
  { layer: 'legacy', never: [...SKILLS, ...APPS] },
  { layer: 'tasks', never: [...SKILLS, ...APPS] },
  // The Skills extension (SEP-2640), reached only through its entry points (src/skills.ts, src/skills-node.ts):
  // what both sides share (wire shapes, digests, frontmatter, skill URIs) needs only the protocol and SHA-256;
  // the server half plugs into the server's extension interface; the client half composes over the client.
  { layer: 'skills', only: ['protocol', 'platform'] },
  { layer: 'skills/server', only: ['skills', 'protocol', 'platform', 'server'] },
  { layer: 'skills/client', only: ['skills', 'protocol', 'platform', 'client'] },
  // MCP Apps (SEP-1865), reached only through its entry points (src/apps.ts, src/apps-host.ts): the names,
  // _meta shapes and CSP both sides share; the server side on the server's extension interface and
  // registration; the host side (browsers) on the client. Neither side reaches the other.
  { layer: 'apps', only: ['protocol'] },
  { layer: 'apps/server', only: ['protocol', 'schema', 'server', 'apps'] },
  { layer: 'apps/host', only: ['protocol', 'client', 'apps'] },
  // The test kit (src/testing/, entry src/testing.ts) drives the whole server (the root's McpServer) in process, with no
  // transport; nothing but its entry imports it (layerViolations).
  { layer: 'testing', only: ['root', 'server', 'mrtr', 'protocol', 'schema', 'stores', 'platform'] },
  // The entry points (src/*.ts) and McpServer compose every layer: what a user imports.
  { layer: 'root' },
  // Type declarations for packages that ship none.
  { layer: 'types', only: [] },
];

export function layerViolations(graph: ImportGraph, rules: readonly LayerRule[] = LAYER_RULES): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    const rule = rules.find((r) => r.layer === from);
    for (const target of targets) {
      const to = layerOf(target);
      if (to === from) continue;
      if (to === 'testing' && file !== 'testing.ts') problems.push(`${file} imports ${target}: nothing imports the test kit (its entry is src/testing.ts)`);
      else if (rule?.only && !rule.only.includes(to)) problems.push(`${file} imports ${target}: ${from} may import only ${rule.only.join(', ') || 'nothing else'}`);
      else if (rule?.never?.includes(to)) problems.push(`${file} imports ${target}: ${from} never imports ${to}`);
    }
  }
  return problems;
}

/** Relative references of src/ files that leave src/ (the CLI, tests, examples sit on top of the library, never under it). */
export function referencesOutside(srcDir: string): string[] {
  const root = resolve(srcDir);
  return sourceFiles(root).flatMap((file) =>
    specifiersOf(file)
      .filter((s) => s.startsWith('.') && relative(root, resolve(dirname(file), s)).startsWith('..'))
      .map((s) => `${relative(root, file)} imports ${s}: nothing under src/ reaches outside it`),
  );
}

export interface PackageBoundary {
  /** The library's name (`tessera-mcp`) and its public entry points, as in its package.json `exports` (`.`, `./client`, …). */
  library: string;
  entries: readonly string[];
  /** The packages the CLI declares (its package.json dependencies and devDependencies). */
  dependencies: readonly string[];
}

/**
 * What a file of the CLI package references that a separately installed
 * package could not: anything relative outside `dir`, a path into the
 * library (`tessera-mcp/dist/…`) or an entry it does not export, a package
 * the CLI does not declare. Node's builtins are allowed (the CLI runs on Node).
 */
export function packageViolations(dir: string, boundary: PackageBoundary): string[] {
  const root = resolve(dir);
  const entries = new Set(boundary.entries.map((e) => (e === '.' ? boundary.library : `${boundary.library}/${e.replace(/^\.\//, '')}`)));
  const problems: string[] = [];
  for (const file of sourceFiles(root)) {
    for (const specifier of specifiersOf(file)) {
      const where = `${relative(root, file)} imports ${specifier}`;
      if (specifier.startsWith('.')) {
        if (relative(root, resolve(dirname(file), specifier)).startsWith('..')) problems.push(`${where}: outside its package`);
      } else if (specifier.startsWith('node:')) {
        continue;
      } else if (specifier === boundary.library || specifier.startsWith(`${boundary.library}/`)) {
        if (!entries.has(specifier)) problems.push(`${where}: not a public entry point of ${boundary.library}`);
      } else {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
        if (!boundary.dependencies.includes(name)) problems.push(`${where}: ${name} is not a dependency of the package`);
      }
    }
  }
  return problems;
}

/** Every import cycle, each as the list of files around it (found by Tarjan's strongly connected components). */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfLoop = (graph.get(file) ?? []).includes(file);
    if (component.length > 1 || selfLoop) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return cycles;
}
