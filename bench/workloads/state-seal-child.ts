/**
 * requestState seal + open per second, in a process of its own so each
 * measurement starts from the same clean heap and JIT state.
 *
 *   node dist/bench/workloads/state-seal-child.js --system tessera|official --bytes N --seconds S [--crypto node|webcrypto]
 *
 * tessera:  StateSealer (AES-256-GCM, claims inside the ciphertext) seal, then open with the claims check,
 *           through the runtime's crypto port (node:crypto on Node) or, with --crypto webcrypto, WebCrypto;
 *           under a redemption store generation, as a server seals (issue 26).
 * official: createRequestStateCodec (HMAC-SHA256, signed not encrypted) mint, then verify, with a
 *           `bind` on the method so the state is bound to something, as Tessera's is.
 * Both carry the same data: a ledger of `bytes` bytes of JSON (answers, a pending question, a `once` result).
 * Prints one JSON line: { opsPerSecond, tokenBytes, ops, seconds }.
 */

import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createRequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { digestOf } from '../../src/mrtr/digest.js';
import { generateStateKey, KeyRing } from '../../src/mrtr/keyring.js';
import { StateSealer, type StateClaims } from '../../src/mrtr/sealed-state.js';
import { platformCrypto } from '../../src/platform/crypto.js';
import { webCryptoPort } from '../../src/platform/web-crypto.js';
import { newGeneration } from '../../src/stores/redemption-store.js';
import { ledgerOfSize } from './sized-ledger.js';

const { values } = parseArgs({
  options: { system: { type: 'string' }, bytes: { type: 'string', default: '200' }, seconds: { type: 'string', default: '1' }, crypto: { type: 'string', default: 'platform' } },
});
const bytes = Number(values.bytes);
const seconds = Number(values.seconds);
const WARMUP_SECONDS = 0.3;


interface Subject {
  /** One seal + open; returns the token length, throws when the state does not come back. */
  roundTrip(): number | Promise<number>;
}

async function tesseraSubject(ledger: Record<string, unknown>): Promise<Subject> {
  const crypto = values.crypto === 'webcrypto' ? webCryptoPort() : platformCrypto();
  const sealer = new StateSealer({ keys: KeyRing.parse(generateStateKey()), crypto });
  const claims: StateClaims = { method: 'tools/call', target: 'wizard', args: await digestOf({ order: 'order-7' }), principal: '', audience: 'tessera-bench' };
  const generation = newGeneration();
  return {
    async roundTrip() {
      const token = await sealer.seal(claims, ledger, generation);
      const opened = await sealer.open<Record<string, unknown>>(token, claims);
      if (!opened.ok || opened.state.data.o === undefined) throw new Error(`state did not open: ${opened.ok ? 'data lost' : opened.reason}`);
      return token.length;
    },
  };
}

function officialSubject(ledger: Record<string, unknown>): Subject {
  const codec = createRequestStateCodec<Record<string, unknown>>({ key: randomBytes(32), bind: (ctx) => ctx.mcpReq.method });
  // verify/mint read only ctx.mcpReq.method (through bind).
  const ctx = { mcpReq: { method: 'tools/call' } } as unknown as ServerContext;
  return {
    async roundTrip() {
      const token = await codec.mint(ledger, ctx);
      const opened = await codec.verify(token, ctx);
      if (opened.o === undefined) throw new Error('state did not open: data lost');
      return token.length;
    },
  };
}

async function loop(subject: Subject, forSeconds: number): Promise<{ ops: number; seconds: number; tokenBytes: number }> {
  const started = performance.now();
  const deadline = started + forSeconds * 1000;
  let ops = 0;
  let tokenBytes = 0;
  while (performance.now() < deadline) {
    // Check the clock every 32 operations: reading it is not free next to a 2 µs operation.
    for (let i = 0; i < 32; i++) {
      const length = subject.roundTrip();
      tokenBytes = typeof length === 'number' ? length : await length; // no await (and no microtask) for a synchronous sealer
    }
    ops += 32;
  }
  return { ops, seconds: (performance.now() - started) / 1000, tokenBytes };
}

const ledger = await ledgerOfSize(bytes, digestOf);
const subject = values.system === 'tessera' ? await tesseraSubject(ledger) : values.system === 'official' ? officialSubject(ledger) : undefined;
if (!subject) throw new Error('--system must be tessera or official');
await loop(subject, WARMUP_SECONDS);
const measured = await loop(subject, seconds);
process.stdout.write(`${JSON.stringify({ ...measured, opsPerSecond: measured.ops / measured.seconds })}\n`);
