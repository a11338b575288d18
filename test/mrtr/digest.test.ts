/**
 * Digests pin answers to the exact question asked and states to their
 * arguments: the same value gives the same digest whatever its key order,
 * different values give different digests, and the remembered digests of the
 * server's questions are the digests themselves (SHA-256, base64url, 22
 * characters: 132 bits), for short and long texts and after the memory of
 * them was emptied.
 */

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, digestOf, digestOfText, rememberedDigestOfText } from '../../src/mrtr/digest.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 22);

describe('digests', () => {
  it('are the SHA-256 of the canonical JSON, keys sorted at every level', async () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: undefined } })).toBe('{"a":{"d":[1,{"e":3,"f":2}]},"b":1}');
    expect(await digestOf({ b: 1, a: 2 })).toBe(await digestOf({ a: 2, b: 1 }));
    expect(await digestOf({ a: 2, b: 1 })).toBe(sha256('{"a":2,"b":1}'));
    expect(await digestOf({ a: 2, b: 1 })).not.toBe(await digestOf({ a: 2, b: 2 }));
  });

  it('remembered for questions, give the same digest as computed afresh: short, long, unicode, and past the memory bound', async () => {
    const texts = ['{"message":"Your name?"}', `{"message":"${'x'.repeat(10_000)}"}`, '{"message":"Couleur préférée ? 🎨"}'];
    for (let i = 0; i < 1_200; i++) texts.push(`{"message":"question ${i}"}`);
    for (const round of [1, 2]) {
      for (const text of texts) expect(await rememberedDigestOfText(text), `${text.slice(0, 40)} (pass ${round})`).toBe(sha256(text));
    }
    expect(await rememberedDigestOfText('{"a":1}')).toBe(await digestOfText('{"a":1}'));
    expect(await rememberedDigestOfText('{"a":1}')).not.toBe(await rememberedDigestOfText('{"a":2}'));
  });
});
