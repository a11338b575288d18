/** Resources (spec §9.2, §9.4): static resources, RFC 6570 templates, not-found errors, read cache hints. */

import { describe, expect, it } from 'vitest';
import { McpServer, type ServerOptions } from '../../src/index.js';
import { call } from '../helpers/in-process.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';

type Contents = { uri: string; mimeType?: string; text?: string; blob?: string };

function newServer(options: ServerOptions = {}): McpServer {
  return new McpServer({ name: 'resources-test', version: '1.0.0' }, { logger: quietLogger(), ...options });
}

async function read(server: McpServer, uri: string): Promise<Record<string, unknown>> {
  return resultOf(await call(server, 'resources/read', { uri }));
}

function contentsOf(result: Record<string, unknown>): Contents[] {
  return result.contents as Contents[];
}

describe('static resources', () => {
  const bytes = new Uint8Array([0, 1, 2, 250, 255, 128, 64]);
  const server = newServer();
  server.resource({ uri: 'test://docs/readme', name: 'readme', title: 'Read me', mimeType: 'text/markdown', description: 'Docs' }, () => '# Hello');
  server.resource({ uri: 'test://bin/logo', name: 'logo', mimeType: 'image/png' }, () => bytes);
  server.resource({ uri: 'test://docs/many', name: 'many' }, (uri) => [
    { uri: `${uri}/a`, text: 'A', mimeType: 'text/plain' },
    { uri: `${uri}/b`, text: 'B', mimeType: 'text/plain' },
  ]);

  it('are listed with their descriptors', async () => {
    const result = resultOf(await call(server, 'resources/list'));
    const resources = result.resources as Array<Record<string, unknown>>;
    expect(resources.map((r) => r.uri)).toEqual(['test://docs/readme', 'test://bin/logo', 'test://docs/many']);
    expect(resources[0]).toMatchObject({ uri: 'test://docs/readme', name: 'readme', title: 'Read me', mimeType: 'text/markdown', description: 'Docs' });
  });

  it('read as text contents carrying the uri and mimeType', async () => {
    const contents = contentsOf(await read(server, 'test://docs/readme'));
    expect(contents).toEqual([{ uri: 'test://docs/readme', mimeType: 'text/markdown', text: '# Hello' }]);
  });

  it('read bytes as a base64 blob with the mimeType', async () => {
    const contents = contentsOf(await read(server, 'test://bin/logo'));
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: 'test://bin/logo', mimeType: 'image/png' });
    expect(contents[0]).not.toHaveProperty('text');
    expect(Buffer.from(contents[0]!.blob!, 'base64')).toEqual(Buffer.from(bytes));
    // Standard base64, padded, so any client decoder accepts it.
    expect(contents[0]!.blob).toBe(Buffer.from(bytes).toString('base64'));
  });

  it('may return several contents for one read', async () => {
    const contents = contentsOf(await read(server, 'test://docs/many'));
    expect(contents.map((c) => [c.uri, c.text])).toEqual([
      ['test://docs/many/a', 'A'],
      ['test://docs/many/b', 'B'],
    ]);
  });

  it('reject a relative URI at registration', () => {
    expect(() => newServer().resource({ uri: 'no-scheme/path', name: 'bad' }, () => 'x')).toThrow();
  });
});

describe('resource templates', () => {
  const server = newServer();
  const seen: Array<{ uri: string; variables: Record<string, string> }> = [];
  server.resourceTemplate({ uriTemplate: 'test://items/{id}', name: 'item', mimeType: 'application/json' }, (uri, variables) => {
    seen.push({ uri, variables });
    return JSON.stringify({ id: variables.id });
  });
  server.resourceTemplate({ uriTemplate: 'file:///{+path}', name: 'file', description: 'Files' }, (uri, variables) => {
    seen.push({ uri, variables });
    return `file at ${variables.path}`;
  });

  it('are listed by resources/templates/list, not by resources/list', async () => {
    const templates = resultOf(await call(server, 'resources/templates/list')).resourceTemplates as Array<Record<string, unknown>>;
    expect(templates).toEqual([
      { uriTemplate: 'test://items/{id}', name: 'item', mimeType: 'application/json' },
      { uriTemplate: 'file:///{+path}', name: 'file', description: 'Files' },
    ]);
    expect(resultOf(await call(server, 'resources/list')).resources).toEqual([]);
  });

  it('match a simple variable and hand the handler its value', async () => {
    seen.length = 0;
    const contents = contentsOf(await read(server, 'test://items/42'));
    expect(contents).toEqual([{ uri: 'test://items/42', mimeType: 'application/json', text: '{"id":"42"}' }]);
    expect(seen).toEqual([{ uri: 'test://items/42', variables: { id: '42' } }]);
  });

  it('decode percent-encoded variable values', async () => {
    seen.length = 0;
    await read(server, 'test://items/red%20ball');
    expect(seen[0]?.variables).toEqual({ id: 'red ball' });
  });

  it('match reserved expansion {+path} across slashes, decoded', async () => {
    seen.length = 0;
    const contents = contentsOf(await read(server, 'file:///srv/data/my%20notes.txt'));
    expect(seen[0]?.variables).toEqual({ path: 'srv/data/my notes.txt' });
    expect(contents[0]).toMatchObject({ uri: 'file:///srv/data/my%20notes.txt', text: 'file at srv/data/my notes.txt' });
  });

  it('do not let a simple {id} variable swallow a slash', async () => {
    // RFC 6570 simple expansion percent-encodes "/", so "a/b" is no value of {id}.
    const error = errorOf(await call(server, 'resources/read', { uri: 'test://items/a/b' }));
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ uri: 'test://items/a/b' });
  });

  it('reject an invalid RFC 6570 template at registration', () => {
    expect(() => newServer().resourceTemplate({ uriTemplate: 'test://x/{unclosed', name: 'bad' }, () => 'x')).toThrow();
  });
});

