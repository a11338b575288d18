/**
 * Reads a V8 .cpuprofile (as written by `node --cpu-prof`) and sums self
 * time by function and by source file, to show where a server spends its
 * CPU. Self time of a function = the sampling intervals in which it was the
 * innermost frame.
 */

import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  /** Milliseconds. */
  self: number;
  /** Share of all sampled time, 0..1. */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  byFunction: SelfTime[];
  byFile: SelfTime[];
  /** Self time by layer (LAYERS), shares of the busy time (all but idle). */
  byLayer: SelfTime[];
  /** Self plus callees, for functions whose file matches `ownCode` (recursion counted once per frame). */
  ownInclusive: SelfTime[];
}

/** Shortens a script URL to what identifies it: the package, or the path inside the repository. */
export function shortLocation(url: string): string {
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}

/** Native frames that are the kernel's socket and pipe I/O (the write and read syscalls node:net makes). */
const SYSCALL_FRAMES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString', 'onStreamRead', 'readStart', 'readStop', 'close', 'shutdown']);

/**
 * Which layer a frame's self time belongs to: what the server's own code
 * costs against what any node:http server pays (Node's runtime, the
 * syscalls) and what the garbage collector takes. JSON.parse and
 * JSON.stringify are builtins: their time is the self time of the caller
 * (in Tessera, jsonrpc.js).
 */
export function layerOf(frame: CallFrame, ownCode: RegExp): string {
  const location = shortLocation(frame.url);
  if (frame.url === '') {
    if (frame.functionName === '(idle)') return 'idle';
    if (frame.functionName === '(garbage collector)') return 'garbage collector';
    if (SYSCALL_FRAMES.has(frame.functionName)) return 'socket I/O (syscalls)';
    if (frame.functionName === '(program)') return 'V8 and native code outside JavaScript';
    return 'Node runtime (node:*, natives)';
  }
  if (ownCode.test(location)) return 'the server\'s own code';
  if (frame.url.startsWith('node:')) return 'Node runtime (node:*, natives)';
  if (frame.url.includes('/node_modules/')) return 'dependencies (node_modules)';
  return 'other scripts';
}

function sorted(totals: Map<string, number>, totalMs: number, limit: number): SelfTime[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, self]) => ({ name, self, share: self / totalMs }));
}

export function summarizeCpuProfile(path: string, limit = 40, ownCode = /^dist\/src\//): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfById = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; charge it to the frame sampled at i (V8's convention in DevTools).
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfById.set(id, (selfById.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  // Frames under Node's module loader are start-up (loading and compiling modules), whatever they are.
  const loading = new Set<number>();
  const markLoading = (id: number, inside: boolean): void => {
    const node = byId.get(id)!;
    const now = inside || node.callFrame.url.startsWith('node:internal/modules/');
    if (now) loading.add(id);
    for (const child of node.children ?? []) markLoading(child, now);
  };
  markLoading(profile.nodes[0]!.id, false);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const byLayer = new Map<string, number>();
  let totalMs = 0;
  for (const [id, ms] of selfById) {
    const frame = byId.get(id)!.callFrame;
    const location = shortLocation(frame.url);
    const name = `${frame.functionName || '(anonymous)'} ${location}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const file = frame.url ? location : frame.functionName; // (garbage collector), (program), (idle)…
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
    const layer = loading.has(id) ? 'start-up (loading modules)' : layerOf(frame, ownCode);
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + ms);
    totalMs += ms;
  }
  // Inclusive time: a node's self time plus its subtree's.
  const inclusiveById = new Map<number, number>();
  const inclusive = (id: number): number => {
    const cached = inclusiveById.get(id);
    if (cached !== undefined) return cached;
    const node = byId.get(id)!;
    const total = (selfById.get(id) ?? 0) + (node.children ?? []).reduce((sum, child) => sum + inclusive(child), 0);
    inclusiveById.set(id, total);
    return total;
  };
  // Sum per function over its frames, skipping frames nested under the same function (so recursion is not counted twice).
  const ownTotals = new Map<string, number>();
  const walk = (id: number, open: Set<string>): void => {
    const node = byId.get(id)!;
    const location = shortLocation(node.callFrame.url);
    const key = `${node.callFrame.functionName || '(anonymous)'} ${location}:${node.callFrame.lineNumber + 1}`;
    const own = ownCode.test(location) && !open.has(key);
    if (own) ownTotals.set(key, (ownTotals.get(key) ?? 0) + inclusive(id));
    if (own) open.add(key);
    for (const child of node.children ?? []) walk(child, open);
    if (own) open.delete(key);
  };
  walk(profile.nodes[0]!.id, new Set());
  const busyMs = totalMs - (byLayer.get('idle') ?? 0);
  byLayer.delete('idle');
  return {
    totalMs,
    byLayer: sorted(byLayer, busyMs, limit),
    byFunction: sorted(byFunction, totalMs, limit),
    byFile: sorted(byFile, totalMs, limit),
    ownInclusive: sorted(ownTotals, totalMs, limit),
  };
}

/** The units (requests, exchanges) served while the profile ran, for a per-unit column in the layer table. */
export interface ProfiledUnits {
  count: number;
  label: string;
}

export function renderProfileSummary(summary: ProfileSummary, title: string, units?: ProfiledUnits): string {
  const perUnit = (ms: number): string => (units && units.count > 0 ? ` ${((ms * 1000) / units.count).toFixed(1)} |` : '');
  const rows = (items: SelfTime[]): string[] => items.map((t) => `| ${t.self.toFixed(0)} | ${(t.share * 100).toFixed(1)}% | \`${t.name}\` |`);
  return [
    `## ${title}`,
    '',
    `Sampled time: ${(summary.totalMs / 1000).toFixed(1)} s`,
    '',
    '### Busy time by layer (idle left out)',
    '',
    ...(units ? [`${units.count} ${units.label}s served (warm-up and load); start-up is not theirs, the per-${units.label} figure of the other layers is their share.`, ''] : []),
    `| self ms | share of busy | layer |${units ? ` µs per ${units.label} |` : ''}`,
    `| ---: | ---: | --- |${units ? ' ---: |' : ''}`,
    ...summary.byLayer.map((t) => `| ${t.self.toFixed(0)} | ${(t.share * 100).toFixed(1)}% | ${t.name} |${t.name.startsWith('start-up') ? (units ? ' – |' : '') : perUnit(t.self)}`),
    '',
    '### Self time by function',
    '',
    '| self ms | share | function and location |',
    '| ---: | ---: | --- |',
    ...rows(summary.byFunction),
    '',
    '### Self time by file',
    '',
    '| self ms | share | file |',
    '| ---: | ---: | --- |',
    ...rows(summary.byFile),
    '',
    '### Inclusive time of the server\'s own functions',
    '',
    '| total ms | share | function and location |',
    '| ---: | ---: | --- |',
    ...rows(summary.ownInclusive),
  ].join('\n');
}
