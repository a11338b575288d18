/** Caching hints (spec §9.4) and pagination (spec §9.5) of the list methods, over real HTTP. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer, type ServerOptions } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { rpc, startHttp } from '../helpers/http.js';
import { call } from '../helpers/in-process.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';

const PAGE_SIZE = 3;

/**
 * The same registrations on any server. "shared" opens the second page of both
 * tools and prompts, so a tools cursor names an item prompts/list also has.
 */
function populate(server: McpServer): McpServer {
  for (const name of ['tool-a', 'tool-b', 'tool-c', 'shared', 'tool-e', 'tool-f', 'tool-g', 'tool-h']) server.tool(name, {}, () => name);
  for (const name of ['prompt-a', 'prompt-b', 'prompt-c', 'shared', 'prompt-e', 'prompt-f', 'prompt-g']) server.prompt(name, {}, () => name);
  for (let i = 0; i < 7; i++) server.resource({ uri: `test://res/${i}`, name: `res-${i}` }, () => `r${i}`);
  for (let i = 0; i < 5; i++) server.resourceTemplate({ uriTemplate: `test://tpl${i}/{id}`, name: `tpl-${i}` }, () => 't');
  return server;
}

function newServer(options: ServerOptions = {}): McpServer {
  return populate(new McpServer({ name: 'cache-page-test', version: '1.0.0' }, { logger: quietLogger(), ...options }));
}

const LISTS = [
  { method: 'tools/list', field: 'tools', key: 'name' },
  { method: 'prompts/list', field: 'prompts', key: 'name' },
  { method: 'resources/list', field: 'resources', key: 'uri' },
  { method: 'resources/templates/list', field: 'resourceTemplates', key: 'uriTemplate' },
] as const;

function expectCacheHints(result: Record<string, unknown>): void {
  expect(Number.isInteger(result.ttlMs), `ttlMs ${String(result.ttlMs)}`).toBe(true);
  expect(result.ttlMs as number).toBeGreaterThanOrEqual(0);
  expect(['public', 'private']).toContain(result.cacheScope);
}

describe('cache hints on every cacheable result', () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    running = await startHttp(newServer());
  });
  afterAll(() => running.close());

  it.each(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'])('%s carries ttlMs and cacheScope', async (method) => {
    const reply = await rpc(running.url, method, {});
    expect(reply.status).toBe(200);
    expectCacheHints(resultOf(reply));
  });

  it('resources/read carries ttlMs and cacheScope, for static resources and template matches', async () => {
    expectCacheHints(resultOf(await rpc(running.url, 'resources/read', { uri: 'test://res/0' })));
    expectCacheHints(resultOf(await rpc(running.url, 'resources/read', { uri: 'test://tpl2/abc' })));
  });

  it('non-cacheable results carry none (tools/call, prompts/get)', async () => {
    expect(resultOf(await rpc(running.url, 'tools/call', { name: 'shared' }))).not.toHaveProperty('ttlMs');
    expect(resultOf(await rpc(running.url, 'prompts/get', { name: 'shared' }))).not.toHaveProperty('ttlMs');
  });
});

describe('per-list cache options', () => {
  it('are honoured for each cacheable result', async () => {
    const server = newServer({
      cache: {
        discover: { ttlMs: 1_000, cacheScope: 'public' },
        tools: { ttlMs: 2_000, cacheScope: 'private' },
        prompts: { ttlMs: 0, cacheScope: 'private' },
        resources: { ttlMs: 4_000, cacheScope: 'public' },
        templates: { ttlMs: 5_000, cacheScope: 'private' },
        read: { ttlMs: 6_000, cacheScope: 'public' },
      },
    });
    expect(resultOf(await call(server, 'server/discover'))).toMatchObject({ ttlMs: 1_000, cacheScope: 'public' });
    expect(resultOf(await call(server, 'tools/list'))).toMatchObject({ ttlMs: 2_000, cacheScope: 'private' });
    expect(resultOf(await call(server, 'prompts/list'))).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(resultOf(await call(server, 'resources/list'))).toMatchObject({ ttlMs: 4_000, cacheScope: 'public' });
    expect(resultOf(await call(server, 'resources/templates/list'))).toMatchObject({ ttlMs: 5_000, cacheScope: 'private' });
    expect(resultOf(await call(server, 'resources/read', { uri: 'test://res/1' }))).toMatchObject({ ttlMs: 6_000, cacheScope: 'public' });
  });

  it('leave the other lists valid when only one is set', async () => {
    const server = newServer({ cache: { tools: { cacheScope: 'private' } } });
    const tools = resultOf(await call(server, 'tools/list'));
    expect(tools.cacheScope).toBe('private');
    expectCacheHints(tools);
    expectCacheHints(resultOf(await call(server, 'prompts/list')));
  });
});

