/**
 * Seal and open of one requestState timed apart (µs per seal, µs per open),
 * in one process, optionally against another build of the sealer so a change
 * is measured before and after in the same run:
 *
 *   npm run build && node dist/bench/seal-split.js [--n 20000] [--rounds 5] [--bytes 200] [--crypto platform|webcrypto] [--against DIR]
 *
 * DIR is the `dist/src` of another build (e.g. of main); the two are
 * alternated round by round, and each round starts with a warm-up. The state
 * is the sealing bench's (workloads/state-seal-child.ts): the wizard's ledger
 * after round 2 padded to `bytes` of JSON, under a store generation, so a
 * 200-byte ledger is a 376-byte token. Prints, per build, the medians and the
 * spread (min–max) of CPU time and wall time per operation.
 */

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ledgerOfSize } from './workloads/sized-ledger.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    bytes: { type: 'string', default: '200' },
    crypto: { type: 'string', default: 'platform' },
    against: { type: 'string' },
  },
});
const N = Number(values.n);
const ROUNDS = Number(values.rounds);
const WARMUP = Math.min(N, 5000);

interface Claims {
  method: string;
  target: string;
  args: string;
  principal: string;
  audience: string;
}
interface Sealer {
  seal(claims: Claims, data: unknown, generation?: string): Promise<string>;
  open(token: unknown, claims: Claims): Promise<{ ok: boolean; state?: { data: unknown }; reason?: string }>;
}
interface Build {
  label: string;
  sealer: Sealer;
}

const here = new URL('../src/', import.meta.url);

async function load(label: string, root: URL, keyText: string): Promise<Build> {
  const sealed = (await import(new URL('mrtr/sealed-state.js', root).href)) as { StateSealer: new (o: object) => Sealer };
  const keyring = (await import(new URL('mrtr/keyring.js', root).href)) as { KeyRing: { parse(t: string): object } };
  const crypto =
    values.crypto === 'webcrypto'
      ? ((await import(new URL('platform/web-crypto.js', root).href)) as { webCryptoPort(): object }).webCryptoPort()
      : ((await import(new URL('platform/crypto.js', root).href)) as { platformCrypto(): object }).platformCrypto();
  return { label, sealer: new sealed.StateSealer({ keys: keyring.KeyRing.parse(keyText), crypto }) };
}

const { digestOf } = await import(new URL('mrtr/digest.js', here).href);
const { generateStateKey } = await import(new URL('mrtr/keyring.js', here).href);
const { newGeneration } = await import(new URL('stores/redemption-store.js', here).href);


// One key for both builds: each opens what the other sealed (checked below).
const keyText: string = generateStateKey('k1');
const builds: Build[] = [await load('this build', here, keyText)];
if (values.against) builds.unshift(await load(`against ${values.against}`, pathToFileURL(resolve(values.against) + '/'), keyText));

const ledger = await ledgerOfSize(Number(values.bytes), digestOf);
const claims: Claims = { method: 'tools/call', target: 'wizard', args: await digestOf({ order: 'order-7' }), principal: '', audience: 'tessera-bench' };
const generation: string = newGeneration();

for (const a of builds) {
  for (const b of builds) {
    const opened = await b.sealer.open(await a.sealer.seal(claims, ledger, generation), claims);
    if (!opened.ok) throw new Error(`${b.label} does not open what ${a.label} sealed: ${opened.reason}`);
  }
}

const tokens: string[] = new Array<string>(N);

/** µs per operation, wall clock and this process's CPU time (less moved by other processes on a shared machine). */
interface Timing {
  wall: number;
  cpu: number;
}

function timer(count: number): () => Timing {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { wall: ((performance.now() - wall) * 1000) / count, cpu: (used.user + used.system) / count };
  };
}

async function measure(sealer: Sealer, count: number): Promise<{ seal: Timing; open: Timing; tokenBytes: number }> {
  let done = timer(count);
  for (let i = 0; i < count; i++) tokens[i] = await sealer.seal(claims, ledger, generation);
  const seal = done();
  // A retry's state arrives parsed from JSON, a flat string (a sealed token is a concatenation until something reads it).
  for (let i = 0; i < count; i++) tokens[i] = JSON.parse(JSON.stringify(tokens[i])) as string;
  done = timer(count);
  for (let i = 0; i < count; i++) {
    const opened = await sealer.open(tokens[i], claims);
    if (!opened.ok) throw new Error(`state did not open: ${opened.reason}`);
  }
  const open = done();
  return { seal, open, tokenBytes: tokens[0]!.length };
}

const results = new Map<string, Array<{ seal: Timing; open: Timing }>>(builds.map((b) => [b.label, []]));
let tokenBytes = 0;
const us = (t: Timing): string => `${t.cpu.toFixed(2)} µs CPU (${t.wall.toFixed(2)} wall)`;
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which build goes first, so neither always runs on a warmer (or colder) machine.
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const build of order) {
    await measure(build.sealer, WARMUP);
    const r = await measure(build.sealer, N);
    tokenBytes = r.tokenBytes;
    results.get(build.label)!.push(r);
    process.stderr.write(`round ${round + 1} ${build.label}: seal ${us(r.seal)}, open ${us(r.open)}\n`);
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const cell = (xs: number[]): string => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;

process.stdout.write(`seal/open of a ${tokenBytes}-byte token (${values.bytes}-byte ledger), crypto ${values.crypto}, N=${N}, ${ROUNDS} rounds; µs per operation, median (min–max)\n\n`);
process.stdout.write('| build | seal, CPU | open, CPU | seal + open, CPU | seal, wall | open, wall |\n| --- | ---: | ---: | ---: | ---: | ---: |\n');
for (const [label, rs] of results) {
  const pick = (f: (r: { seal: Timing; open: Timing }) => number): number[] => rs.map(f);
  process.stdout.write(
    `| ${label} | ${cell(pick((r) => r.seal.cpu))} | ${cell(pick((r) => r.open.cpu))} | ${cell(pick((r) => r.seal.cpu + r.open.cpu))} | ${cell(pick((r) => r.seal.wall))} | ${cell(pick((r) => r.open.wall))} |\n`,
  );
}
