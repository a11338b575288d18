/**
 * Header value encoding of Streamable HTTP (spec §12.3, §12.4): plain ASCII
 * when safe, otherwise `=?base64?<standard Base64 of UTF-8>?=`; strict decoding;
 * and which `x-mcp-header` annotations are valid.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  collectHeaderParams,
  decodeHeaderValue,
  encodeHeaderValue,
  isHttpToken,
  isValidRawHeaderValue,
  mirroredText,
  readMirroredArgument,
} from '../../src/protocol/header-values.js';

/** The sentinel form, computed independently with Node's Buffer (standard alphabet, with padding). */
const sentinel = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
const b64 = (bytes: number[]): string => `=?base64?${Buffer.from(bytes).toString('base64')}?=`;

/** Any UTF-8 text (no lone surrogates), biased towards the edge cases of the encoding rules. */
const headerText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
  fc
    .tuple(fc.constantFrom('', ' ', '\t', '=?base64?', '=?BASE64?'), fc.string({ maxLength: 12 }), fc.constantFrom('', ' ', '\t', '?=', '=?='))
    .map(([a, b, c]) => a + b + c),
);

describe('encodeHeaderValue', () => {
  it.each([['eu-west-1'], ['a b c'], ['42'], ['=?base64'], ['x?=']])('sends the safe value %j as is', (value) => {
    expect(encodeHeaderValue(value)).toBe(value);
  });

  it('sends an empty string as an empty value', () => {
    expect(encodeHeaderValue('')).toBe('');
  });

  it.each([
    ['a leading space', ' lead'],
    ['a trailing space', 'trail '],
    ['a leading tab', '\tlead'],
    ['a trailing tab', 'trail\t'],
    ['only a space', ' '],
    ['non-ASCII', 'café'],
    ['an astral character', 'rocket 🚀'],
    ['an inner tab (a control character)', 'a\tb'],
    ['NUL', 'a\u0000b'],
    ['a newline', 'a\nb'],
    ['a carriage return', 'a\rb'],
    ['DEL', 'a\u007fb'],
    ['another control character', '\u001b[31m'],
    ['the sentinel shape itself', '=?base64?SGVsbG8=?='],
    ['an empty sentinel', '=?base64??='],
  ])('wraps a value with %s in the Base64 sentinel', (_name, value) => {
    expect(encodeHeaderValue(value)).toBe(sentinel(value));
  });

  it('pads the Base64 payload', () => {
    expect(encodeHeaderValue('é')).toBe('=?base64?w6k=?=');
    expect(encodeHeaderValue(' ab')).toBe('=?base64?IGFi?=');
    expect(encodeHeaderValue(' a')).toBe('=?base64?IGE=?=');
  });

  it('always yields header-safe text that decodes back to the original (property)', () => {
    fc.assert(
      fc.property(headerText, (value) => {
        const encoded = encodeHeaderValue(value);
        expect(/^[\x20-\x7e]*$/.test(encoded)).toBe(true);
        expect(/^[ \t]|[ \t]$/.test(encoded)).toBe(false);
        expect(decodeHeaderValue(encoded)).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('decodeHeaderValue', () => {
  it('returns literal values unchanged', () => {
    expect(decodeHeaderValue('eu-west-1')).toBe('eu-west-1');
    expect(decodeHeaderValue('')).toBe('');
  });

  it('decodes the sentinel to UTF-8 text', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8=?=')).toBe('Hello');
    expect(decodeHeaderValue(sentinel('Grüße aus Zürich 🚀'))).toBe('Grüße aus Zürich 🚀');
    expect(decodeHeaderValue(sentinel(' padded '))).toBe(' padded ');
    expect(decodeHeaderValue('=?base64??=')).toBe('');
  });

  it.each([
    ['missing padding', '=?base64?SGVsbG8?='],
    ['too much padding', '=?base64?SGVsbG8==?='],
    ['padding in the middle', '=?base64?SG=sbG8=?='],
    ['a character outside the alphabet', '=?base64?SGV*bG8=?='],
    ['the URL-safe alphabet', '=?base64?-_-_?='],
    ['inner whitespace', '=?base64?SGVs bG8=?='],
    ['a length that is not a multiple of four', '=?base64?SGVsb?='],
  ])('rejects malformed Base64: %s', (_name, raw) => {
    expect(decodeHeaderValue(raw)).toBeUndefined();
  });

  it.each([
    ['invalid bytes', [0xff, 0xfe]],
    ['a truncated sequence', [0x63, 0x61, 0x66, 0xc3]],
    ['an overlong encoding', [0xc0, 0x80]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ])('rejects Base64 of bytes that are not UTF-8: %s', (_name, bytes) => {
    expect(decodeHeaderValue(b64(bytes))).toBeUndefined();
  });

  it.each([
    ['an upper-case marker', '=?BASE64?SGVsbG8=?='],
    ['a mixed-case marker', '=?Base64?SGVsbG8=?='],
    ['no closing ?=', '=?base64?SGVsbG8='],
    ['no opening =', '?base64?SGVsbG8=?='],
  ])('treats a look-alike with %s as a literal', (_name, raw) => {
    expect(decodeHeaderValue(raw)).toBe(raw);
  });
});

describe('raw header text and tokens', () => {
  it('accepts visible ASCII with spaces and tabs, refuses anything else', () => {
    expect(isValidRawHeaderValue('abc DEF\t123 !~')).toBe(true);
    expect(isValidRawHeaderValue('')).toBe(true);
    expect(isValidRawHeaderValue('café')).toBe(false);
    expect(isValidRawHeaderValue('a\u0000b')).toBe(false);
    expect(isValidRawHeaderValue('a\r\nb')).toBe(false);
    expect(isValidRawHeaderValue('a\u007f')).toBe(false);
  });

  it('accepts RFC 9110 tokens only', () => {
    for (const token of ['Region', 'X-Tenant', "a!#$%&'*+-.^_`|~9"]) expect(isHttpToken(token)).toBe(true);
    for (const bad of ['', 'has space', 'a:b', 'a/b', 'a"b', '(x)', 'ü', 'a\r\nb', 'a\tb', 'a,b']) expect(isHttpToken(bad)).toBe(false);
  });
});

describe('collectHeaderParams', () => {
  const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    type: 'object',
    properties,
    ...extra,
  });

  it('collects string, integer and boolean annotations with their property paths', () => {
    const { params, problems } = collectHeaderParams(
      object({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
        plain: { type: 'string' },
      }),
    );
    expect(problems).toEqual([]);
    expect(params).toEqual(
      expect.arrayContaining([
        { name: 'Region', path: ['region'], type: 'string' },
        { name: 'Count', path: ['count'], type: 'integer' },
        { name: 'Dry-Run', path: ['dry'], type: 'boolean' },
      ]),
    );
    expect(params).toHaveLength(3);
  });

  it('follows nested chains of properties', () => {
    const { params, problems } = collectHeaderParams(
      object({ target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } } }),
    );
    expect(problems).toEqual([]);
    expect(params).toEqual([{ name: 'Zone', path: ['target', 'zone'], type: 'string' }]);
  });

  it.each([
    ['empty', ''],
    ['with a space', 'Has Space'],
    ['with a colon', 'a:b'],
    ['non-ASCII', 'Région'],
    ['with CR/LF', 'A\r\nB'],
    ['with a control character', 'A\u0001'],
    ['not a string', 42],
  ])('reports a header name that is %s', (_name, header) => {
    const { params, problems } = collectHeaderParams(object({ p: { type: 'string', 'x-mcp-header': header } }));
    expect(problems.length).toBeGreaterThan(0);
    expect(params).toEqual([]);
  });

  it('reports names that repeat case-insensitively', () => {
    const { problems } = collectHeaderParams(
      object({ a: { type: 'string', 'x-mcp-header': 'Tenant' }, b: { type: 'string', 'x-mcp-header': 'tenant' } }),
    );
    expect(problems.length).toBeGreaterThan(0);
  });

  it.each([
    ['number', { type: 'number' }],
    ['object', { type: 'object', properties: {} }],
    ['array', { type: 'array', items: { type: 'string' } }],
    ['null', { type: 'null' }],
    ['missing', {}],
  ])('reports an annotation on a property whose type is %s', (_name, schema) => {
    const { params, problems } = collectHeaderParams(object({ p: { ...schema, 'x-mcp-header': 'P' } }));
    expect(problems.length).toBeGreaterThan(0);
    expect(params).toEqual([]);
  });

  // The spec allows annotations only on properties reachable through `properties` alone;
  // one anywhere else never yields a header, and makes the tool invalid (a client must drop it).
  const misplaced: Array<[string, Record<string, unknown>]> = [
    ['items', object({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } })],
    [
      'items of objects',
      object({ list: { type: 'array', items: { type: 'object', properties: { h: { type: 'string', 'x-mcp-header': 'H' } } } } }),
    ],
    ['anyOf', object({ p: { anyOf: [{ type: 'string', 'x-mcp-header': 'P' }, { type: 'integer' }] } })],
    ['oneOf', object({ p: { oneOf: [{ type: 'string', 'x-mcp-header': 'P' }] } })],
    ['allOf', object({}, { allOf: [{ properties: { p: { type: 'string', 'x-mcp-header': 'P' } } }] })],
    ['not', object({ p: { not: { type: 'string', 'x-mcp-header': 'P' } } })],
    ['if/then', object({}, { if: { properties: { p: { type: 'string' } } }, then: { properties: { p: { type: 'string', 'x-mcp-header': 'P' } } } })],
    ['$ref into $defs', object({ p: { $ref: '#/$defs/region' } }, { $defs: { region: { type: 'string', 'x-mcp-header': 'Region' } } })],
    ['additionalProperties', object({}, { additionalProperties: { type: 'string', 'x-mcp-header': 'Extra' } })],
    [
      'items, on a property named like a keyword',
      object({ list: { type: 'array', items: { type: 'object', properties: { enum: { type: 'string', 'x-mcp-header': 'E' } } } } }),
    ],
  ];

  it('collects an annotation on a property named like a keyword', () => {
    expect(collectHeaderParams(object({ enum: { type: 'string', 'x-mcp-header': 'E' } }))).toEqual({
      params: [{ name: 'E', path: ['enum'], type: 'string' }],
      problems: [],
    });
  });

  it('does not mistake a property named "x-mcp-header" for an annotation', () => {
    const named = object({ list: { type: 'array', items: { type: 'object', properties: { 'x-mcp-header': { type: 'string' } } } } });
    expect(collectHeaderParams(named)).toEqual({ params: [], problems: [] });
  });

  it.each(misplaced)('does not collect an annotation under %s', (_name, schema) => {
    expect(collectHeaderParams(schema).params).toEqual([]);
  });

  it.each(misplaced)('reports an annotation under %s as invalid', (_name, schema) => {
    expect(collectHeaderParams(schema).problems.length).toBeGreaterThan(0);
  });
});

describe('mirrored argument text', () => {
  it('writes integers in decimal and booleans as true/false', () => {
    expect(mirroredText(42)).toBe('42');
    expect(mirroredText(-7)).toBe('-7');
    expect(mirroredText(0)).toBe('0');
    expect(mirroredText(Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
    expect(mirroredText(true)).toBe('true');
    expect(mirroredText(false)).toBe('false');
    expect(mirroredText('as is ')).toBe('as is ');
  });

  it('cannot mirror non-integers or integers beyond ±(2^53−1)', () => {
    expect(mirroredText(1.5)).toBeUndefined();
    expect(mirroredText(2 ** 53)).toBeUndefined();
    expect(mirroredText(-(2 ** 53))).toBeUndefined();
    expect(mirroredText(Number.NaN)).toBeUndefined();
    expect(mirroredText(null)).toBeUndefined();
    expect(mirroredText({})).toBeUndefined();
  });

  it('reads the value at the properties path; absent and null mean no header', () => {
    const args = { region: 'eu', target: { zone: 'b' }, gone: null, list: [{ zone: 'x' }] };
    expect(readMirroredArgument(args, ['region'])).toBe('eu');
    expect(readMirroredArgument(args, ['target', 'zone'])).toBe('b');
    expect(readMirroredArgument(args, ['gone'])).toBeUndefined();
    expect(readMirroredArgument(args, ['missing'])).toBeUndefined();
    expect(readMirroredArgument(args, ['list', '0', 'zone'])).toBeUndefined();
    expect(readMirroredArgument(undefined, ['region'])).toBeUndefined();
  });
});
