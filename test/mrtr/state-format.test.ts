/**
 * The t2 requestState format (docs/state-security.md): a compact binary head
 * (expiry and claims) sealed with the ledger. Its fields round-trip and each
 * claim is still checked on its own, a head the sealer did not write is
 * refused, the state for a ~200-byte ledger — with the redemption store's
 * generation, as a server seals it — fits in fewer bytes than the official
 * SDK's signed state (383), t2 states sealed before generations (flags 0)
 * still open, and t1 states sealed before the upgrade still open until they
 * expire. States sealed by an earlier release (fixed vectors) still open,
 * and the sealer still writes them byte for byte.
 */

import { describe, expect, it } from 'vitest';
import { digestOf } from '../../src/mrtr/digest.js';
import { generateStateKey, KeyRing } from '../../src/mrtr/keyring.js';
import { StateSealer, type StateClaims } from '../../src/mrtr/sealed-state.js';
import { argsField, audienceField, decodeHead, encodeHead, fieldText, generationField, methodField, principalField, targetField } from '../../src/mrtr/state-layout.js';
import { newGeneration } from '../../src/stores/redemption-store.js';
import { platformCrypto, type CryptoPort } from '../../src/platform/crypto.js';
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

describe('states sealed by an earlier release (fixed vectors)', () => {
  // Written by the sealer of commit 23a7e59 (before the single-update seal and the synchronous node:crypto
  // answers) with the key 00 01 … 1f, IVs from the byte pattern below and the clock at T0.
  const KEYS = KeyRing.parse(`golden:${Buffer.from(new Uint8Array(32).map((_, i) => i)).toString('base64url')}`);
  const CLAIMS: StateClaims = { method: 'tools/call', target: 'wizard', args: 'q1w2e3r4t5y6u7i8o9p0aZ', principal: 'alice', audience: 'tessera-golden' };
  const LEDGER = { a: { name: ['d1', { action: 'accept', content: { name: 'Adélaïde ✓' } }] }, o: { reserve: ['r-1'] } };
  const GENERATION = 'AAECAwQF';
  /** A custom method, a target with a two-byte length, arguments that are not base64url, anonymous, no ledger, no generation. */
  const ODD_CLAIMS: StateClaims = { ...CLAIMS, method: 'x/custom', target: 't'.repeat(130), args: 'not base64url!', principal: '' };
  const SEALED =
    't2.golden.AwoRGB8mLTQ7QklQW1VXg-KYSFgFaKAhbnTt_bH6I8X-6nm0uVP78w-n2JNI7kcJQmJsEosvzajA6DXs-BsqQx1rsSxlMrH_HG9glzXURmE97VMBV9vmU-YcMz6wxXNEmQdTr7txFH6FDCoEuMueFmT0dNgvrcwJdM3NWSjgzGNgdiuO7ZL7QuePRUDLFGsyw8hOhsTCzwcQ4FUPOScHkrUgxMfkhZQmi3BWjivX8gkkAL9Q9-Z9Ify3kyvmkA6CsCI';
  const SEALED_ODD =
    't2.golden.V15lbHN6gYiPlp2k_qqU5xIXuxT0iHepphEbQWsUwfzUQcCEemdF6HLzFMfymzJd_Fhcu40v7JkzLqZc4STqNGhe0HAjR2_SPcFxW5hxcAYdXlSdYU-GTJgZ7NbEwIZIBEtlkLE5OAOAkAdp3P64DMb7FPOjmm_IvfKSQ-In2rmkCkLL8jSjqiyAJM6xFKvGQ4udFmRKrPl8xlcIyAtZ7SkgtBlw8z6y7TN3jxd1UF0v_CT701RhN3gNKzJhg7MO0zzNCpoaUBevzQ';
  /** t1 (JSON payload, empty head) under the first IV, expiring at T0 + 10 minutes. */
  const SEALED_T1 =
    't1.golden.AwoRGB8mLTQ7QklQIXa-CXkXX3xsCNYAUEDbw_OhbZS8vkiVIDzhqhAnHy3IZMiN1IosS600JZ87pBfOOnVdohXGYiCj9QwFeleO3zmDRnR4owoZG83iTKVUDD741jAahQcI7r4pDCLCBXpRr52CUGXhMcIj-9JNcPmbVzDom28jIWzNu9nZQwYKC0B93y1twV63ZpXawDtAqxgMf3gSkutn04CsiNNlkxFFgXuiSM8eQBnNfPN0nZZUbcQr';
  /** The port with its random bytes replaced by a fixed pattern, so the IVs are known. */
  const fixedIvs = (port: CryptoPort): CryptoPort => ({ ...port, randomBytes: (n) => new Uint8Array(n).map((_, i) => (i * 7 + 3) & 0xff) });
  const ports: Array<[string, CryptoPort]> = [
    ['node:crypto', crypto],
    ['WebCrypto', webCryptoPort()],
  ];

  it.each(ports)('%s seals them byte for byte', async (_name, port) => {
    const sealer = new StateSealer({ keys: KEYS, crypto: fixedIvs(port), clock: () => T0 });
    expect(await sealer.seal(CLAIMS, LEDGER, GENERATION)).toBe(SEALED);
    expect(await sealer.seal(ODD_CLAIMS, undefined)).toBe(SEALED_ODD);
  });

  it.each(ports)('%s opens them: data, id (the IV), expiry and generation as sealed', async (_name, port) => {
    const sealer = new StateSealer({ keys: KEYS, crypto: port, clock: () => T0 + 1 });
    const opened = await sealer.open(SEALED, CLAIMS);
    expect(opened.ok && opened.state).toEqual({ data: LEDGER, id: port.base64urlEncode(new Uint8Array(12).map((_, i) => (i * 7 + 3) & 0xff)), expiresAt: T0 + 600_000, generation: GENERATION });
    const odd = await sealer.open(SEALED_ODD, ODD_CLAIMS);
    expect(odd.ok && odd.state).toEqual({ data: undefined, id: port.base64urlEncode(new Uint8Array(24).map((_, i) => (i * 7 + 3) & 0xff).subarray(12)), expiresAt: T0 + 600_000 });
    const t1 = await sealer.open(SEALED_T1, CLAIMS);
    expect(t1.ok && t1.state).toEqual({ data: { a: 1 }, id: SEALED.split('.')[2]!.slice(0, 16), expiresAt: T0 + 600_000 });
    // Opened again (the digests of principal and audience now remembered), the same.
    expect(await sealer.open(SEALED, CLAIMS)).toEqual(opened);
    // Each claim still counts: the same state for another principal is refused.
    const other = await sealer.open(SEALED, { ...CLAIMS, principal: 'bob' });
    expect(!other.ok && other.rejection).toBe('principal');
  });
});
