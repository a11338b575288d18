/**
 * Standard Schema libraries side by side — zod v4, valibot (through
 * @valibot/to-json-schema's Standard JSON Schema) and ArkType (whose schemas
 * are functions) — as a tool's input and a form question: the JSON Schema
 * each publishes, the library's own validation of arguments and answers.
 */

import { type } from 'arktype';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, createLinkPair, McpServer, serveLink, type SchemaInput } from '../../src/index.js';
import { Client, LinkClientTransport } from '../../src/client.js';
import { quietLogger } from '../helpers/results.js';

interface Library {
  order: SchemaInput;
  confirm: SchemaInput;
}

const libraries: Record<string, Library> = {
  zod: {
    order: z.object({ item: z.string(), quantity: z.number().int().min(1) }),
    confirm: z.object({ approve: z.boolean() }),
  },
  valibot: {
    order: toStandardJsonSchema(v.object({ item: v.string(), quantity: v.pipe(v.number(), v.integer(), v.minValue(1)) })),
    confirm: toStandardJsonSchema(v.object({ approve: v.boolean() })),
  },
  arktype: {
    order: type({ item: 'string', quantity: 'number.integer >= 1' }),
    confirm: type({ approve: 'boolean' }),
  },
};

async function connected(server: McpServer, answer: Record<string, string | number | boolean | string[]>, asked: string[] = []): Promise<Client> {
  const [clientEnd, serverEnd] = createLinkPair();
  serveLink(server, serverEnd);
  const form = async (params: { message: string }) => {
    asked.push(params.message);
    return { action: 'accept' as const, content: answer };
  };
  const client = new Client({ name: 'schemas-test', version: '1.0.0' }, { era: 'modern', elicitation: { form } });
  return client.connect(new LinkClientTransport(clientEnd, 'memory'));
}

describe.each(Object.entries(libraries))('%s schemas', (name, library) => {
  const server = new McpServer({ name: `${name}-server`, version: '1.0.0' }, { logger: quietLogger() });
  server.tool('order', { description: 'Order items, once confirmed', input: library.order }, async (args, ctx) => {
    const { item, quantity } = args as { item: string; quantity: number };
    const answer = await ctx.ask(ask.form(`Order ${quantity} x ${item}?`, library.confirm, { key: 'confirm' }));
    return answer.action === 'accept' && (answer.content as { approve: boolean }).approve ? `ordered ${quantity} x ${item}` : 'not ordered';
  });

  it('publishes the JSON Schema the library describes itself with', async () => {
    const client = await connected(server, { approve: true });
    const [tool] = await client.listAllTools();
    expect(tool!.inputSchema).toMatchObject({ type: 'object', properties: { item: { type: 'string' }, quantity: { type: 'integer' } }, required: ['item', 'quantity'] });
    await client.close();
  });

  it('validates arguments with the library itself, then asks through a form from its schema', async () => {
    const asked: string[] = [];
    const client = await connected(server, { approve: true }, asked);
    const result = await client.callTool('order', { item: 'tea', quantity: 2 });
    expect(result.content).toEqual([{ type: 'text', text: 'ordered 2 x tea' }]);
    expect(asked).toEqual(['Order 2 x tea?']);
    const bad = await client.callTool('order', { item: 'tea', quantity: 0 });
    expect(bad.isError).toBe(true);
    await client.close();
  });

  it('checks a form answer against the schema the question was asked with', async () => {
    const client = await connected(server, { approve: 'yes' });
    await expect(client.callTool('order', { item: 'tea', quantity: 1 })).rejects.toThrow(/approve/);
    await client.close();
  });
});