describe('pagination with a small pageSize', () => {
  let running: RunningHttpServer;
  const unpaged = newServer();
  beforeAll(async () => {
    running = await startHttp(newServer({ pageSize: PAGE_SIZE, cache: { tools: { cacheScope: 'private' } } }));
  });
  afterAll(() => running.close());

  async function walk(method: string, field: string): Promise<{ pages: Array<Record<string, unknown>>; items: Array<Record<string, unknown>> }> {
    const pages: Array<Record<string, unknown>> = [];
    let cursor: unknown;
    do {
      const result = resultOf(await rpc(running.url, method, cursor === undefined ? {} : { cursor }));
      pages.push(result);
      cursor = result.nextCursor;
      if (cursor !== undefined) expect(typeof cursor, 'cursors are strings').toBe('string');
      expect(pages.length, 'the walk terminates').toBeLessThan(50);
    } while (cursor !== undefined);
    return { pages, items: pages.flatMap((p) => p[field] as Array<Record<string, unknown>>) };
  }

  it.each(LISTS)('$method: walking nextCursor yields every item exactly once, in order', async ({ method, field, key }) => {
    const { pages, items } = await walk(method, field);
    const all = resultOf(await call(unpaged, method))[field] as Array<Record<string, unknown>>;
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect((page[field] as unknown[]).length).toBeLessThanOrEqual(PAGE_SIZE);
    expect(items.map((i) => i[key])).toEqual(all.map((i) => i[key]));
    expect(new Set(items.map((i) => i[key])).size).toBe(items.length);
    expect(items).toEqual(all);
  });

  it.each(LISTS)('$method: every page carries cache hints with the same cacheScope', async ({ method, field }) => {
    const { pages } = await walk(method, field);
    for (const page of pages) expectCacheHints(page);
    expect(new Set(pages.map((p) => p.cacheScope)).size).toBe(1);
  });

  it('honours the list cache option on every page', async () => {
    const { pages } = await walk('tools/list', 'tools');
    expect(pages.map((p) => p.cacheScope)).toEqual(pages.map(() => 'private'));
  });

  it('a cursor can be reused (stable cursors)', async () => {
    const first = resultOf(await rpc(running.url, 'tools/list', {}));
    const cursor = first.nextCursor as string;
    const a = resultOf(await rpc(running.url, 'tools/list', { cursor }));
    const b = resultOf(await rpc(running.url, 'tools/list', { cursor }));
    expect(a.tools).toEqual(b.tools);
  });

  async function cursorFrom(method: string): Promise<string> {
    const result = resultOf(await rpc(running.url, method, {}));
    expect(typeof result.nextCursor).toBe('string');
    return result.nextCursor as string;
  }

  it('rejects a tools cursor on prompts/list, and other foreign cursors, with -32602 (even where item names overlap)', async () => {
    const toolsCursor = await cursorFrom('tools/list');
    const promptsCursor = await cursorFrom('prompts/list');
    const resourcesCursor = await cursorFrom('resources/list');
    const templatesCursor = await cursorFrom('resources/templates/list');
    const foreign: Array<[string, string]> = [
      ['prompts/list', toolsCursor],
      ['tools/list', promptsCursor],
      ['resources/templates/list', resourcesCursor],
      ['resources/list', templatesCursor],
    ];
    for (const [method, cursor] of foreign) {
      expect(errorOf(await rpc(running.url, method, { cursor })).code, `${method} with a foreign cursor`).toBe(-32602);
    }
  });

  it.each([
    ['garbage text', 'not-a-cursor'],
    ['base64 of junk', Buffer.from('{"x":1}').toString('base64')],
    ['an integer', 3],
    ['null', null],
    ['an object', { page: 2 }],
    ['an array', ['tools', 'tool-d']],
    ['a boolean', true],
  ])('rejects %s as cursor with -32602 on every list', async (_label, cursor) => {
    for (const { method } of LISTS) {
      expect(errorOf(await rpc(running.url, method, { cursor })).code, method).toBe(-32602);
    }
  });
});
