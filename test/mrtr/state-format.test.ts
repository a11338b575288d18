/**
 * The t2 requestState format (docs/state-security.md): a compact binary head
 * (expiry and claims) sealed with the ledger. Its fields round-trip and each
 * claim is still checked on its own, a head the sealer did not write is
 * refused, the state for a ~200-byte ledger — with the redemption store's
 * generation, as a server seals it — fits in fewer bytes than the official
 * SDK's signed state (383), t2 states sealed before generations (flags 0)
 * still open, and t1 states sealed before the upgrade still open until they
 * expire.
 */

import { describe, expect, it } from 'vitest';
import { digestOf } from '../../src/mrtr/digest.js';
import { generateStateKey, KeyRing } from '../../src/mrtr/keyring.js';
import { StateSealer, type StateClaims } from '../../src/mrtr/sealed-state.js';
import { argsField, audienceField, decodeHead, encodeHead, fieldText, generationField, methodField, principalField, targetField } from '../../src/mrtr/state-layout.js';
import { newGeneration } from '../../src/stores/redemption-store.js';
import { platformCrypto } from '../../src/platform/crypto.js';
import { webCryptoPort } from '../../src/platform/web-crypto.js';

const crypto = platformCrypto();
const T0 = Date.UTC(2026, 6, 28, 12, 0, 0, 123);

async function claimsFor(overrides: Partial<StateClaims> = {}): Promise<StateClaims> {
  return { method: 'tools/call', target: 'wizard', args: await digestOf({ order: 'order-7' }), principal: '', audience: 'tessera-bench', ...overrides };
}

/** The bench's ~200-byte ledger (bench/workloads/state-seal-child.ts): two answers' digests, a pending question, a once result. */
async function benchLedger(): Promise<Record<string, unknown>> {
  const [name, color] = [await digestOf({ q: 'name' }), await digestOf({ q: 'color' })];
  const make = (padding: string): Record<string, unknown> => ({ a: { name: [name, { action: 'accept', content: { name: 'Ada' } }] }, p: { color }, o: { reserve: [`order-7-r1${padding}`] } });
  return make('x'.repeat(200 - JSON.stringify(make('')).length));
}

describe('the t2 head', () => {
  it('round-trips the expiry (48 bits, to the millisecond) and every field', async () => {
    const fields = {
      method: methodField('tools/call'),
      target: targetField('délai/é'.repeat(30)), // a target longer than 127 bytes takes a two-byte length
      args: argsField(await digestOf({ a: 1 }), crypto),
      principal: await principalField('https://issuer|alice|client-1', crypto),
      audience: await audienceField('svc', crypto),
    };
    const head = encodeHead(T0, fields);
    const ledger = new TextEncoder().encode('{"x":1}');
    const plain = new Uint8Array(head.length + ledger.length);
    plain.set(head);
    plain.set(ledger, head.length);
    const decoded = decodeHead(plain)!;
    expect(decoded.flags).toBe(0);
    expect(decoded.expiresAt).toBe(T0);
    for (const name of ['method', 'target', 'args', 'principal', 'audience'] as const) expect([...decoded.fields[name]], name).toEqual([...fields[name]]);
    expect(decoded.ledgerStart).toBe(head.length);
    expect(fieldText(decoded.fields.target, 'target')).toBe('délai/é'.repeat(30));
    expect(fieldText(methodField('tasks/get'), 'method')).toBe('tasks/get');
    expect(fieldText(methodField('prompts/get'), 'method')).toBe('prompts/get');
  });

  it('keeps anonymous as one byte and hashes a named principal, so a long principal costs nothing', async () => {
    expect(await principalField('', crypto)).toEqual(Uint8Array.of(0));
    const long = await principalField(`https://issuer.example.com|${'u'.repeat(200)}|client`, crypto);
    expect(long.length).toBe(17);
    expect(long).not.toEqual(await principalField('https://issuer.example.com|other|client', crypto));
  });

  it('tells base64url digests from other argument strings (so "a" and "b" never collide)', () => {
    expect(argsField('a', crypto)).not.toEqual(argsField('b', crypto));
    expect(argsField('abcd', crypto)).not.toEqual(argsField('abce', crypto));
  });

  it('is undefined when cut short anywhere, with a generation or without', async () => {
    const fields = {
      method: methodField('x/custom'),
      target: targetField('t'),
      args: argsField('z', crypto),
      principal: await principalField('p', crypto),
      audience: await audienceField('a', crypto),
    };
    for (const head of [encodeHead(T0, fields), encodeHead(T0, fields, generationField(newGeneration(), crypto))]) {
      for (let cut = 0; cut < head.length; cut++) expect(decodeHead(head.subarray(0, cut)), `cut at ${cut}`).toBeUndefined();
      expect(decodeHead(head)).toBeDefined();
    }
  });

  it('carries the store generation after the expiry, flagged, and every field after it unchanged', async () => {
    const fields = {
      method: methodField('tools/call'),
      target: targetField('pay'),
      args: argsField(await digestOf({ a: 1 }), crypto),
      principal: await principalField('', crypto),
      audience: await audienceField('svc', crypto),
    };
    const generation = newGeneration();
    expect(generation).toMatch(/^[A-Za-z0-9_-]{8}$/);
    const head = encodeHead(T0, fields, generationField(generation, crypto));
    expect(head.length).toBe(encodeHead(T0, fields).length + 7); // a length byte and 48 bits
    const decoded = decodeHead(head)!;
    expect(decoded.flags).toBe(1);
    expect(decoded.expiresAt).toBe(T0);
    expect(crypto.base64urlEncode(decoded.generation!)).toBe(generation);
    for (const name of ['method', 'target', 'args', 'principal', 'audience'] as const) expect([...decoded.fields[name]], name).toEqual([...fields[name]]);
    expect(decodeHead(encodeHead(T0, fields))!.generation).toBeUndefined();
  });

  it('takes only a generation that reads back as the same string (canonical base64url, 1 to 255 bytes)', () => {
    for (const bad of ['', 'a', 'AB', 'ab+/', 'é', 'x'.repeat(341)]) expect(() => generationField(bad, crypto), JSON.stringify(bad)).toThrow(TypeError);
    expect(generationField('AA', crypto)).toEqual(Uint8Array.of(1, 0));
  });
});

