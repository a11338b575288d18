/** Tools (spec §9.1): registration, schemas, tools/list, tools/call results and errors. */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '../../src/index.js';
import type { CallToolResult } from '../../src/protocol.js';
import { call } from '../helpers/in-process.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';

type ToolDescriptor = { name: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> } & Record<string, unknown>;

function newServer(): McpServer {
  return new McpServer({ name: 'tools-test', version: '1.0.0' }, { logger: quietLogger() });
}

async function listTools(server: McpServer): Promise<ToolDescriptor[]> {
  return resultOf(await call(server, 'tools/list')).tools as ToolDescriptor[];
}

async function findTool(server: McpServer, name: string): Promise<ToolDescriptor> {
  const tool = (await listTools(server)).find((t) => t.name === name);
  expect(tool, `tool ${name} is listed`).toBeDefined();
  return tool!;
}

function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

describe('tools with a zod v4 input schema', () => {
  const server = newServer();
  const calls: unknown[] = [];
  server.tool(
    'order',
    { description: 'Order items', input: z.object({ item: z.string(), quantity: z.number().int().min(1) }) },
    (args) => {
      calls.push(args);
      return `ordered ${args.quantity} x ${args.item}`;
    },
  );

  it('publishes the schema as a JSON Schema object with type "object" at the root', async () => {
    const tool = await findTool(server, 'order');
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.inputSchema.properties).toMatchObject({ item: { type: 'string' }, quantity: { type: 'integer' } });
    expect(tool.inputSchema.required).toEqual(expect.arrayContaining(['item', 'quantity']));
    expect(tool.description).toBe('Order items');
  });

  it('passes validated arguments to the handler', async () => {
    calls.length = 0;
    const result = resultOf(await call(server, 'tools/call', { name: 'order', arguments: { item: 'pen', quantity: 3 } }));
    expect(result.isError ?? false).toBe(false);
    expect(result.content).toEqual([{ type: 'text', text: 'ordered 3 x pen' }]);
    expect(calls).toEqual([{ item: 'pen', quantity: 3 }]);
  });

  it('answers bad arguments with an isError result naming the problem, not a JSON-RPC error', async () => {
    calls.length = 0;
    const reply = await call(server, 'tools/call', { name: 'order', arguments: { item: 'pen', quantity: 0 } });
    const result = resultOf(reply);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('quantity');
    // The handler must not run on arguments that fail validation.
    expect(calls).toEqual([]);
  });

  it('treats missing required arguments and absent arguments as tool execution errors', async () => {
    const missing = resultOf(await call(server, 'tools/call', { name: 'order', arguments: { quantity: 2 } }));
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('item');
    const absent = resultOf(await call(server, 'tools/call', { name: 'order' }));
    expect(absent.isError).toBe(true);
    expect(calls).toEqual([]);
  });
});

describe('tools with a raw JSON Schema 2020-12 object', () => {
  const schema = {
    type: 'object',
    $defs: {
      sku: { $anchor: 'sku', type: 'string', pattern: '^[A-Z]{3}-[0-9]{3}$' },
    },
    properties: {
      sku: { $ref: '#sku' },
      region: { type: 'string', 'x-mcp-header': 'Region', enum: ['eu', 'us'] },
      express: { type: 'boolean' },
      fee: { type: 'number' },
    },
    required: ['sku'],
    allOf: [{ not: { required: ['forbidden'] } }],
    if: { properties: { express: { const: true } }, required: ['express'] },
    then: { required: ['fee'] },
    else: { not: { required: ['fee'] } },
    'x-vendor-note': { anything: ['goes', 1, null] },
  };
  const pristine = structuredClone(schema);
  const server = newServer();
  const seen: unknown[] = [];
  server.tool('ship', { input: schema }, (args) => {
    seen.push(args);
    return 'shipped';
  });

  it('publishes the schema verbatim, unknown keywords included', async () => {
    const tool = await findTool(server, 'ship');
    expect(tool.inputSchema).toEqual(pristine);
    // Registration must not have altered the caller's object either.
    expect(schema).toEqual(pristine);
  });

  it('validates arguments with the schema, including $ref to an $anchor and if/then/else', async () => {
    const ok = resultOf(await call(server, 'tools/call', { name: 'ship', arguments: { sku: 'ABC-123', region: 'eu' } }));
    expect(ok.isError ?? false).toBe(false);
    expect(seen).toEqual([{ sku: 'ABC-123', region: 'eu' }]);

    const badSku = resultOf(await call(server, 'tools/call', { name: 'ship', arguments: { sku: 'abc' } }));
    expect(badSku.isError).toBe(true);
    // express:true requires fee (then-branch).
    const noFee = resultOf(await call(server, 'tools/call', { name: 'ship', arguments: { sku: 'ABC-123', express: true } }));
    expect(noFee.isError).toBe(true);
    // Without express, fee is forbidden (else-branch).
    const strayFee = resultOf(await call(server, 'tools/call', { name: 'ship', arguments: { sku: 'ABC-123', fee: 2 } }));
    expect(strayFee.isError).toBe(true);
    expect(seen).toHaveLength(1);
  });
});

