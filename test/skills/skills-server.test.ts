/**
 * A Tessera server with the Skills extension, over real HTTP (SEP-2640
 * "Capability Negotiation", "Listing Skills", "Getting a Skill", "Reading
 * Skill Content", "Reading Directories", "Error Handling"), in both eras.
 * Every reply is checked against the spec's result shapes (test/helpers/wire-schema.ts).
 */

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/index.js';
import type { RunningHttpServer } from '../../src/node.js';
import { skillLibrary, skills, type SkillSource } from '../../src/skills.js';
import { rpc, startHttp } from '../helpers/http.js';
import { legacyInitialize, sessionRequest } from '../helpers/legacy-http.js';

type Json = Record<string, any>;

const skillMd = (name: string, extra = ''): string => `---\nname: ${name}\ndescription: The ${name} skill\n${extra}---\n\nSee templates/.\n`;
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff]);
const SOURCES: SkillSource[] = [
  { files: { 'SKILL.md': skillMd('pdf-tools', 'license: MIT\n'), 'templates/invoice.md': '# Invoice\n', 'templates/regional/eu.md': '# EU\n', 'assets/logo.png': LOGO } },
  { path: 'acme/billing/refunds', files: { 'SKILL.md': skillMd('refunds') } },
  { files: { 'SKILL.md': skillMd('git-flow') } },
];
const sha256 = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The raw bytes of a resources/read content item: a text's UTF-8, a blob's base64. */
function bytesOf(contents: Json): Uint8Array {
  return typeof contents.text === 'string' ? new TextEncoder().encode(contents.text) : new Uint8Array(Buffer.from(contents.blob, 'base64'));
}

let running: RunningHttpServer;
let url: string;

beforeAll(async () => {
  const server = new McpServer({ name: 'skills-test', version: '1.0.0' }, { extensions: [skills(await skillLibrary(SOURCES), { pageSize: 2 })] });
  running = await startHttp(server);
  url = running.url;
});

afterAll(async () => {
  await running.close();
});

async function result(method: string, params: Json = {}): Promise<Json> {
  const reply = await rpc(url, method, params);
  expect(reply.response, JSON.stringify(reply.response)).toHaveProperty('result');
  return reply.response!.result as Json;
}

async function errorOf(method: string, params: Json): Promise<Json> {
  const reply = await rpc(url, method, params);
  expect(reply.response).toHaveProperty('error');
  return reply.response!.error as Json;
}

async function listAll(): Promise<{ entries: Json[]; pages: Json[] }> {
  const pages: Json[] = [];
  let cursor: string | undefined;
  do {
    const page = await result('skills/list', cursor === undefined ? {} : { cursor });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages.length < 10);
  return { entries: pages.flatMap((p) => p.skills), pages };
}