describe('t2 requestState', () => {
  it('for the ~200-byte ledger, with the store generation, is smaller than the official SDK\'s signed state (383 bytes) and the t1 state (513)', async () => {
    const sealer = new StateSealer({ keys: KeyRing.parse(generateStateKey()) });
    const generation = newGeneration();
    const token = await sealer.seal(await claimsFor(), await benchLedger(), generation);
    expect(token.startsWith('t2.')).toBe(true);
    expect(token.length).toBeLessThan(383);
    const opened = await sealer.open(token, await claimsFor());
    expect(opened.ok && opened.state.data).toEqual(await benchLedger());
    expect(opened.ok && opened.state.generation).toBe(generation);
  });

  it('opens a state sealed before generations (flags 0) as before, with no generation', async () => {
    const sealer = new StateSealer({ keys: KeyRing.parse(generateStateKey()) });
    const opened = await sealer.open(await sealer.seal(await claimsFor(), { a: 1 }), await claimsFor());
    expect(opened.ok && opened.state.data).toEqual({ a: 1 });
    expect(opened.ok && 'generation' in opened.state).toBe(false);
  });

  it('refuses each claim on its own, with its own reason', async () => {
    let now = T0;
    const sealer = new StateSealer({ keys: KeyRing.parse(generateStateKey('k1')), clock: () => now });
    const token = await sealer.seal(await claimsFor({ principal: 'alice' }), { a: 1 });
    const cases: Array<[Partial<StateClaims>, string]> = [
      [{ principal: 'alice', audience: 'other' }, 'audience'],
      [{ principal: 'bob' }, 'principal'],
      [{ principal: '' }, 'principal'],
      [{ principal: 'alice', method: 'prompts/get' }, 'method'],
      [{ principal: 'alice', target: 'wizarb' }, 'target'],
      [{ principal: 'alice', args: await digestOf({ order: 'order-8' }) }, 'arguments'],
    ];
    for (const [overrides, rejection] of cases) {
      const opened = await sealer.open(token, await claimsFor(overrides));
      expect(opened.ok ? 'accepted' : opened.rejection, JSON.stringify(overrides)).toBe(rejection);
    }
    const method = await sealer.open(token, await claimsFor({ principal: 'alice', method: 'prompts/get' }));
    expect(!method.ok && method.reason).toContain('tools/call');
    const target = await sealer.open(token, await claimsFor({ principal: 'alice', target: 'other' }));
    expect(!target.ok && target.reason).toContain('"wizard"');
    now = T0 + 10 * 60_000;
    const expired = await sealer.open(token, await claimsFor({ principal: 'alice' }));
    expect(!expired.ok && expired.rejection).toBe('expired');
    now = T0 + 10 * 60_000 - 1;
    expect((await sealer.open(token, await claimsFor({ principal: 'alice' }))).ok).toBe(true);
  });

  it('opens an undefined ledger as undefined', async () => {
    const sealer = new StateSealer({ keys: KeyRing.parse(generateStateKey()) });
    const opened = await sealer.open(await sealer.seal(await claimsFor(), undefined), await claimsFor());
    expect(opened.ok && opened.state.data).toBeUndefined();
  });

  it('refuses a head with flags it does not know, even under the right key', async () => {
    const keys = KeyRing.parse(generateStateKey('k1'));
    const sealer = new StateSealer({ keys });
    const claims = await claimsFor();
    for (const flags of [2, 0x80, 3]) {
      const head = encodeHead(Date.now() + 60_000, {
        method: methodField(claims.method),
        target: targetField(claims.target),
        args: argsField(claims.args, crypto),
        principal: await principalField('', crypto),
        audience: await audienceField(claims.audience, crypto),
      }, flags & 1 ? generationField(newGeneration(), crypto) : undefined);
      head[0] = flags;
      const body = await crypto.aesGcmSeal(keys.sealing.secret, crypto.randomBytes(12), new TextEncoder().encode('t2.k1'), head, '{}');
      const opened = await sealer.open(`t2.k1.${body}`, claims);
      expect(!opened.ok && opened.rejection, `flags ${flags}`).toBe('malformed');
    }
  });

  it('seals the same bytes through node:crypto and WebCrypto, each opening what the other sealed', async () => {
    const keys = KeyRing.parse(generateStateKey('k1'));
    const viaNode = new StateSealer({ keys, crypto });
    const viaWeb = new StateSealer({ keys, crypto: webCryptoPort() });
    const claims = await claimsFor({ principal: 'carol' });
    for (const [sealer, opener] of [[viaNode, viaWeb], [viaWeb, viaNode]] as const) {
      const opened = await opener.open(await sealer.seal(claims, { é: 'ü' }), claims);
      expect(opened.ok && opened.state.data).toEqual({ é: 'ü' });
    }
  });
});

