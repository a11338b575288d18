/**
 * Tessera's Client against the reference servers people run today —
 * `@modelcontextprotocol/server-everything`, `-filesystem` and `-memory`
 * (pinned in the root devDependencies, all on the official SDK 1.x and
 * speaking 2025-11-25) — as real child processes: over stdio, and
 * server-everything over Streamable HTTP too. What an application does with
 * them: listing, every kind of tool, resources and templates, prompts and
 * completion, form and URL elicitation, sampling, roots, progress, many
 * calls at once, era detection; and what 2025-11-25 asks of a client beyond
 * that: following changes (`listen`), the session's log level, the
 * experimental tasks, cancellation in both directions.
 *
 * What reaches a server is read from the wire: over HTTP from the client's
 * own fetch, over stdio through a tap between client and server
 * (fixtures/stdio-tap.ts). The servers' own bugs (progress after a cancel,
 * a stdio process that lingers after stdin closes, `read_text_file tail=1`)
 * are left out of what these tests expect.
 */

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  ServerCancelledError,
  type CallToolResult,
  type ClientOptions,
  type ElicitRequestFormParams,
  type TaskUpdate,
} from 'tessera-mcp/client';
import type { JsonRpcNotification } from 'tessera-mcp/protocol';
import { StdioClientTransport } from 'tessera-mcp/stdio';
import { compiledFixture, ROOT, stopAll, stopPid, trackPid } from '../helpers/child-processes.js';
import { eventually, startEverythingHttp, stdioCommand, tapped, tappedCommand, type HttpReferenceServer } from '../helpers/reference-servers.js';

type Json = Record<string, any>;

const INFO = { name: 'interop-test', version: '1.0.0' };
const work = mkdtempSync(join(tmpdir(), 'tessera-reference-'));
const rootDir = join(work, 'root');

afterAll(() => {
  stopAll();
  rmSync(work, { recursive: true, force: true });
});

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
}

/** The answers a person would give: the research tool's clarification, server-everything's sign-up form. */
function answerForm(params: ElicitRequestFormParams): { action: 'accept'; content: Record<string, string | number | boolean> } {
  const properties = params.requestedSchema.properties;
  const interpretation = properties.interpretation as { oneOf?: Array<{ const: string }> } | undefined;
  if (interpretation?.oneOf) return { action: 'accept', content: { interpretation: interpretation.oneOf[1]!.const } };
  return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 7 } };
}

/** What the application hears of: questions asked, log messages, task changes. */
interface Heard {
  urls: string[];
  sampled: number;
  logs: Array<{ level: string; data: unknown }>;
  tasks: TaskUpdate[];
}

function handlers(heard: Heard): ClientOptions {
  return {
    elicitation: {
      form: async (params) => answerForm(params),
      url: async (params) => {
        heard.urls.push(params.url);
        return { action: 'accept' };
      },
    },
    sampling: async () => {
      heard.sampled++;
      return { role: 'assistant', content: { type: 'text', text: 'Paris is the capital of France.' }, model: 'test-model' };
    },
    roots: [{ uri: pathToFileURL(rootDir).href, name: 'work' }],
    onLog: (message) => heard.logs.push(message),
    onTask: (update) => {
      heard.tasks.push(update);
    },
    tasks: { minPollIntervalMs: 50 },
  };
}

/** A fetch that keeps every JSON-RPC message the client POSTs: the HTTP wire, from the client's side. */
function recordingFetch(sent: Json[]): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Json);
    return fetch(input, init);
  };
}

interface Connection {
  client: Client;
  heard: Heard;
  /** What reached the server so far. */
  sent(): Json[];
}

let tapCount = 0;

async function connectStdio(server: { command: string; args: string[] }, options: ClientOptions = {}, env?: Record<string, string>): Promise<Connection> {
  const record = join(work, `tap-${++tapCount}.jsonl`);
  const heard: Heard = { urls: [], sampled: 0, logs: [], tasks: [] };
  const client = new Client(INFO, { ...handlers(heard), ...options });
  await client.connect(new StdioClientTransport({ ...tappedCommand(record, server), stderr: 'ignore', ...(env ? { env } : {}) }));
  return { client, heard, sent: () => tapped(record) };
}

async function connectHttp(url: string, options: ClientOptions = {}): Promise<Connection> {
  const sent: Json[] = [];
  const heard: Heard = { urls: [], sampled: 0, logs: [], tasks: [] };
  const client = new Client(INFO, { ...handlers(heard), ...options });
  await client.connect(url, { fetch: recordingFetch(sent) });
  return { client, heard, sent: () => sent };
}

