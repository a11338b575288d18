/** Prompts (spec §9.3): prompts/list, prompts/get, argument checks, return forms. */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '../../src/index.js';
import { call } from '../helpers/in-process.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';

type PromptDescriptor = { name: string; arguments?: Array<{ name: string; description?: string; required?: boolean }> } & Record<string, unknown>;

function newServer(): McpServer {
  return new McpServer({ name: 'prompts-test', version: '1.0.0' }, { logger: quietLogger() });
}

async function listPrompts(server: McpServer): Promise<PromptDescriptor[]> {
  return resultOf(await call(server, 'prompts/list')).prompts as PromptDescriptor[];
}

describe('prompts with a list of string arguments', () => {
  const server = newServer();
  const received: unknown[] = [];
  server.prompt(
    'review',
    {
      title: 'Code review',
      description: 'Review a change',
      arguments: [
        { name: 'language', description: 'Programming language', required: true },
        { name: 'focus', description: 'What to look at' },
      ],
    },
    (args) => {
      received.push(args);
      return `Review this ${args.language} code${args.focus ? ` focusing on ${args.focus}` : ''}.`;
    },
  );

  it('are listed with their arguments', async () => {
    const prompts = await listPrompts(server);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({
      name: 'review',
      title: 'Code review',
      description: 'Review a change',
      arguments: [
        { name: 'language', description: 'Programming language', required: true },
        { name: 'focus', description: 'What to look at' },
      ],
    });
  });

  it('get with string arguments renders the handler output as one user text message', async () => {
    received.length = 0;
    const result = resultOf(await call(server, 'prompts/get', { name: 'review', arguments: { language: 'Rust', focus: 'safety' } }));
    expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Review this Rust code focusing on safety.' } }]);
    expect(received).toEqual([{ language: 'Rust', focus: 'safety' }]);
    // prompts/get is not cacheable.
    expect(result).not.toHaveProperty('ttlMs');
  });

  it('answer a missing required argument with -32602, without running the handler', async () => {
    received.length = 0;
    const error = errorOf(await call(server, 'prompts/get', { name: 'review', arguments: { focus: 'style' } }));
    expect(error.code).toBe(-32602);
    expect(errorOf(await call(server, 'prompts/get', { name: 'review' })).code).toBe(-32602);
    expect(received).toEqual([]);
  });

  it('answer a non-string argument with -32602', async () => {
    received.length = 0;
    for (const bad of [42, true, null, ['Rust'], { lang: 'Rust' }]) {
      const error = errorOf(await call(server, 'prompts/get', { name: 'review', arguments: { language: bad } }));
      expect(error.code, JSON.stringify(bad)).toBe(-32602);
    }
    expect(received).toEqual([]);
  });

  it('answer an unknown prompt with -32602', async () => {
    const error = errorOf(await call(server, 'prompts/get', { name: 'no-such-prompt', arguments: {} }));
    expect(error.code).toBe(-32602);
  });
});

describe('prompts with a zod object as arguments schema', () => {
  const server = newServer();
  const received: unknown[] = [];
  server.prompt(
    'summarize',
    {
      arguments: z.object({
        topic: z.string().describe('What to summarize'),
        tone: z.string().optional().describe('Tone of voice'),
      }),
    },
    (args) => {
      received.push(args);
      return `Summarize ${args.topic}${args.tone ? ` in a ${args.tone} tone` : ''}.`;
    },
  );

  it('derive the wire argument list with required flags', async () => {
    const [prompt] = await listPrompts(server);
    expect(prompt?.name).toBe('summarize');
    const args = prompt?.arguments ?? [];
    expect(args.map((a) => a.name)).toEqual(['topic', 'tone']);
    expect(args[0]).toMatchObject({ name: 'topic', description: 'What to summarize', required: true });
    expect(args[1]).toMatchObject({ name: 'tone', description: 'Tone of voice' });
    expect(args[1]?.required ?? false).toBe(false);
  });

  it('validate arguments: good ones reach the handler, missing or non-string ones get -32602', async () => {
    received.length = 0;
    const ok = resultOf(await call(server, 'prompts/get', { name: 'summarize', arguments: { topic: 'MCP' } }));
    expect(ok.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarize MCP.' } }]);
    expect(received).toEqual([{ topic: 'MCP' }]);
    expect(errorOf(await call(server, 'prompts/get', { name: 'summarize', arguments: { tone: 'dry' } })).code).toBe(-32602);
    expect(errorOf(await call(server, 'prompts/get', { name: 'summarize', arguments: { topic: 7 } })).code).toBe(-32602);
    expect(received).toHaveLength(1);
  });
});

describe('prompt return forms', () => {
  const server = newServer();
  server.prompt('as-string', {}, () => 'Just text');
  server.prompt('as-messages', {}, () => [
    { role: 'user', content: { type: 'text', text: 'Question?' } },
    { role: 'assistant', content: { type: 'text', text: 'Answer.' } },
    { role: 'user', content: { type: 'resource', resource: { uri: 'test://doc', mimeType: 'text/plain', text: 'doc body' } } },
  ]);
  server.prompt('as-result', {}, () => ({
    description: 'A full result',
    messages: [{ role: 'assistant', content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' } }],
  }));

  it('a string becomes one user message', async () => {
    const result = resultOf(await call(server, 'prompts/get', { name: 'as-string' }));
    expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Just text' } }]);
    expect(result.resultType).toBe('complete');
  });

  it('a messages array is returned as the messages', async () => {
    const result = resultOf(await call(server, 'prompts/get', { name: 'as-messages' }));
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Question?' } },
      { role: 'assistant', content: { type: 'text', text: 'Answer.' } },
      { role: 'user', content: { type: 'resource', resource: { uri: 'test://doc', mimeType: 'text/plain', text: 'doc body' } } },
    ]);
  });

  it('a full GetPromptResult keeps its description and messages', async () => {
    const result = resultOf(await call(server, 'prompts/get', { name: 'as-result' }));
    expect(result.description).toBe('A full result');
    expect(result.messages).toEqual([{ role: 'assistant', content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' } }]);
  });

  it('prompts are listed in a stable order and removable', async () => {
    const names = (await listPrompts(server)).map((p) => p.name);
    expect(names).toEqual(['as-string', 'as-messages', 'as-result']);
    const s = newServer();
    const remove = s.prompt('temp', {}, () => 'x');
    s.prompt('keep', {}, () => 'y');
    remove();
    expect((await listPrompts(s)).map((p) => p.name)).toEqual(['keep']);
    expect(errorOf(await call(s, 'prompts/get', { name: 'temp' })).code).toBe(-32602);
  });

  it('rejects a duplicate prompt name at registration', () => {
    const s = newServer();
    s.prompt('dup', {}, () => 'x');
    expect(() => s.prompt('dup', {}, () => 'y')).toThrow();
  });
});
