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
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let totalMs = 0;
  for (const [id, ms] of selfById) {
    const frame = byId.get(id)!.callFrame;
    const location = shortLocation(frame.url);
    const name = `${frame.functionName || '(anonymous)'} ${location}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const file = frame.url ? location : frame.functionName; // (garbage collector), (program), (idle)…
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
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
  return {
    totalMs,
    byFunction: sorted(byFunction, totalMs, limit),
    byFile: sorted(byFile, totalMs, limit),
    ownInclusive: sorted(ownTotals, totalMs, limit),
  };
}

export function renderProfileSummary(summary: ProfileSummary, title: string): string {
  const rows = (items: SelfTime[]): string[] => items.map((t) => `| ${t.self.toFixed(0)} | ${(t.share * 100).toFixed(1)}% | \`${t.name}\` |`);
  return [
    `## ${title}`,
    '',
    `Sampled time: ${(summary.totalMs / 1000).toFixed(1)} s`,
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
    "### Inclusive time of Tessera's own functions (dist/src)",
    '',
    '| total ms | share | function and location |',
    '| ---: | ---: | --- |',
    ...rows(summary.ownInclusive),
  ].join('\n');
}