describe.each(['stdio', 'http'] as const)('server-everything over %s, through Client', (kind) => {
  let http: HttpReferenceServer | undefined;
  let c: Connection;

  beforeAll(async () => {
    if (kind === 'http') http = await startEverythingHttp();
    c = kind === 'http' ? await connectHttp(http!.url) : await connectStdio(stdioCommand('everything'));
  });

  afterAll(async () => {
    await c?.client.close();
    http?.stop();
  });

  it('finds out the server speaks 2025-11-25 (era auto), and who it is', async () => {
    expect(c.client.era).toBe('legacy');
    expect(c.client.protocolVersion).toBe('2025-11-25');
    expect(c.client.server?.name).toBe('mcp-servers/everything');
    // The 2026 probe first, then the 2025 handshake.
    const methods = await eventually('the handshake', () => (c.sent().length >= 3 ? c.sent().map((m) => m.method) : undefined));
    expect(methods.slice(0, 3)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
  });

  it('lists tools, resources, templates and prompts', async () => {
    const tools = await c.client.listAllTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation', 'trigger-sampling-request', 'simulate-research-query']));
    expect((await c.client.listAllResources()).map((r) => r.uri)).toContain('demo://resource/static/document/architecture.md');
    expect((await c.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');
    expect((await c.client.listAllPrompts()).map((p) => p.name)).toEqual(expect.arrayContaining(['simple-prompt', 'args-prompt', 'completable-prompt']));
  });

  it('calls its tools: text, numbers, structured content, images, annotations, resource links and references', async () => {
    expect(textOf(await c.client.callTool('echo', { message: 'hello there' }))).toContain('hello there');
    expect(textOf(await c.client.callTool('get-sum', { a: 19, b: 23 }))).toContain('42');
    const weather = await c.client.callTool('get-structured-content', { location: 'Chicago' });
    expect(weather.structuredContent).toEqual(expect.objectContaining({ temperature: expect.any(Number) }));
    const image = await c.client.callTool('get-tiny-image', {});
    expect(image.content.map((b) => b.type)).toContain('image');
    const annotated = await c.client.callTool('get-annotated-message', { messageType: 'error' });
    expect(annotated.content[0]?.annotations).toBeDefined();
    const links = await c.client.callTool('get-resource-links', { count: 2 });
    expect(links.content.filter((b) => b.type === 'resource_link')).toHaveLength(2);
    const reference = await c.client.callTool('get-resource-reference', { resourceType: 'Text', resourceId: 3 });
    expect(reference.content.map((b) => b.type)).toContain('resource');
  });

  it('reads static and templated resources', async () => {
    const doc = await c.client.readResource('demo://resource/static/document/architecture.md');
    expect(String((doc.contents[0] as { text?: string } | undefined)?.text)).toMatch(/architecture/i);
    const dynamic = await c.client.readResource('demo://resource/dynamic/text/3');
    expect(dynamic.contents[0]?.uri).toBe('demo://resource/dynamic/text/3');
  });

  it('gets prompts and completes prompt arguments, with the context of earlier ones', async () => {
    const simple = await c.client.getPrompt('simple-prompt');
    expect(simple.messages.length).toBeGreaterThan(0);
    const withArgs = await c.client.getPrompt('args-prompt', { city: 'Lisbon' });
    expect(JSON.stringify(withArgs.messages)).toContain('Lisbon');
    const ref = { type: 'ref/prompt' as const, name: 'completable-prompt' };
    expect((await c.client.complete(ref, { name: 'department', value: 'E' })).values).toEqual(['Engineering']);
    expect((await c.client.complete(ref, { name: 'name', value: 'E' }, { arguments: { department: 'Sales' } })).values).toEqual(['Eve']);
  });

  it("answers the server's requests through the handlers: form and URL elicitation, sampling, roots", async () => {
    const form = textOf(await c.client.callTool('trigger-elicitation-request', {}));
    expect(form).toContain('Ada Lovelace');
    const url = textOf(await c.client.callTool('trigger-url-elicitation', { url: 'https://example.com/authorize?step=1' }));
    expect(c.heard.urls).toContain('https://example.com/authorize?step=1');
    expect(url).toMatch(/accept/i);
    const sampled = textOf(await c.client.callTool('trigger-sampling-request', { prompt: 'Capital of France?' }));
    expect(sampled).toContain('Paris is the capital of France.');
    const roots = textOf(await c.client.callTool('get-roots-list', {}));
    expect(roots).toContain(pathToFileURL(rootDir).href);
  });

  it('reports the progress of a long-running operation', async () => {
    const seen: number[] = [];
    const result = await c.client.callTool('trigger-long-running-operation', { duration: 1, steps: 4 }, { onProgress: ({ progress }) => seen.push(progress) });
    expect(textOf(result)).toMatch(/completed/i);
    expect(seen).toHaveLength(4);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it('runs 20 calls at once, each with its own answer', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => c.client.callTool('get-sum', { a: i, b: 1000 })));
    results.forEach((result, i) => expect(textOf(result)).toContain(String(i + 1000)));
  });

  it("sets the session's log level for a request's logLevel (logging/setLevel), once per change", async () => {
    const before = c.sent().length;
    await c.client.callTool('echo', { message: 'one' }, { logLevel: 'error' });
    await c.client.callTool('echo', { message: 'two' }, { logLevel: 'error' });
    await c.client.callTool('echo', { message: 'three' }, { logLevel: 'debug' });
    const sent = c.sent().slice(before).filter((m) => m.method !== undefined && m.method.startsWith('notifications/') === false);
    expect(sent.map((m) => (m.method === 'logging/setLevel' ? `setLevel ${m.params.level}` : `${m.method} ${m.params?.arguments?.message ?? ''}`.trim()))).toEqual([
      'setLevel error',
      'tools/call one',
      'tools/call two',
      'setLevel debug',
      'tools/call three',
    ]);
  });

  it('follows a resource with listen: resources/subscribe, its updates, resources/unsubscribe on close', async () => {
    const uri = 'demo://resource/static/document/features.md';
    const updates: JsonRpcNotification[] = [];
    const subscription = c.client.listen({ resourceSubscriptions: [uri], toolsListChanged: true }, (note) => updates.push(note));
    expect(await subscription.acknowledged).toEqual({ resourceSubscriptions: [uri], toolsListChanged: true });
    expect(c.sent().filter((m) => m.method === 'resources/subscribe').map((m) => m.params.uri)).toEqual([uri]);
    // server-everything sends an update at once for each subscribed resource, then one every 5 s.
    await c.client.callTool('toggle-subscriber-updates', {});
    try {
      await eventually('a resource update', () => updates.length > 0);
      expect(updates[0]).toEqual(expect.objectContaining({ method: 'notifications/resources/updated', params: expect.objectContaining({ uri }) }));
    } finally {
      await c.client.callTool('toggle-subscriber-updates', {});
    }
    subscription.close();
    await subscription.closed;
    expect(c.sent().filter((m) => m.method === 'resources/unsubscribe').map((m) => m.params.uri)).toEqual([uri]);
  });

  it("calls a task-required tool as a 2025-11-25 task: polls tasks/get, answers the task's question, fetches tasks/result", async () => {
    const result = await c.client.callTool('simulate-research-query', { topic: 'python', ambiguous: true });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain('# Research Report: python (snake)');
    const call = c.sent().find((m) => m.method === 'tools/call' && m.params.name === 'simulate-research-query');
    expect(call?.params.task).toEqual({});
    const methods = c.sent().map((m) => m.method);
    expect(methods).toContain('tasks/get');
    expect(methods).toContain('tasks/result');
    const statuses = c.heard.tasks.filter((u) => u.params.name === 'simulate-research-query').map((u) => u.task.status);
    expect(statuses[0]).toBe('working');
    expect(statuses).toContain('input_required');
  });
});

describe('server-everything with the era pinned (legacy)', () => {
  it('skips the 2026 probe and speaks 2025-11-25 at once', async () => {
    const c = await connectStdio(stdioCommand('everything'), { era: 'legacy' });
    try {
      expect(c.client.protocolVersion).toBe('2025-11-25');
      expect(textOf(await c.client.callTool('echo', { message: 'pinned' }))).toContain('pinned');
      expect(c.sent().map((m) => m.method).slice(0, 2)).toEqual(['initialize', 'notifications/initialized']);
    } finally {
      await c.client.close();
    }
  });
});

describe('list changes from a 2025-11-25 server (stdio)', () => {
  it('reach a listener: server-everything adds tools once it knows the client, and says so', async () => {
    const c = await connectStdio(stdioCommand('everything'));
    try {
      const changes: JsonRpcNotification[] = [];
      // Opened right after connect: the server registers its client-dependent tools once initialized.
      const subscription = c.client.listen({ toolsListChanged: true, promptsListChanged: true }, (note) => changes.push(note));
      expect(await subscription.acknowledged).toEqual({ toolsListChanged: true, promptsListChanged: true });
      await eventually('notifications/tools/list_changed', () => changes.some((n) => n.method === 'notifications/tools/list_changed'));
      subscription.close();
    } finally {
      await c.client.close();
    }
  });
});

describe('closing at once after an abort (stdio)', () => {
  it('still delivers notifications/cancelled: close() writes what was sent before it', async () => {
    const c = await connectStdio(stdioCommand('everything'));
    const controller = new AbortController();
    const call = c.client.callTool('trigger-long-running-operation', { duration: 30, steps: 30 }, { signal: controller.signal, onProgress: () => undefined });
    call.catch(() => undefined);
    const sent = await eventually('the tools/call to reach the server', () => c.sent().find((m) => m.method === 'tools/call'));
    // The abort and the close in the same turn, as an application that shuts down does.
    controller.abort(new Error('the user left'));
    await c.client.close();
    await expect(call).rejects.toThrow('the user left');
    // (A stdio era probe that ran out of time under load is cancelled too: only the call's cancellation counts here.)
    const cancels = c.sent().filter((m) => m.method === 'notifications/cancelled' && m.params.requestId === sent.id);
    expect(cancels).toHaveLength(1);
  });
});

describe('a 2025-11-25 server that gives up on its own question', () => {
  // The official SDK 1.x cancels a request of its own when its timeout runs out (server-everything's
  // sampling: after 60 s); fixtures/impatient-2025-server.ts gives up after 800 ms.
  const impatient = { command: process.execPath, args: [compiledFixture('impatient-2025-server'), '--patience', '800'] };

  describe.each(['stdio', 'http'] as const)('over %s', (kind) => {
    it("aborts the handler's signal with ServerCancelledError and sends no answer", async () => {
      let stderr = '';
      let stop = (): void => undefined;
      let url: string | undefined;
      if (kind === 'http') {
        const child = spawn(impatient.command, [...impatient.args, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
        trackPid(child.pid);
        stop = () => stopPid(child.pid);
        child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
        url = await eventually('the fixture to listen', () => /listening (\S+)/.exec(stderr)?.[1]);
      }
      let signal: AbortSignal | undefined;
      let returned = false;
      const options: ClientOptions = {
        sampling: async (_params, context) => {
          signal = context.signal;
          // A person who takes longer than the server will wait.
          await new Promise((resolve) => setTimeout(resolve, 1500));
          returned = true;
          return { role: 'assistant', content: { type: 'text', text: 'too late' }, model: 'test-model' };
        },
      };
      const c = kind === 'http' ? await connectHttp(url!, options) : await connectStdio(impatient, options);
      try {
        const result = await c.client.callTool('ask_model', {});
        // The server's own answer to its timeout, whatever it words it as.
        expect(result.isError).toBe(true);
        expect(signal?.aborted).toBe(true);
        expect(signal?.reason).toBeInstanceOf(ServerCancelledError);
        expect((signal?.reason as ServerCancelledError).method).toBe('sampling/createMessage');
        await eventually('the handler to return', () => returned);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const answers = c.sent().filter((m) => m.method === undefined && ('result' in m || 'error' in m));
        expect(answers).toEqual([]);
        expect(stderr).not.toMatch(/late response/);
      } finally {
        await c.client.close();
        stop();
      }
    });
  });
});

describe('server-filesystem over stdio, through Client', () => {
  const data = join(work, 'data');
  let c: Connection;

  beforeAll(async () => {
    mkdirSync(data, { recursive: true });
    mkdirSync(rootDir, { recursive: true });
    writeFileSync(join(data, 'notes.txt'), 'first line\nsecond line\n');
    // No roots: the directory the server was started with stays the one it serves.
    c = await connectStdio(stdioCommand('filesystem', [data]), { roots: undefined });
  });
  afterAll(async () => c?.client.close());

  it('reads, writes, edits, moves, lists and searches files in its directory', async () => {
    expect(textOf(await c.client.callTool('list_allowed_directories', {}))).toContain(data);
    expect(textOf(await c.client.callTool('read_text_file', { path: join(data, 'notes.txt') }))).toBe('first line\nsecond line\n');
    expect(textOf(await c.client.callTool('read_text_file', { path: join(data, 'notes.txt'), head: 1 }))).toBe('first line');
    await c.client.callTool('write_file', { path: join(data, 'plan.md'), content: '# Plan\n- draft\n' });
    const diff = textOf(await c.client.callTool('edit_file', { path: join(data, 'plan.md'), edits: [{ oldText: '- draft', newText: '- final' }] }));
    expect(diff).toContain('+- final');
    expect(readFileSync(join(data, 'plan.md'), 'utf8')).toBe('# Plan\n- final\n');
    await c.client.callTool('create_directory', { path: join(data, 'archive') });
    await c.client.callTool('move_file', { source: join(data, 'plan.md'), destination: join(data, 'archive', 'plan.md') });
    expect(textOf(await c.client.callTool('list_directory', { path: data }))).toMatch(/\[DIR\] archive[\s\S]*\[FILE\] notes\.txt/);
    expect(textOf(await c.client.callTool('search_files', { path: data, pattern: '**/plan.md' }))).toContain(join(data, 'archive', 'plan.md'));
    const tree = JSON.parse(textOf(await c.client.callTool('directory_tree', { path: data }))) as Json[];
    expect(tree.map((entry) => entry.name).sort()).toEqual(['archive', 'notes.txt']);
    expect(textOf(await c.client.callTool('get_file_info', { path: join(data, 'notes.txt') }))).toMatch(/size: 23/);
    const both = textOf(await c.client.callTool('read_multiple_files', { paths: [join(data, 'notes.txt'), join(data, 'archive', 'plan.md')] }));
    expect(both).toContain('second line');
    expect(both).toContain('- final');
  });

  it('refuses a path outside its directory (the tool says so)', async () => {
    const outside = await c.client.callTool('read_text_file', { path: join(work, 'tap-1.jsonl') });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toMatch(/access denied|outside allowed/i);
  });

  it('serves the roots a client offers instead of its start directory (roots/list)', async () => {
    const other = await connectStdio(stdioCommand('filesystem', [data]));
    try {
      // It asks for roots once initialized; the answer replaces its directories.
      const allowed = await eventuallyText(other.client, 'list_allowed_directories', (text) => text.includes(rootDir));
      expect(allowed).not.toContain(data);
    } finally {
      await other.client.close();
    }
  });
});

/** Calls a tool until its text passes `check` (the server applies what it learns asynchronously), at most 20 s. */
async function eventuallyText(client: Client, tool: string, check: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = textOf(await client.callTool(tool, {}));
    if (check(text)) return text;
    if (Date.now() > deadline) throw new Error(`${tool} never passed the check; last: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('server-memory over stdio, through Client', () => {
  let c: Connection;
  const file = join(work, 'memory.jsonl');

  beforeAll(async () => {
    c = await connectStdio(stdioCommand('memory'), {}, { MEMORY_FILE_PATH: file });
  });
  afterAll(async () => c?.client.close());

  it('keeps a knowledge graph: entities, relations, observations, search, deletion', async () => {
    await c.client.callTool('create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
        { name: 'Analytical Engine', entityType: 'machine', observations: [] },
      ],
    });
    await c.client.callTool('create_relations', { relations: [{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }] });
    await c.client.callTool('add_observations', { observations: [{ entityName: 'Analytical Engine', contents: ['designed by Babbage'] }] });
    const graph = (await c.client.callTool('read_graph', {})).structuredContent as Json;
    expect(graph.entities.map((e: Json) => e.name).sort()).toEqual(['Ada', 'Analytical Engine']);
    expect(graph.relations).toEqual([{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }]);
    const found = (await c.client.callTool('search_nodes', { query: 'Babbage' })).structuredContent as Json;
    expect(found.entities.map((e: Json) => e.name)).toEqual(['Analytical Engine']);
    const opened = (await c.client.callTool('open_nodes', { names: ['Ada'] })).structuredContent as Json;
    expect(opened.entities[0].observations).toEqual(['wrote the first program']);
    await c.client.callTool('delete_relations', { relations: [{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }] });
    await c.client.callTool('delete_entities', { entityNames: ['Analytical Engine'] });
    const after = (await c.client.callTool('read_graph', {})).structuredContent as Json;
    expect(after.entities.map((e: Json) => e.name)).toEqual(['Ada']);
    expect(after.relations).toEqual([]);
  });

  it('follows its graph resource with listen: each change is an update', async () => {
    const updates: JsonRpcNotification[] = [];
    const subscription = c.client.listen({ resourceSubscriptions: ['memory://knowledge-graph'] }, (note) => updates.push(note));
    expect((await subscription.acknowledged).resourceSubscriptions).toEqual(['memory://knowledge-graph']);
    await c.client.callTool('create_entities', { entities: [{ name: 'Grace', entityType: 'person', observations: [] }] });
    await eventually('the update', () => updates.length > 0);
    expect(updates[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'memory://knowledge-graph' } });
    subscription.close();
    await subscription.closed;
    expect(c.sent().filter((m) => m.method === 'resources/unsubscribe').map((m) => m.params.uri)).toEqual(['memory://knowledge-graph']);
  });
});
