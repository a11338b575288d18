/**
 * Raw JSON Schema, with either engine: Ajv's compiled checks, and the
 * interpreter used where code generation is refused (Workers). Both accept and
 * refuse the same values, with the failing place in the message, and refuse the
 * same schemas at registration.
 */

import { describe, expect, it } from 'vitest';
import { fromJsonSchema, type JsonSchemaEngine } from '../../src/schema/json-schema.js';

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
