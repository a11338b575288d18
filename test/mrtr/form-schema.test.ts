/**
 * Form elicitation schemas (spec §8.1): a zod v4 schema becomes the restricted
 * form schema (a flat object of strings, numbers, booleans and enums); what a
 * form cannot express fails loudly at ask time naming the field; constraints a
 * form cannot carry are dropped from the wire but still enforced on the
 * answer (an invalid answer is asked again, checklist 38). Every produced
 * requestedSchema must validate as ElicitRequestFormParams.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer, type JsonSchemaObject } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, startHttp } from '../helpers/http.js';
import { recordingLogger, type RecordingLogger } from '../helpers/recording-logger.js';
import { assertValid } from '../helpers/wire-schema.js';

type Property = Record<string, unknown>;
interface FormParams {
  mode?: string;
  message: string;
  requestedSchema: { type: string; properties: Record<string, Property>; required?: string[]; $schema?: string };
}

/** The embedded request's params for a form question, validated against the official schema. */
function formOf(schema: z.ZodType | JsonSchemaObject, message = 'Fill in the form'): FormParams {
  const request = ask.form(message, schema as never).request;
  expect(request.method).toBe('elicitation/create');
  assertValid('ElicitRequestFormParams', request.params);
  return request.params as unknown as FormParams;
}

function propertyOf(schema: z.ZodType | JsonSchemaObject, field: string): Property {
  const property = formOf(schema).requestedSchema.properties[field];
  expect(property, `property ${field}`).toBeDefined();
  return property!;
}

/** No property anywhere carries a keyword outside the restricted subset. */
function expectOnlyRestrictedKeywords(params: FormParams): void {
  const allowed = new Set(['type', 'title', 'description', 'minLength', 'maxLength', 'format', 'minimum', 'maximum', 'default', 'enum', 'enumNames', 'oneOf', 'items', 'minItems', 'maxItems']);
  for (const [name, property] of Object.entries(params.requestedSchema.properties)) {
    for (const keyword of Object.keys(property)) expect(allowed.has(keyword), `${name}.${keyword}`).toBe(true);
  }
}

describe('strings', () => {
  it('carries minLength and maxLength', () => {
    expect(propertyOf(z.object({ nick: z.string().min(2).max(10) }), 'nick')).toEqual({ type: 'string', minLength: 2, maxLength: 10 });
  });

  it.each([
    ['email', z.email()],
    ['email', z.string().email()],
    ['uri', z.url()],
    ['date', z.iso.date()],
    ['date-time', z.iso.datetime()],
  ])('carries format %s (and no pattern)', (format, field) => {
    const params = formOf(z.object({ field }));
    expect(params.requestedSchema.properties.field).toMatchObject({ type: 'string', format });
    expectOnlyRestrictedKeywords(params);
  });

  it('drops pattern from the wire', () => {
    const params = formOf(z.object({ code: z.string().regex(/^[A-Z]{3}$/) }));
    expect(params.requestedSchema.properties.code).toEqual({ type: 'string' });
    expectOnlyRestrictedKeywords(params);
  });
});

describe('numbers and booleans', () => {
  it('numbers with bounds', () => {
    expect(propertyOf(z.object({ score: z.number().min(1).max(5) }), 'score')).toEqual({ type: 'number', minimum: 1, maximum: 5 });
  });

  it('integers with bounds', () => {
    expect(propertyOf(z.object({ count: z.int().min(0).max(10) }), 'count')).toEqual({ type: 'integer', minimum: 0, maximum: 10 });
    expect(propertyOf(z.object({ count: z.number().int().min(2).max(3) }), 'count')).toMatchObject({ type: 'integer', minimum: 2, maximum: 3 });
  });

  it('exclusive bounds, which a form cannot carry, leave only restricted keywords', () => {
    const params = formOf(z.object({ qty: z.int().gt(0).lt(10) }));
    expect(params.requestedSchema.properties.qty!.type).toBe('integer');
    expectOnlyRestrictedKeywords(params);
  });

  it('booleans', () => {
    expect(propertyOf(z.object({ ok: z.boolean() }), 'ok')).toEqual({ type: 'boolean' });
  });
});

