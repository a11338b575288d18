/**
 * Raw JSON Schema, with either engine: Ajv's compiled checks, and the
 * interpreter used where code generation is refused (Workers). Both accept and
 * refuse the same values, with the failing place in the message, and refuse the
 * same schemas at registration.
 */

import { describe, expect, it } from 'vitest';
import { fromJsonSchema, type JsonSchemaEngine } from '../../src/schema/json-schema.js';
import { stillAlive } from '../helpers/collector.js';

const order = {
  type: 'object',
  properties: {
    item: { type: 'string', minLength: 1, 'x-mcp-header': 'Item' },
    quantity: { type: 'integer', minimum: 1 },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { $ref: '#/$defs/tag' } },
  },
  required: ['item', 'quantity'],
  additionalProperties: false,
  $defs: { tag: { type: 'string', enum: ['urgent', 'later'] } },
};

describe.each<JsonSchemaEngine>(['compiled', 'interpreted'])('the %s engine', (engine) => {
  const schema = fromJsonSchema(order, 'tool order', engine);

  it('accepts what matches, keeping the value as given', () => {
    const value = { item: 'tea', quantity: 2, email: 'ada@example.com', tags: ['urgent'] };
    expect(schema.validate(value)).toEqual({ ok: true, value });
  });

  it.each([
    [{ item: 'tea', quantity: 0 }, '/quantity'],
    [{ item: 'tea' }, 'quantity'],
    [{ item: 'tea', quantity: 1, email: 'not an address' }, '/email'],
    [{ item: 'tea', quantity: 1, tags: ['soon'] }, '/tags/0'],
    [{ item: 'tea', quantity: 1, extra: true }, 'additional propert'],
    ['tea', '(root)'],
  ])('refuses %j, naming %s', async (value, where) => {
    const result = await schema.validate(value);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.message).toContain(where);
  });

  it('reads draft-07 when $schema says so', async () => {
    const draft7 = fromJsonSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'number', exclusiveMinimum: 0 } } }, 'tool n', engine);
    expect((await draft7.validate({ n: 1 })).ok).toBe(true);
    expect((await draft7.validate({ n: 0 })).ok).toBe(false);
  });

  it('keeps nothing of a schema once its check is gone (a schema made per request, or per server, is not kept by the engine)', async () => {
    // In a function of its own: a suspended async function may keep its last iteration's values in its frame.
    const makeAndUse = (i: number): WeakRef<object> => {
      // An $id as well: the same one on every object, as a schema written inline carries it.
      const schema = { $id: 'https://example.com/schemas/made-each-time', type: 'object', properties: { n: { type: 'integer', minimum: i } } };
      expect(fromJsonSchema(schema, `tool ${i}`, engine).validate({ n: i })).toEqual({ ok: true, value: { n: i } });
      return new WeakRef(schema);
    };
    const made = Array.from({ length: 300 }, (_, i) => makeAndUse(i));
    expect(await stillAlive(made)).toBe(0);
  });

  it('refuses another dialect, and a $ref to a network URI, at registration', () => {
    expect(() => fromJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#' }, 'tool x', engine)).toThrow(/dialect .* is not supported/);
    expect(() => fromJsonSchema({ $ref: 'https://example.com/schema.json' }, 'tool x', engine)).toThrow(/tool x: invalid JSON Schema/);
  });
});

it('uses the compiled engine on Node (code generation is allowed here)', () => {
  // A schema only Ajv refuses at registration (an unknown type) tells the engines apart.
  expect(() => fromJsonSchema({ type: 'nope' }, 'tool x')).toThrow(/invalid JSON Schema/);
  expect(() => fromJsonSchema({ type: 'nope' }, 'tool x', 'interpreted')).not.toThrow();
});