describe('the capability', () => {
  it('declares the extension inline (with directoryRead) and the resources capability it depends on', async () => {
    const discovered = await result('server/discover');
    expect(discovered.capabilities.extensions['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
    expect(discovered.capabilities.resources).toBeDefined();
  });

  it('declares resources even with no skills, and leaves directoryRead out when the server does not serve it', async () => {
    const server = new McpServer({ name: 'empty', version: '1.0.0' }, { extensions: [skills(await skillLibrary([]), { directoryRead: false })] });
    expect(server.capabilities()).toMatchObject({ resources: {}, extensions: { 'io.modelcontextprotocol/skills': {} } });
    const other = await startHttp(server);
    try {
      const reply = await rpc(other.url, 'resources/directory/read', { uri: 'skill://x' });
      expect((reply.response!.error as Json).code).toBe(-32601);
      expect((await rpc(other.url, 'skills/list', {})).response!.result).toMatchObject({ skills: [] });
    } finally {
      await other.close();
    }
  });

  it('is absent, and its methods unknown, on a server without the extension', async () => {
    const server = new McpServer({ name: 'plain', version: '1.0.0' });
    server.tool('t', { description: 't' }, () => 'x');
    expect(server.capabilities().extensions).toBeUndefined();
    const other = await startHttp(server);
    try {
      expect(((await rpc(other.url, 'skills/list', {})).response!.error as Json).code).toBe(-32601);
    } finally {
      await other.close();
    }
  });
});

describe('skills/list', () => {
  it('pages through every skill, each entry whole on one page, with caching hints on every page', async () => {
    const { entries, pages } = await listAll();
    expect(pages).toHaveLength(2);
    for (const page of pages) expect(page).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(entries.map((e) => e.uri)).toEqual(['skill://pdf-tools/SKILL.md', 'skill://acme/billing/refunds/SKILL.md', 'skill://git-flow/SKILL.md']);
    expect(entries[0]!.frontmatter).toEqual({ name: 'pdf-tools', description: 'The pdf-tools skill', license: 'MIT' });
  });

  it('refuses a cursor it did not make with -32602', async () => {
    expect((await errorOf('skills/list', { cursor: 'not-a-cursor' })).code).toBe(-32602);
  });
});

describe('skills/get', () => {
  it('answers the entry of a listed skill, as the listing has it, with caching hints and no cursor', async () => {
    const { entries } = await listAll();
    const got = await result('skills/get', { uri: 'skill://acme/billing/refunds/SKILL.md' });
    expect(got.skill).toEqual(entries[1]);
    expect(got).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(got).not.toHaveProperty('nextCursor');
  });

  it.each([
    ['a skill it does not serve', { uri: 'skill://nope/SKILL.md' }, /No skill is served at skill:\/\/nope\/SKILL\.md/],
    ['a file that is not a SKILL.md', { uri: 'skill://pdf-tools/templates/invoice.md' }, /No skill is served/],
    ['no uri', {}, /uri must be a string/],
  ])('answers -32602 for %s', async (_what, params, message) => {
    const error = await errorOf('skills/get', params);
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(message);
  });
});

describe('the files, through resources/read', () => {
  it('serves every listed file with the bytes its digest and size describe (text and binary alike)', async () => {
    const { entries } = await listAll();
    const files = entries.flatMap((e) => e.resources as Json[]);
    expect(files.length).toBe(6);
    for (const file of files) {
      const read = await result('resources/read', { uri: file.uri });
      const bytes = bytesOf(read.contents[0]);
      expect(bytes.length, file.uri).toBe(file.size);
      expect(sha256(bytes), file.uri).toBe(file.digest);
    }
    const logo = await result('resources/read', { uri: 'skill://pdf-tools/assets/logo.png' });
    expect(logo.contents[0]).toMatchObject({ mimeType: 'image/png', blob: Buffer.from(LOGO).toString('base64') });
  });

  it('lists each SKILL.md as a resource named and described by its frontmatter, as text/markdown', async () => {
    const listed = (await result('resources/list')).resources as Json[];
    expect(listed.find((r) => r.uri === 'skill://pdf-tools/SKILL.md')).toMatchObject({ name: 'pdf-tools', description: 'The pdf-tools skill', mimeType: 'text/markdown' });
  });

  it('answers -32602 for a skill file it does not serve', async () => {
    expect((await errorOf('resources/read', { uri: 'skill://pdf-tools/secret.md' })).code).toBe(-32602);
  });
});

describe('resources/directory/read', () => {
  it("lists a skill root's direct children, subdirectories as inode/directory", async () => {
    const listing = await result('resources/directory/read', { uri: 'skill://pdf-tools' });
    const all = [...listing.resources];
    if (listing.nextCursor) all.push(...(await result('resources/directory/read', { uri: 'skill://pdf-tools', cursor: listing.nextCursor })).resources);
    expect(all.map((r: Json) => [r.uri, r.mimeType])).toEqual([
      ['skill://pdf-tools/SKILL.md', 'text/markdown'],
      ['skill://pdf-tools/assets', 'inode/directory'],
      ['skill://pdf-tools/templates', 'inode/directory'],
    ]);
  });

  it('descends one level at a time, and pages with nextCursor (page size 2)', async () => {
    const first = await result('resources/directory/read', { uri: 'skill://pdf-tools' });
    expect(first.resources).toHaveLength(2);
    expect(typeof first.nextCursor).toBe('string');
    const templates = await result('resources/directory/read', { uri: 'skill://pdf-tools/templates' });
    expect(templates.resources).toEqual([
      { uri: 'skill://pdf-tools/templates/invoice.md', name: 'invoice.md', mimeType: 'text/markdown', size: 10 },
      { uri: 'skill://pdf-tools/templates/regional', name: 'regional', mimeType: 'inode/directory' },
    ]);
  });

  it('serves the organisational prefix of a nested skill path as directories too', async () => {
    expect((await result('resources/directory/read', { uri: 'skill://acme' })).resources).toEqual([{ uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' }]);
  });

  it.each([
    ['a file', 'skill://pdf-tools/SKILL.md', /is not a directory resource/],
    ['an unknown directory', 'skill://nowhere', /No directory is served/],
    ['a trailing slash (directories have none)', 'skill://pdf-tools/', /No directory is served/],
  ])('answers -32602 for %s', async (_what, uri, message) => {
    const error = await errorOf('resources/directory/read', { uri });
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(message);
  });

  it("refuses one directory's cursor for another", async () => {
    const first = await result('resources/directory/read', { uri: 'skill://pdf-tools' });
    expect((await errorOf('resources/directory/read', { uri: 'skill://pdf-tools/templates', cursor: first.nextCursor })).code).toBe(-32602);
  });
});

describe('in a 2025-11-25 session', () => {
  it('advertises the extension in initialize (but not 2026-only ones) and serves the same methods, in 2025 shapes', async () => {
    const session = await legacyInitialize(url);
    expect(session.result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/skills': { directoryRead: true } });
    const listed = (await sessionRequest(url, session.sessionId, 'skills/list')).response!.result as Json;
    expect(listed.skills.map((s: Json) => s.uri)).toEqual(['skill://pdf-tools/SKILL.md', 'skill://acme/billing/refunds/SKILL.md']);
    expect(listed).not.toHaveProperty('resultType');
    const unknown = (await sessionRequest(url, session.sessionId, 'skills/get', { uri: 'skill://nope/SKILL.md' })).response!.error as Json;
    expect(unknown.code).toBe(-32602);
    const directory = (await sessionRequest(url, session.sessionId, 'resources/directory/read', { uri: 'skill://pdf-tools/templates/regional' })).response!.result as Json;
    expect(directory.resources.map((r: Json) => r.uri)).toEqual(['skill://pdf-tools/templates/regional/eu.md']);
  });

  it('does not tell a 2025 client of the Tasks extension, which 2025-11-25 does not have', async () => {
    const server = new McpServer({ name: 'both', version: '1.0.0' }, { extensions: [skills(await skillLibrary([]))] });
    server.tool('job', { description: 'a task', task: 'optional' }, (_args, ctx) => ctx.task(() => 'done'));
    expect(Object.keys(server.capabilities().extensions ?? {}).sort()).toEqual(['io.modelcontextprotocol/skills', 'io.modelcontextprotocol/tasks']);
    const other = await startHttp(server);
    try {
      const session = await legacyInitialize(other.url);
      expect(Object.keys(session.result.capabilities.extensions)).toEqual(['io.modelcontextprotocol/skills']);
    } finally {
      await other.close();
    }
  });
});