describe('t1 requestState (sealed before t2)', () => {
  /** A t1 state exactly as the sealer before t2 wrote it: JSON claims and data, `t1.<key id>` as associated data. */
  async function sealV1(keys: KeyRing, claims: StateClaims, data: unknown, exp: number): Promise<string> {
    const payload = { v: 1, iat: exp - 600_000, exp, mth: claims.method, tgt: claims.target, arg: claims.args, sub: claims.principal, aud: claims.audience, d: data };
    const key = keys.sealing;
    return `t1.${key.id}.${await crypto.aesGcmSeal(key.secret, crypto.randomBytes(12), new TextEncoder().encode(`t1.${key.id}`), new Uint8Array(0), JSON.stringify(payload))}`;
  }

  it('still opens until it expires, with every claim checked', async () => {
    let now = T0;
    const keys = KeyRing.parse(generateStateKey('old'));
    const sealer = new StateSealer({ keys, clock: () => now });
    const claims = await claimsFor({ principal: 'alice' });
    const token = await sealV1(keys, claims, { a: { confirm: ['d', { action: 'accept' }] } }, T0 + 600_000);
    const opened = await sealer.open(token, claims);
    expect(opened.ok && opened.state.data).toEqual({ a: { confirm: ['d', { action: 'accept' }] } });
    const other = await sealer.open(token, { ...claims, principal: 'bob' });
    expect(!other.ok && other.rejection).toBe('principal');
    now = T0 + 600_000;
    const expired = await sealer.open(token, claims);
    expect(!expired.ok && expired.rejection).toBe('expired');
  });

  it('a t2 body under a t1 header (or the reverse) fails authentication', async () => {
    const keys = KeyRing.parse(generateStateKey('k1'));
    const sealer = new StateSealer({ keys });
    const claims = await claimsFor();
    const t2 = await sealer.seal(claims, { a: 1 });
    const asV1 = await sealer.open(t2.replace(/^t2\./, 't1.'), claims);
    expect(!asV1.ok && asV1.rejection).toBe('forged');
    const t1 = await sealV1(keys, claims, { a: 1 }, Date.now() + 60_000);
    const asV2 = await sealer.open(t1.replace(/^t1\./, 't2.'), claims);
    expect(!asV2.ok && asV2.rejection).toBe('forged');
  });
});