describe('resources that do not exist', () => {
  const server = newServer();
  server.resource({ uri: 'test://exists', name: 'exists' }, () => 'here');
  server.resource({ uri: 'test://empty', name: 'empty' }, () => []);
  server.resourceTemplate({ uriTemplate: 'test://items/{id}', name: 'item' }, (_uri, { id }) => (id === 'missing' ? [] : `item ${id}`));

  it('answer an unknown URI with -32602 carrying data.uri, never with empty contents', async () => {
    const error = errorOf(await call(server, 'resources/read', { uri: 'test://nowhere' }));
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ uri: 'test://nowhere' });
  });

  it('treat a handler returning [] as not found (-32602 with data.uri)', async () => {
    const error = errorOf(await call(server, 'resources/read', { uri: 'test://empty' }));
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ uri: 'test://empty' });
    const fromTemplate = errorOf(await call(server, 'resources/read', { uri: 'test://items/missing' }));
    expect(fromTemplate.code).toBe(-32602);
    expect(fromTemplate.data).toMatchObject({ uri: 'test://items/missing' });
  });

  it('never use the removed -32002 code', async () => {
    const error = errorOf(await call(server, 'resources/read', { uri: 'test://nowhere/else' }));
    expect(error.code).not.toBe(-32002);
  });

  it('answer -32603 when a read handler throws', async () => {
    const s = newServer();
    s.resource({ uri: 'test://broken', name: 'broken' }, () => {
      throw new Error('disk on fire');
    });
    const error = errorOf(await call(s, 'resources/read', { uri: 'test://broken' }));
    expect(error.code).toBe(-32603);
    // Internal details stay on the server.
    expect(error.message).not.toContain('disk on fire');
  });

  it('disappear after removal', async () => {
    const s = newServer();
    const remove = s.resource({ uri: 'test://temp', name: 'temp' }, () => 'x');
    s.resource({ uri: 'test://keep', name: 'keep' }, () => 'y');
    remove();
    expect(resultOf(await call(s, 'resources/list')).resources).toEqual([{ uri: 'test://keep', name: 'keep' }]);
    expect(errorOf(await call(s, 'resources/read', { uri: 'test://temp' })).code).toBe(-32602);
  });
});

describe('cache hints on resources/read', () => {
  function expectHints(result: Record<string, unknown>): void {
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    expect(result.ttlMs as number).toBeGreaterThanOrEqual(0);
    expect(['public', 'private']).toContain(result.cacheScope);
  }

  it('carry valid ttlMs and cacheScope by default', async () => {
    const server = newServer();
    server.resource({ uri: 'test://a', name: 'a' }, () => 'a');
    server.resourceTemplate({ uriTemplate: 'test://t/{x}', name: 't' }, () => 't');
    expectHints(await read(server, 'test://a'));
    expectHints(await read(server, 'test://t/1'));
  });

  it('follow the server cache.read option', async () => {
    const server = newServer({ cache: { read: { ttlMs: 5_000, cacheScope: 'public' } } });
    server.resource({ uri: 'test://a', name: 'a' }, () => 'a');
    server.resourceTemplate({ uriTemplate: 'test://t/{x}', name: 't' }, () => 't');
    expect(await read(server, 'test://a')).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
    expect(await read(server, 'test://t/1')).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
  });

  it('follow a per-resource cache override, falling back to the server option for what it leaves out', async () => {
    const server = newServer({ cache: { read: { ttlMs: 5_000, cacheScope: 'public' } } });
    server.resource({ uri: 'test://own', name: 'own', cache: { ttlMs: 0, cacheScope: 'private' } }, () => 'own');
    server.resource({ uri: 'test://ttl-only', name: 'ttl-only', cache: { ttlMs: 123 } }, () => 'ttl');
    server.resourceTemplate({ uriTemplate: 'test://t/{x}', name: 't', cache: { cacheScope: 'private' } }, () => 't');
    server.resource({ uri: 'test://plain', name: 'plain' }, () => 'plain');
    expect(await read(server, 'test://own')).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(await read(server, 'test://ttl-only')).toMatchObject({ ttlMs: 123, cacheScope: 'public' });
    expect(await read(server, 'test://t/1')).toMatchObject({ ttlMs: 5_000, cacheScope: 'private' });
    expect(await read(server, 'test://plain')).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
  });
});