describe('output schemas and structuredContent', () => {
  const logger = quietLogger();
  const server = new McpServer({ name: 'tools-test', version: '1.0.0' }, { logger });
  const rawOutput = { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'], 'x-note': 1 };
  server.tool('sum', { input: z.object({ values: z.array(z.number()) }), output: z.object({ total: z.number() }) }, (args) =>
    // CallToolResult types `content` as required; the spec lets the server fill it in from structuredContent.
    ({ structuredContent: { total: args.values.reduce((a, b) => a + b, 0) } }) as unknown as CallToolResult,
  );
  server.tool('sum-raw', { output: rawOutput }, () => ({ content: [{ type: 'text', text: '{"total":7}' }], structuredContent: { total: 7 } }));
  server.tool('liar', { output: z.object({ total: z.number() }) }, () => ({ content: [], structuredContent: { total: 'many' } }));

  it('publishes outputSchema (zod converted; raw kept verbatim)', async () => {
    const sum = await findTool(server, 'sum');
    expect(sum.outputSchema).toMatchObject({ type: 'object', properties: { total: { type: 'number' } } });
    const raw = await findTool(server, 'sum-raw');
    expect(raw.outputSchema).toEqual(rawOutput);
  });

  it('mirrors structuredContent as JSON text when the handler omits content', async () => {
    const result = resultOf(await call(server, 'tools/call', { name: 'sum', arguments: { values: [1, 2, 3.5] } }));
    expect(result.structuredContent).toEqual({ total: 6.5 });
    const content = result.content as Array<{ type: string; text: string }>;
    expect(content).toHaveLength(1);
    expect(content[0]!.type).toBe('text');
    expect(JSON.parse(content[0]!.text)).toEqual({ total: 6.5 });
  });

  it('keeps content the handler gave alongside structuredContent', async () => {
    const result = resultOf(await call(server, 'tools/call', { name: 'sum-raw' }));
    expect(result.content).toEqual([{ type: 'text', text: '{"total":7}' }]);
    expect(result.structuredContent).toEqual({ total: 7 });
  });

  it('accepts structuredContent that is not an object (any JSON value) and mirrors it too', async () => {
    const s = newServer();
    s.tool('list', { output: { type: 'array', items: { type: 'integer' } } }, () => ({ structuredContent: [1, 2, 3] }) as unknown as CallToolResult);
    const result = resultOf(await call(s, 'tools/call', { name: 'list' }));
    expect(result.structuredContent).toEqual([1, 2, 3]);
    const content = result.content as Array<{ type: string; text: string }>;
    expect(content).toHaveLength(1);
    expect(JSON.parse(content[0]!.text)).toEqual([1, 2, 3]);
  });

  it('answers -32603 when the handler breaks its own output schema', async () => {
    const error = errorOf(await call(server, 'tools/call', { name: 'liar' }));
    expect(error.code).toBe(-32603);
  });
});

describe('tools without input', () => {
  const server = newServer();
  server.tool('ping-ish', {}, () => 'pong');

  it('get an inputSchema of type "object"', async () => {
    const tool = await findTool(server, 'ping-ish');
    expect(tool.inputSchema).toMatchObject({ type: 'object' });
  });

  it('can be called with no arguments or with an empty object', async () => {
    expect(resultOf(await call(server, 'tools/call', { name: 'ping-ish' })).content).toEqual([{ type: 'text', text: 'pong' }]);
    expect(resultOf(await call(server, 'tools/call', { name: 'ping-ish', arguments: {} })).content).toEqual([
      { type: 'text', text: 'pong' },
    ]);
  });
});

describe('registration checks', () => {
  it.each(['', 'has space', 'a,b', 'slash/name', 'naïve', 'x'.repeat(129), 'semi;colon'])('rejects the tool name %j', (name) => {
    expect(() => newServer().tool(name, {}, () => 'x')).toThrow();
  });

  it('accepts names using every allowed character class, up to 128 characters', () => {
    const server = newServer();
    expect(() => server.tool('Az09_-.', {}, () => 'x')).not.toThrow();
    expect(() => server.tool('y'.repeat(128), {}, () => 'x')).not.toThrow();
  });

  it('rejects a duplicate name', () => {
    const server = newServer();
    server.tool('twice', {}, () => 'x');
    expect(() => server.tool('twice', {}, () => 'y')).toThrow();
  });

  const prop = (p: Record<string, unknown>) => ({ type: 'object', properties: p });
  it.each([
    ['empty name', prop({ a: { type: 'string', 'x-mcp-header': '' } })],
    ['non-token name (space)', prop({ a: { type: 'string', 'x-mcp-header': 'My Header' } })],
    ['non-token name (colon)', prop({ a: { type: 'string', 'x-mcp-header': 'a:b' } })],
    ['control characters', prop({ a: { type: 'string', 'x-mcp-header': 'A\r\nB' } })],
    ['non-string name', prop({ a: { type: 'string', 'x-mcp-header': 42 } })],
    ['case-insensitive duplicate', prop({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } })],
    ['number property', prop({ a: { type: 'number', 'x-mcp-header': 'Amount' } })],
    ['object property', prop({ a: { type: 'object', 'x-mcp-header': 'Obj' } })],
    ['array property', prop({ a: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'List' } })],
    ['property under items', prop({ a: { type: 'array', items: { type: 'object', properties: { b: { type: 'string', 'x-mcp-header': 'B' } } } } })],
    ['property under oneOf', { type: 'object', oneOf: [{ properties: { b: { type: 'string', 'x-mcp-header': 'B' } } }] }],
  ])('rejects an invalid x-mcp-header annotation: %s', (_label, schema) => {
    expect(() => newServer().tool('annotated', { input: schema }, () => 'x')).toThrow();
  });

  it('accepts x-mcp-header on string, integer and boolean properties, nested through properties', () => {
    const schema = prop({
      s: { type: 'string', 'x-mcp-header': 'S' },
      i: { type: 'integer', 'x-mcp-header': 'I' },
      b: { type: 'boolean', 'x-mcp-header': 'B' },
      outer: prop({ inner: { type: 'string', 'x-mcp-header': 'Inner' } }),
    });
    expect(() => newServer().tool('annotated', { input: schema }, () => 'x')).not.toThrow();
  });
});

