/**
 * The crypto port: both implementations give the same bytes (FIPS 180-2 and
 * RFC 4648 vectors), open what the other sealed, and refuse what was altered;
 * on Node the fast path is chosen. A sealed requestState made through one
 * opens through the other.
 */

import { describe, expect, it } from 'vitest';
import { KeyRing, generateStateKey } from '../../src/index.js';
import { StateSealer, type StateClaims } from '../../src/mrtr/sealed-state.js';
import { platformCrypto, type CryptoPort } from '../../src/platform/crypto.js';
import { webCryptoPort } from '../../src/platform/web-crypto.js';
import { nodeCryptoPort } from '../../src/platform/node-crypto.js';
import * as nodeCrypto from 'node:crypto';

const node = platformCrypto();
const web = webCryptoPort();
// Node before 20.12 has no one-shot crypto.hash: the port falls back to a Hash object.
const nodeWithoutOneShot = nodeCryptoPort({ ...nodeCrypto, hash: undefined }, Buffer);
const ports: Array<[string, CryptoPort]> = [
  ['node', node],
  ['node without crypto.hash', nodeWithoutOneShot],
  ['webcrypto', web],
];
const key = new Uint8Array(32).map((_, i) => i);
const iv = new Uint8Array(12).map((_, i) => 100 + i);
const aad = new TextEncoder().encode('t1.k1');

/** Opens through the port and reads the bytes as UTF-8 text (how t1 states are read). */
async function openText(port: CryptoPort, key: Uint8Array, iv: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Promise<string | undefined> {
  const plain = await port.aesGcmOpen(key, iv, aad, sealed);
  return plain && new TextDecoder().decode(plain);
}

describe('the crypto port', () => {
  it('is the node:crypto fast path on Node', () => {
    expect(node.name).toBe('node');
    expect(web.name).toBe('webcrypto');
  });

  it.each(ports)('%s: SHA-256 matches the FIPS 180-2 vectors, in base64url', async (_name, port) => {
    // SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 96177a9c b410ff61 f20015ad
    expect(await port.sha256Base64url('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(await port.sha256Base64url('')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
    // Text is hashed as UTF-8: "é" is c3 a9.
    expect(await port.sha256Base64url('é')).toBe(Buffer.from(await crypto.subtle.digest('SHA-256', new Uint8Array([0xc3, 0xa9]))).toString('base64url'));
  });

  it.each(ports)('%s: SHA-256 of raw bytes is the digest of those bytes, not of a text (FIPS 180-2 vector)', async (_name, port) => {
    const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
    expect(hex(await port.sha256(new TextEncoder().encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // Bytes that are not UTF-8 are hashed as they are (0xff would become U+FFFD through a text).
    const raw = new Uint8Array([0xff, 0x00, 0xc3]);
    expect(hex(await port.sha256(raw))).toBe(nodeCrypto.createHash('sha256').update(raw).digest('hex'));
    // A view into a larger buffer hashes only its own bytes.
    const view = new Uint8Array([9, 9, 0x61, 0x62, 0x63, 9]).subarray(2, 5);
    expect(hex(await port.sha256(view))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it.each(ports)('%s: base64url matches RFC 4648 §10 (unpadded, url alphabet)', (_name, port) => {
    const cases: Array<[string, string]> = [['', ''], ['f', 'Zg'], ['fo', 'Zm8'], ['foo', 'Zm9v'], ['foob', 'Zm9vYg'], ['fooba', 'Zm9vYmE'], ['foobar', 'Zm9vYmFy']];
    for (const [plain, encoded] of cases) {
      expect(port.base64urlEncode(new TextEncoder().encode(plain))).toBe(encoded);
      expect(new TextDecoder().decode(port.base64urlDecode(encoded))).toBe(plain);
    }
    expect(port.base64urlEncode(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
  });

  it.each(ports)('%s: random bytes have the length asked for and differ', (_name, port) => {
    const a = port.randomBytes(32);
    expect(a).toHaveLength(32);
    expect(port.base64urlEncode(a)).not.toBe(port.base64urlEncode(port.randomBytes(32)));
  });

  it('seals the same bytes both ways, and each opens what the other sealed', async () => {
    const text = 'héllo, state ✓';
    const fromNode = await node.aesGcmSeal(key, iv, aad, new Uint8Array(0), text);
    expect(await web.aesGcmSeal(key, iv, aad, new Uint8Array(0), text)).toBe(fromNode);
    const body = node.base64urlDecode(fromNode);
    for (const port of [node, web]) expect(await openText(port, key, iv, aad, body.subarray(12))).toBe(text);
  });

  it.each(ports)('%s: refuses a flipped bit, other associated data, another key, and a short body', async (_name, port) => {
    const body = port.base64urlDecode(await port.aesGcmSeal(key, iv, aad, new Uint8Array(0), 'payload')).subarray(12);
    const flipped = Uint8Array.from(body);
    flipped[0]! ^= 1;
    expect(await openText(port, key, iv, aad, flipped)).toBeUndefined();
    expect(await openText(port, key, iv, new TextEncoder().encode('t1.k2'), body)).toBeUndefined();
    expect(await openText(port, key.map((b) => b ^ 0xff), iv, aad, body)).toBeUndefined();
    expect(await openText(port, key, iv, aad, body.subarray(0, 10))).toBeUndefined();
  });

  it('a requestState sealed through either port opens through the other, with its claims checked', async () => {
    const keys = KeyRing.parse(generateStateKey('k1'));
    const claims: StateClaims = { method: 'tools/call', target: 'deploy', args: 'a', principal: 'alice', audience: 'svc' };
    const viaNode = new StateSealer({ keys, crypto: node });
    const viaWeb = new StateSealer({ keys, crypto: web });
    for (const [sealer, opener] of [
      [viaNode, viaWeb],
      [viaWeb, viaNode],
    ] as const) {
      const token = await sealer.seal(claims, { a: { confirm: ['d', { action: 'accept' }] } });
      const opened = await opener.open(token, claims);
      expect(opened.ok && opened.state.data).toEqual({ a: { confirm: ['d', { action: 'accept' }] } });
      const other = await opener.open(token, { ...claims, principal: 'bob' });
      expect(other).toEqual({ ok: false, reason: 'requestState was issued to another principal', rejection: 'principal' });
    }
  });
});
