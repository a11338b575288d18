/**
 * A handler runs again from the top on every round (the replay rule), so a
 * form schema written inline in it reaches `ask.form` as a new object each
 * round. What the schema resolves to (the requestedSchema, its check, its
 * canonical text) is made once per content and shared, from a cache bounded in
 * entries and bytes; nothing is kept per schema object, so a server asking
 * such a question forever keeps no more than the bound (issue 25).
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, McpServer, type JsonSchemaObject, type McpServerOptions } from '../../src/index.js';
import { accept, testServer } from '../../src/testing.js';
import { resolvedForms } from '../../src/mrtr/form-schema.js';
import { stillAlive } from '../helpers/collector.js';

/** 1,500 two-round flows: 3,000 rounds, each handing `ask.form` a schema object made in that round. */
const FLOWS = 1_500;

/** The question of issue 25, written inline as a user would (raw) or with zod; a `description` makes a flow's schema its own. */
function greeter(handedIn: Array<WeakRef<object>>) {
  return (options: McpServerOptions): McpServer => {
    const server = new McpServer({ name: 'greeter', version: '1.0.0' }, options);
    server.tool('greet', { input: z.object({ style: z.enum(['raw', 'zod']), label: z.string() }) }, async ({ style, label }, ctx) => {
      let answer;
      if (style === 'raw') {
        const schema = { type: 'object', properties: { n: { type: 'string', minLength: 1, description: label } }, required: ['n'] };
        handedIn.push(new WeakRef(schema));
        answer = await ctx.ask(ask.form('Your name?', schema, { key: 'name' }));
      } else {
        const schema = z.object({ n: z.string().min(1).describe(label) });
        handedIn.push(new WeakRef(schema));
        answer = await ctx.ask(ask.form('Your name?', schema, { key: 'name' }));
      }
      return answer.action === 'accept' ? `Hello ${String(answer.content.n)}` : 'no name';
    });
    return server;
  };
}

describe('form schemas written inline', () => {
  it('a few thousand rounds with fresh schema objects keep none of them, and the resolved forms stay within the bound', { timeout: 120_000 }, async () => {
    const handedIn: Array<WeakRef<object>> = [];
    const kit = testServer(greeter(handedIn));
    const wrong: string[] = [];
    for (let n = 0; n < FLOWS; n++) {
      // Every third flow a schema of its own content (500 of them, more than the cache holds), the others one shared content.
      const label = n % 3 === 0 ? `The name for flow ${n}` : 'Your name';
      const run = await kit.callTool('greet', { style: n % 2 === 0 ? 'raw' : 'zod', label }, { name: accept({ n: `P${n}` }) });
      if (run.rounds !== 2 || run.text !== `Hello P${n}`) wrong.push(`flow ${n}: ${run.rounds} rounds, ${JSON.stringify(run.text)}`);
    }
    expect(wrong).toEqual([]);
    expect(handedIn).toHaveLength(2 * FLOWS);

    // Nothing anywhere (a cache keyed by the object, Ajv's own) holds a schema object after its round.
    expect(await stillAlive(handedIn)).toBe(0);
    expect(resolvedForms.size).toBeGreaterThan(0);
    expect(resolvedForms.size).toBeLessThanOrEqual(resolvedForms.limits.entries);
    expect(resolvedForms.bytes).toBeLessThanOrEqual(resolvedForms.limits.bytes);
  });

  it('large schemas are bounded by bytes before entries: the least recently used make room, the one in use stays', { timeout: 120_000 }, () => {
    // Forty described fields: about 6 KB of JSON each, so the byte bound is reached long before 256 entries.
    const large = (version: number): JsonSchemaObject => ({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`field${k}`, { type: 'string', title: `Field ${k}`, description: `What goes in field ${k} of form ${version}, in a sentence or two.`, maxLength: 200 }])),
    });
    const inUse = ask.form('Fill in', large(-1)).request.params;
    const VERSIONS = 120;
    for (let version = 0; version < VERSIONS; version++) {
      ask.form('Fill in', large(version));
      // The question in use is asked again between the others (a handler's every round).
      expect(ask.form('Fill in', large(-1)).request.params).toEqual(inUse);
      expect(resolvedForms.bytes).toBeLessThanOrEqual(resolvedForms.limits.bytes);
    }
    // Fewer kept than were made, with the entry bound far off: the bytes decided.
    expect(resolvedForms.size).toBeLessThan(VERSIONS);
    const schemaInUse = (inUse as { requestedSchema: object }).requestedSchema;
    expect((ask.form('Fill in', large(-1)).request.params as { requestedSchema: object }).requestedSchema).toBe(schemaInUse);
  });

  it('an inline schema with an $id is asked and answered over its rounds', async () => {
    const kit = testServer((options) => {
      const server = new McpServer({ name: 'ids', version: '1.0.0' }, options);
      server.tool('pick', {}, async (_args, ctx) => {
        const schema = { $id: 'https://example.com/forms/pick', type: 'object', properties: { colour: { type: 'string', enum: ['red', 'blue'] } }, required: ['colour'] };
        const answer = await ctx.ask(ask.form('Colour?', schema, { key: 'colour' }));
        return answer.action === 'accept' ? String(answer.content.colour) : 'none';
      });
      return server;
    });
    for (const colour of ['red', 'blue']) {
      const run = await kit.callTool('pick', {}, { colour: accept({ colour }) });
      expect({ rounds: run.rounds, text: run.text }).toEqual({ rounds: 2, text: colour });
    }
  });

  it('schemas of the same content share one form; another property order is another form, fields in its order', () => {
    const schemaOf = (first: string, second: string): JsonSchemaObject => ({ type: 'object', properties: { [first]: { type: 'string' }, [second]: { type: 'integer', minimum: 1 } } });
    const requested = (schema: JsonSchemaObject) => ask.form('Details?', schema).request.params as { requestedSchema: { properties: object } };
    const one = requested(schemaOf('city', 'nights'));
    const again = requested(schemaOf('city', 'nights'));
    const reordered = requested(schemaOf('nights', 'city'));
    expect(again.requestedSchema).toBe(one.requestedSchema);
    expect(Object.keys(one.requestedSchema.properties)).toEqual(['city', 'nights']);
    expect(Object.keys(reordered.requestedSchema.properties)).toEqual(['nights', 'city']);
  });

  it('what an author changes after asking does not change a form another question shares', () => {
    const choices = ['red'];
    const first = ask.form('Colour?', { type: 'object', properties: { c: { type: 'string', enum: choices } } });
    choices.push('blue');
    const second = ask.form('Colour?', { type: 'object', properties: { c: { type: 'string', enum: ['red'] } } });
    const enumOf = (question: typeof first): unknown => (question.request.params as { requestedSchema: { properties: { c: { enum: unknown } } } }).requestedSchema.properties.c.enum;
    expect(enumOf(first)).toEqual(['red']);
    expect(enumOf(second)).toEqual(['red']);
    // Nor can a handler change the shared form in place.
    expect(() => (enumOf(second) as string[]).push('green')).toThrow(TypeError);
  });
});