describe('tools/list and tools/call behaviour', () => {
  it('answers an unknown tool with -32602', async () => {
    const server = newServer();
    server.tool('known', {}, () => 'x');
    const error = errorOf(await call(server, 'tools/call', { name: 'unknown-tool', arguments: {} }));
    expect(error.code).toBe(-32602);
  });

  it('lists tools in the same order on every call and on every instance of the same program', async () => {
    const build = (): McpServer => {
      const s = newServer();
      for (const name of ['zeta', 'alpha', 'mid', 'Beta', 'a.b']) s.tool(name, {}, () => name);
      return s;
    };
    const one = build();
    const two = build();
    const first = (await listTools(one)).map((t) => t.name);
    expect([...first].sort()).toEqual(['Beta', 'a.b', 'alpha', 'mid', 'zeta'].sort());
    expect((await listTools(one)).map((t) => t.name)).toEqual(first);
    expect((await listTools(two)).map((t) => t.name)).toEqual(first);
  });

  it('turns a returned string into exactly one text block', async () => {
    const server = newServer();
    server.tool('hello', {}, () => 'hello, world');
    const result = resultOf(await call(server, 'tools/call', { name: 'hello' }));
    expect(result.content).toEqual([{ type: 'text', text: 'hello, world' }]);
    expect(result.resultType).toBe('complete');
  });

  it('passes a full CallToolResult through, isError included', async () => {
    const server = newServer();
    server.tool('fails', {}, () => ({ content: [{ type: 'text', text: 'upstream API down' }], isError: true }));
    const result = resultOf(await call(server, 'tools/call', { name: 'fails' }));
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'upstream API down' }]);
  });

  it('removes a tool through the function registration returned', async () => {
    const server = newServer();
    server.tool('stays', {}, () => 'x');
    const remove = server.tool('goes', {}, () => 'y');
    expect((await listTools(server)).map((t) => t.name)).toContain('goes');
    remove();
    expect((await listTools(server)).map((t) => t.name)).toEqual(['stays']);
    expect(errorOf(await call(server, 'tools/call', { name: 'goes' })).code).toBe(-32602);
    // Removing twice is harmless, and the name is free again.
    expect(() => remove()).not.toThrow();
    expect(() => server.tool('goes', {}, () => 'again')).not.toThrow();
  });

  it('publishes title, annotations and _meta as given', async () => {
    const server = newServer();
    server.tool(
      'described',
      { title: 'Described tool', annotations: { readOnlyHint: true, title: 'Alt' }, _meta: { 'com.example/x': 1 } },
      () => 'x',
    );
    const tool = await findTool(server, 'described');
    expect(tool.title).toBe('Described tool');
    expect(tool.annotations).toEqual({ readOnlyHint: true, title: 'Alt' });
    expect(tool._meta).toEqual({ 'com.example/x': 1 });
  });
});