describe('defaults, titles and descriptions', () => {
  it('defaults are carried and make a field not required', () => {
    const params = formOf(
      z.object({
        ok: z.boolean().default(true),
        name: z.string().default('Ada'),
        count: z.int().min(1).max(9).default(3),
        size: z.enum(['S', 'M']).default('M'),
        extras: z.array(z.enum(['a', 'b'])).default(['a']),
        must: z.string(),
      }),
    );
    const p = params.requestedSchema.properties;
    expect(p.ok).toEqual({ type: 'boolean', default: true });
    expect(p.name).toEqual({ type: 'string', default: 'Ada' });
    expect(p.count).toEqual({ type: 'integer', minimum: 1, maximum: 9, default: 3 });
    expect(p.size).toEqual({ type: 'string', enum: ['S', 'M'], default: 'M' });
    expect(p.extras).toEqual({ type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a'] });
    expect(params.requestedSchema.required).toEqual(['must']);
  });

  it('titles and descriptions (meta and describe) are carried', () => {
    const params = formOf(
      z.object({
        name: z.string().meta({ title: 'Name', description: 'Your full name' }),
        age: z.int().describe('Age in years'),
        ok: z.boolean().meta({ title: 'Agree' }),
        size: z.enum(['S', 'L']).meta({ title: 'Size', description: 'Shirt size' }),
      }),
    );
    const p = params.requestedSchema.properties;
    expect(p.name).toEqual({ type: 'string', title: 'Name', description: 'Your full name' });
    expect(p.age).toMatchObject({ type: 'integer', description: 'Age in years' });
    expect(p.ok).toEqual({ type: 'boolean', title: 'Agree' });
    expect(p.size).toEqual({ type: 'string', enum: ['S', 'L'], title: 'Size', description: 'Shirt size' });
  });
});

describe('enums', () => {
  it('single select, untitled', () => {
    expect(propertyOf(z.object({ size: z.enum(['S', 'M', 'L']) }), 'size')).toEqual({ type: 'string', enum: ['S', 'M', 'L'] });
  });

  it('single select, titled: a union of literals with .meta({ title })', () => {
    const size = z.union([z.literal('s').meta({ title: 'Small' }), z.literal('l').meta({ title: 'Large' })]);
    expect(propertyOf(z.object({ size }), 'size')).toEqual({
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
    });
  });

  it('multi select, untitled, with item bounds', () => {
    expect(propertyOf(z.object({ tags: z.array(z.enum(['x', 'y', 'z'])).min(1).max(2) }), 'tags')).toEqual({
      type: 'array',
      items: { type: 'string', enum: ['x', 'y', 'z'] },
      minItems: 1,
      maxItems: 2,
    });
  });

  it('multi select, titled', () => {
    const option = z.union([z.literal('r').meta({ title: 'Red' }), z.literal('g').meta({ title: 'Green' })]);
    expect(propertyOf(z.object({ colors: z.array(option) }), 'colors')).toEqual({
      type: 'array',
      items: {
        anyOf: [
          { const: 'r', title: 'Red' },
          { const: 'g', title: 'Green' },
        ],
      },
    });
  });
});

describe('optional vs required', () => {
  it('required lists exactly the fields that are neither optional nor defaulted', () => {
    const params = formOf(z.object({ a: z.string(), b: z.string().optional(), c: z.int().default(1), d: z.boolean() }));
    expect([...(params.requestedSchema.required ?? [])].sort()).toEqual(['a', 'd']);
    expect(Object.keys(params.requestedSchema.properties).sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('an all-optional form has no required field', () => {
    const params = formOf(z.object({ a: z.string().optional(), b: z.boolean().optional() }));
    expect(params.requestedSchema.required ?? []).toEqual([]);
  });
});

describe('what a form cannot express throws a TypeError naming the field, at ask time', () => {
  it.each([
    ['a nested object', 'address', z.object({ ok: z.boolean(), address: z.object({ street: z.string() }) })],
    ['an array of objects', 'people', z.object({ people: z.array(z.object({ name: z.string() })) })],
    ['a nullable field', 'nickname', z.object({ nickname: z.string().nullable() })],
    ['a union of non-literals', 'amount', z.object({ amount: z.union([z.string(), z.number()]) })],
    ['an array of free strings', 'labels', z.object({ labels: z.array(z.string()) })],
  ])('%s', (_label, field, schema) => {
    let thrown: unknown;
    try {
      ask.form('Fill in', schema);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toContain(field);
  });

  it('every offending field is named', () => {
    expect(() => ask.form('Fill in', z.object({ inner: z.object({ x: z.string() }), maybe: z.number().nullable(), fine: z.string() }))).toThrow(
      /inner[\s\S]*maybe|maybe[\s\S]*inner/,
    );
  });

  it('a raw JSON schema with a nested object throws too', () => {
    expect(() =>
      ask.form('Fill in', { type: 'object', properties: { deep: { type: 'object', properties: { x: { type: 'string' } } } } }),
    ).toThrow(TypeError);
    expect(() =>
      ask.form('Fill in', { type: 'object', properties: { deep: { type: 'object', properties: { x: { type: 'string' } } } } }),
    ).toThrow(/deep/);
  });
});

describe('raw restricted JSON schemas', () => {
  const raw = {
    type: 'object',
    properties: {
      nick: { type: 'string', title: 'Nickname', description: 'Shown to others', minLength: 3, maxLength: 12, default: 'anon' },
      mail: { type: 'string', format: 'email' },
      age: { type: 'integer', minimum: 0, maximum: 150 },
      ratio: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
      ok: { type: 'boolean', default: false },
      size: { type: 'string', enum: ['S', 'M'] },
      tier: { type: 'string', oneOf: [{ const: 'f', title: 'Free' }, { const: 'p', title: 'Pro' }] },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1, maxItems: 2 },
      colors: { type: 'array', items: { anyOf: [{ const: 'r', title: 'Red' }] } },
      legacy: { type: 'string', enum: ['x', 'y'], enumNames: ['Ex', 'Why'] },
    },
    required: ['nick', 'ok'],
  };

  it('is sent as is', () => {
    expect(formOf(raw).requestedSchema).toEqual(raw);
  });

  it('is sent as is, including its $schema', () => {
    const withDialect = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...raw };
    expect(formOf(withDialect).requestedSchema).toEqual(withDialect);
  });
});

/* ---------- over real HTTP: constraints enforced on the answer ---------- */

const FORMS: Record<string, z.ZodType | JsonSchemaObject> = {
  code: z.object({ code: z.string().regex(/^[A-Z]{3}$/) }),
  qty: z.object({ qty: z.int().gt(0).max(9) }),
  mail: z.object({ mail: z.email() }),
  day: z.object({ day: z.iso.date() }),
  pick: z.object({ size: z.enum(['S', 'M']), extras: z.array(z.enum(['a', 'b', 'c'])).max(2).optional() }),
  raw: { type: 'object', properties: { nick: { type: 'string', minLength: 3 } }, required: ['nick'] },
};

let http: RunningHttpServer;
let logger: RecordingLogger;

beforeAll(async () => {
  logger = recordingLogger();
  const server = new McpServer({ name: 'forms', version: '1.0.0' }, { logger, state: { keys: generateStateKey('forms') } });
  for (const [name, schema] of Object.entries(FORMS)) {
    server.tool(name, {}, async (_args, ctx) => {
      const answer = await ctx.ask(ask.form(`Fill in ${name}`, schema as never, { key: 'f' }));
      return JSON.stringify(answer);
    });
  }
  server.tool('nested', {}, async (_args, ctx) => {
    await ctx.ask(ask.form('Where?', z.object({ address: z.object({ street: z.string() }) }), { key: 'f' }));
    return 'unreachable';
  });
  http = await startHttp(server);
});

afterAll(async () => {
  await http.close();
});

const CAPS = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });

async function callTool(name: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const reply = await rpc(http.url, 'tools/call', { name, _meta: CAPS, ...extra });
  expect(reply.response?.error, JSON.stringify(reply.response)).toBeUndefined();
  return reply.response!.result as Record<string, unknown>;
}

/** Round 1, then a retry answering with `content`: the retry's result. */
async function answer(name: string, content: Record<string, unknown>): Promise<Record<string, unknown>> {
  const first = await callTool(name);
  expect(first.resultType).toBe('input_required');
  const requested = (first.inputRequests as Record<string, { params: unknown }>).f!.params;
  assertValid('ElicitRequestFormParams', requested);
  return callTool(name, { requestState: first.requestState, inputResponses: { f: { action: 'accept', content } } });
}

function expectAskedAgain(result: Record<string, unknown>): void {
  expect(result.resultType, JSON.stringify(result)).toBe('input_required');
  expect(Object.keys(result.inputRequests as object)).toEqual(['f']);
}

function expectAccepted(result: Record<string, unknown>, content: Record<string, unknown>): void {
  expect(result.resultType, JSON.stringify(result)).toBe('complete');
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  expect(JSON.parse(text)).toEqual({ action: 'accept', content });
}

describe('answers are checked against the full schema; an invalid one is asked again', () => {
  it.each([
    ['code', { code: 'abc' }, { code: 'ABC' }],
    ['qty', { qty: 0 }, { qty: 1 }],
    ['qty', { qty: 10 }, { qty: 9 }],
    ['qty', { qty: '3' }, { qty: 3 }],
    ['mail', { mail: 'not-an-email' }, { mail: 'ada@example.com' }],
    ['day', { day: '2026-13-45' }, { day: '2026-10-20' }],
    ['pick', { size: 'XL' }, { size: 'S' }],
    ['pick', { size: 'M', extras: ['a', 'b', 'c'] }, { size: 'M', extras: ['a', 'c'] }],
    ['pick', { extras: ['a'] }, { size: 'M', extras: ['a'] }],
    ['raw', { nick: 'ab' }, { nick: 'abc' }],
  ])('%s: %j is asked again, %j is accepted', async (name, bad, good) => {
    expectAskedAgain(await answer(name, bad));
    expectAccepted(await answer(name, good), good);
  });

  it('the pattern dropped from the wire is still enforced (and the re-asked question is the same form, saying what was wrong)', async () => {
    const first = await callTool('code');
    const again = await callTool('code', { requestState: first.requestState, inputResponses: { f: { action: 'accept', content: { code: 'abc' } } } });
    expectAskedAgain(again);
    type Asked = { params: { message: string; requestedSchema: unknown } };
    const before = (first.inputRequests as Record<string, Asked>).f!;
    const after = (again.inputRequests as Record<string, Asked>).f!;
    expect(after.params.requestedSchema).toEqual(before.params.requestedSchema);
    expect(after.params.message.startsWith(`${before.params.message}\n\nThe last answer was not accepted: `)).toBe(true);
    const done = await callTool('code', { requestState: again.requestState, inputResponses: { f: { action: 'accept', content: { code: 'XYZ' } } } });
    expectAccepted(done, { code: 'XYZ' });
  });
});

describe('a form that cannot be expressed, asked by a handler', () => {
  it('is a server programming error: -32603 to the client (never input_required), the TypeError naming the field in the log', async () => {
    const mark = logger.errors.length;
    const reply = await rpc(http.url, 'tools/call', { name: 'nested', _meta: CAPS });
    expect(reply.response).not.toHaveProperty('result');
    expect((reply.response!.error as { code: number }).code).toBe(-32603);
    expect(JSON.stringify(reply.response)).not.toContain('address');
    const logged = logger.errors.slice(mark);
    expect(logged.some((e) => e.detail instanceof TypeError && e.detail.message.includes('address')), logger.text()).toBe(true);
  });
});
