/**
 * The client on Streamable HTTP (spec §6, §10.1–10.2, §12; checklist 83–84),
 * against a raw recording HTTP server: the request-metadata headers
 * (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-* per the §12.4
 * algorithm), Accept/Content-Type, tools with invalid x-mcp-header annotations
 * left out, recovery from -32020 and -32022, how HTTP errors surface, SSE
 * notifications before the response, and re-issuing a request whose stream broke.
 */

import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, McpError, TransportError, type ClientOptions } from '../../src/client.js';
import { expectRequestMeta, VERSION } from '../helpers/client-rules.js';
import { note, responseTo, startScriptedHttp, type Json, type Responder, type ScriptedHttp, type ScriptReply, type SeenRequest } from '../helpers/scripted-http.js';

const INFO = { name: 'header-tests', version: '0.0.1' };

const servers: ScriptedHttp[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(responder: Responder, options: ClientOptions = {}): Promise<{ http: ScriptedHttp; client: Client }> {
  const http = await startScriptedHttp(responder);
  servers.push(http);
  const client = new Client(INFO, { era: 'modern', ...options });
  clients.push(client);
  await client.connect(http.url);
  return { http, client };
}

const b64 = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
const done = (text = 'ok'): Json => ({ resultType: 'complete', content: [{ type: 'text', text }] });
const tool = (name: string, properties: Json = {}): Json => ({ name, inputSchema: { type: 'object', properties } });

/** A minimal fake server: canned results per method; `call` decides tools/call. */
function fakeServer(options: { tools?: Json[] | (() => Json[]); call?: (m: Json, seen: SeenRequest) => ScriptReply | Promise<ScriptReply> } = {}): Responder {
  return (message, seen) => {
    switch (message.method) {
      case 'server/discover':
        return { result: { resultType: 'complete', supportedVersions: [VERSION], capabilities: {}, ttlMs: 0, cacheScope: 'public' } };
      case 'tools/list': {
        const tools = typeof options.tools === 'function' ? options.tools() : (options.tools ?? []);
        return { result: { resultType: 'complete', tools, ttlMs: 0, cacheScope: 'public' } };
      }
      case 'tools/call':
        return options.call ? options.call(message, seen) : { result: done() };
      case 'prompts/list':
        return { result: { resultType: 'complete', prompts: [], ttlMs: 0, cacheScope: 'public' } };
      case 'prompts/get':
        return { result: { resultType: 'complete', messages: [] } };
      case 'resources/list':
        return { result: { resultType: 'complete', resources: [], ttlMs: 0, cacheScope: 'public' } };
      case 'resources/templates/list':
        return { result: { resultType: 'complete', resourceTemplates: [], ttlMs: 0, cacheScope: 'public' } };
      case 'resources/read':
        return { result: { resultType: 'complete', contents: [{ uri: message.params.uri, text: 'x' }], ttlMs: 0, cacheScope: 'private' } };
      case 'completion/complete':
        return { result: { resultType: 'complete', completion: { values: [] } } };
      case 'subscriptions/listen': {
        const m = { 'io.modelcontextprotocol/subscriptionId': message.id };
        return {
          sse: [
            note('notifications/subscriptions/acknowledged', { _meta: m, notifications: { toolsListChanged: true } }),
            responseTo(message, { resultType: 'complete', _meta: m }),
          ],
        };
      }
      default:
        return { error: { code: -32601, message: 'Method not found' }, status: 404 };
    }
  };
}

/** The Mcp-Param-* headers of a recorded request, by lower-case name. */
function paramHeaders(seen: SeenRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(seen.headers)) if (name.startsWith('mcp-param-')) out[name] = String(value);
  return out;
}

/* ------------------------------------------------------------------ */

describe('standard headers (§12.1, §12.3)', () => {
  it('sends MCP-Protocol-Version and Mcp-Method equal to the body, Accept with both media types and Content-Type JSON on every request', async () => {
    const { http, client } = await setup(fakeServer({ tools: [tool('t')] }));
    await client.discover();
    await client.listTools();
    await client.callTool('t', {});
    await client.listPrompts();
    await client.getPrompt('p');
    await client.listResources();
    await client.listResourceTemplates();
    await client.readResource('file:///x');
    await client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: 'b' });
    const subscription = client.listen({ toolsListChanged: true }, () => undefined);
    await subscription.closed;

    const methods = http.requests.map((r) => r.message.method);
    expect(methods).toEqual([
      'server/discover',
      'tools/list',
      'tools/call',
      'prompts/list',
      'prompts/get',
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'completion/complete',
      'subscriptions/listen',
    ]);
    for (const seen of http.requests) {
      expect(seen.method).toBe('POST');
      expectRequestMeta(seen.message, INFO);
      expect(seen.headers['mcp-protocol-version']).toBe(seen.message.params._meta['io.modelcontextprotocol/protocolVersion']);
      expect(seen.headers['mcp-method']).toBe(seen.message.method);
      const accepted = String(seen.headers.accept)
        .split(',')
        .map((part) => part.split(';')[0]!.trim().toLowerCase());
      expect(accepted).toContain('application/json');
      expect(accepted).toContain('text/event-stream');
      expect(String(seen.headers['content-type']).split(';')[0]!.trim().toLowerCase()).toBe('application/json');
    }
  });

  it.each([
    ['tools/call', (c: Client) => c.callTool('get_weather', {}), 'get_weather'],
    ['prompts/get', (c: Client) => c.getPrompt('code.review-v2', { a: 'b' }), 'code.review-v2'],
    ['resources/read (percent-encoded URI, verbatim)', (c: Client) => c.readResource('file:///a%20b.txt'), 'file:///a%20b.txt'],
    ['resources/read (query and fragment)', (c: Client) => c.readResource('https://example.com/r?q=a&b=%2F#top'), 'https://example.com/r?q=a&b=%2F#top'],
  ] as const)('sends Mcp-Name for %s', async (_label, call, expected) => {
    const { http, client } = await setup(fakeServer());
    await call(client);
    expect(http.requests[0]!.headers['mcp-name']).toBe(expected);
  });

  it.each([
    ['a non-ASCII tool name', (c: Client) => c.callTool('météo☀', {}), 'météo☀'],
    ['a non-ASCII prompt name', (c: Client) => c.getPrompt('résumé', {}), 'résumé'],
    ['a non-ASCII resource URI', (c: Client) => c.readResource('file:///données/été.txt'), 'file:///données/été.txt'],
    ['a tool name with a trailing space', (c: Client) => c.callTool('padded ', {}), 'padded '],
  ] as const)('sends Mcp-Name in the Base64 sentinel for %s', async (_label, call, value) => {
    const { http, client } = await setup(fakeServer());
    await call(client);
    expect(http.requests[0]!.headers['mcp-name']).toBe(b64(value));
  });
});

/* ------------------------------------------------------------------ */

const DEPLOY = tool('deploy', {
  region: { type: 'string', 'x-mcp-header': 'Region' },
  count: { type: 'integer', 'x-mcp-header': 'Count' },
  dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
  note: { type: 'string' },
  size: { type: 'integer' },
  target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' }, rack: { type: 'string' } } },
});

describe('Mcp-Param-* from x-mcp-header (§12.4)', () => {
  async function callDeploy(args: Json): Promise<Record<string, string>> {
    const { http, client } = await setup(fakeServer({ tools: [DEPLOY] }));
    await client.listTools();
    await client.callTool('deploy', args);
    const call = http.requests.find((r) => r.message.method === 'tools/call')!;
    return paramHeaders(call);
  }

  it.each([
    ['a plain string as is', 'eu-west-1', 'eu-west-1'],
    ['a string with inner spaces as is', 'us east 1', 'us east 1'],
    ['the empty string as an empty value', '', ''],
    ['a leading space in Base64', ' eu', b64(' eu')],
    ['a trailing tab in Base64', 'eu\t', b64('eu\t')],
    ['non-ASCII in Base64', 'zürich', b64('zürich')],
    ['an emoji in Base64', 'moon🌙', b64('moon🌙')],
    ['a newline in Base64', 'a\nb', b64('a\nb')],
    ['a NUL in Base64', 'a\u0000b', b64('a\u0000b')],
    ['a DEL in Base64', 'a\u007fb', b64('a\u007fb')],
    ['a sentinel look-alike in Base64', '=?base64?SGk=?=', b64('=?base64?SGk=?=')],
  ])('mirrors a string argument: %s', async (_label, value, expected) => {
    const headers = await callDeploy({ region: value });
    expect(headers).toEqual({ 'mcp-param-region': expected });
  });

  it.each([
    [42, '42'],
    [0, '0'],
    [-7, '-7'],
    [9007199254740991, '9007199254740991'],
  ])('mirrors the integer %s in decimal', async (value, expected) => {
    expect(await callDeploy({ count: value })).toEqual({ 'mcp-param-count': expected });
  });

  it.each([
    [true, 'true'],
    [false, 'false'],
  ])('mirrors the boolean %s', async (value, expected) => {
    expect(await callDeploy({ dry: value })).toEqual({ 'mcp-param-dry-run': expected });
  });

  it('mirrors a nested property by its properties path', async () => {
    expect(await callDeploy({ target: { zone: 'z-1', rack: 'r9' } })).toEqual({ 'mcp-param-zone': 'z-1' });
  });

  it('sends no header for absent or null values, and never mirrors unannotated arguments', async () => {
    expect(await callDeploy({ region: null, note: 'hello', size: 3, target: { zone: null, rack: 'r' } })).toEqual({});
    expect(await callDeploy({})).toEqual({});
  });

  it('mirrors every annotated argument at once', async () => {
    expect(await callDeploy({ region: 'eu', count: 2, dry: false, note: 'n', target: { zone: 'ß' } })).toEqual({
      'mcp-param-region': 'eu',
      'mcp-param-count': '2',
      'mcp-param-dry-run': 'false',
      'mcp-param-zone': b64('ß'),
    });
  });

  it("follows the tool's most recent inputSchema", async () => {
    let version = 1;
    const { http, client } = await setup(
      fakeServer({
        tools: () => [tool('deploy', { region: { type: 'string', 'x-mcp-header': version === 1 ? 'Region' : 'Area' }, zone: { type: 'string', ...(version === 2 ? { 'x-mcp-header': 'Zone' } : {}) } })],
      }),
    );
    await client.listTools();
    version = 2;
    await client.listTools();
    await client.callTool('deploy', { region: 'eu', zone: 'a' });
    expect(paramHeaders(http.requests[2]!)).toEqual({ 'mcp-param-area': 'eu', 'mcp-param-zone': 'a' });
  });

  it('sends the same Mcp-Name and Mcp-Param-* headers on an MRTR retry', async () => {
    let calls = 0;
    const { http, client } = await setup(
      fakeServer({
        tools: [DEPLOY],
        call: () => ({ result: ++calls === 1 ? { resultType: 'input_required', requestState: 'st' } : done() }),
      }),
    );
    await client.listTools();
    await client.callTool('deploy', { region: 'eu west ', count: 5 });
    const [first, retry] = http.requests.filter((r) => r.message.method === 'tools/call');
    expect(retry!.message.params.requestState).toBe('st');
    for (const seen of [first!, retry!]) {
      expect(seen.headers['mcp-method']).toBe('tools/call');
      expect(seen.headers['mcp-name']).toBe('deploy');
      expect(seen.headers['mcp-protocol-version']).toBe(VERSION);
      expect(paramHeaders(seen)).toEqual({ 'mcp-param-region': b64('eu west '), 'mcp-param-count': '5' });
    }
  });
});

/* ------------------------------------------------------------------ */

describe('tools with invalid x-mcp-header annotations (§9.1)', () => {
  const BAD: Array<[string, Json]> = [
    ['bad-space', tool('bad-space', { a: { type: 'string', 'x-mcp-header': 'Bad Name' } })],
    ['bad-empty', tool('bad-empty', { a: { type: 'string', 'x-mcp-header': '' } })],
    ['bad-crlf', tool('bad-crlf', { a: { type: 'string', 'x-mcp-header': 'A\r\nB' } })],
    ['bad-nonstring', tool('bad-nonstring', { a: { type: 'string', 'x-mcp-header': 7 } })],
    ['bad-dup', tool('bad-dup', { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } })],
    ['bad-number', tool('bad-number', { a: { type: 'number', 'x-mcp-header': 'Amount' } })],
    ['bad-object', tool('bad-object', { a: { type: 'object', 'x-mcp-header': 'Obj' } })],
    ['bad-array', tool('bad-array', { a: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'List' } })],
    ['bad-items', tool('bad-items', { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } })],
    ['bad-anyof', tool('bad-anyof', { a: { anyOf: [{ type: 'string', 'x-mcp-header': 'Choice' }, { type: 'integer' }] } })],
    ['bad-defs', { name: 'bad-defs', inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string', 'x-mcp-header': 'Ref' } } } }],
  ];
  const GOOD = [tool('plain', { q: { type: 'string' } }), tool('annotated', { region: { type: 'string', 'x-mcp-header': 'Region' } })];

  it('leaves them out of listTools with a warning naming each, and keeps the rest', async () => {
    const warn = vi.fn();
    const { client } = await setup(fakeServer({ tools: [GOOD[0]!, ...BAD.map(([, t]) => t), GOOD[1]!] }), { warn });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['plain', 'annotated']);
    const warnings = warn.mock.calls.map((c) => String(c[0]));
    for (const [name] of BAD) expect(warnings.some((w) => w.includes(name))).toBe(true);
    for (const good of GOOD) expect(warnings.some((w) => w.includes(`"${good.name}"`))).toBe(false);
  });

  it.each(BAD)('leaves out %s on its own', async (_name, bad) => {
    const warn = vi.fn();
    const { client } = await setup(fakeServer({ tools: [bad, GOOD[1]!] }), { warn });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['annotated']);
    expect(warn).toHaveBeenCalled();
  });
});

/* ------------------------------------------------------------------ */

describe('recovering from header and version errors', () => {
  it('after -32020 on a tool whose schema it had not seen, lists the tools and retries once with the headers', async () => {
    const { http, client } = await setup(
      fakeServer({
        tools: [DEPLOY],
        call: (_m, seen) =>
          seen.headers['mcp-param-region'] === 'eu'
            ? { result: done('deployed') }
            : { error: { code: -32020, message: 'Mcp-Param-Region header is missing' }, status: 400 },
      }),
    );
    const result = await client.callTool('deploy', { region: 'eu' });
    expect(result.content).toEqual([{ type: 'text', text: 'deployed' }]);
    expect(http.requests.map((r) => r.message.method)).toEqual(['tools/call', 'tools/list', 'tools/call']);
    const [first, list, retry] = http.requests.map((r) => r.message);
    expect(new Set([first!.id, list!.id, retry!.id]).size).toBe(3);
    expect(retry!.params.name).toBe('deploy');
    expect(retry!.params.arguments).toEqual({ region: 'eu' });
    expect(paramHeaders(http.requests[2]!)).toEqual({ 'mcp-param-region': 'eu' });
  });

  it('retries only once when -32020 persists', async () => {
    const { http, client } = await setup(
      fakeServer({ tools: [DEPLOY], call: () => ({ error: { code: -32020, message: 'Header mismatch' }, status: 400 }) }),
    );
    const error = await client.callTool('deploy', { region: 'eu' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32020);
    expect(http.requests.filter((r) => r.message.method === 'tools/call')).toHaveLength(2);
    expect(http.requests.filter((r) => r.message.method === 'tools/list')).toHaveLength(1);
  });

  it('after -32022 retries with a version from data.supported that it speaks, in header and _meta alike', async () => {
    const { http, client } = await setup(
      (message, seen) => {
        const version = message.params._meta['io.modelcontextprotocol/protocolVersion'];
        if (seen.headers['mcp-protocol-version'] !== VERSION || version !== VERSION) {
          return { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2025-11-25', VERSION], requested: version } }, status: 400 };
        }
        return { result: done('negotiated') };
      },
      { protocolVersion: '2099-01-01' },
    );
    const result = await client.callTool('t', { a: 1 });
    expect(result.content).toEqual([{ type: 'text', text: 'negotiated' }]);
    expect(http.requests).toHaveLength(2);
    const [first, retry] = http.requests;
    expect(first!.headers['mcp-protocol-version']).toBe('2099-01-01');
    expect(retry!.headers['mcp-protocol-version']).toBe(VERSION);
    expect(retry!.message.params._meta['io.modelcontextprotocol/protocolVersion']).toBe(VERSION);
    expect(retry!.message.id).not.toBe(first!.message.id);
    expect(retry!.message.params.arguments).toEqual({ a: 1 });
    expect(client.protocolVersion).toBe(VERSION);
    // Later requests use the negotiated version straight away.
    await client.callTool('t', {});
    expect(http.requests).toHaveLength(3);
    expect(http.requests[2]!.headers['mcp-protocol-version']).toBe(VERSION);
  });

  it('surfaces -32022 when data.supported lists no version it speaks', async () => {
    const data = { supported: ['2031-01-01'], requested: VERSION };
    const { http, client } = await setup(() => ({ error: { code: -32022, message: 'Unsupported protocol version', data }, status: 400 }));
    const error = await client.callTool('t', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32022);
    expect((error as McpError).data).toEqual(data);
    expect(http.requests).toHaveLength(1);
  });
});

/* ------------------------------------------------------------------ */

describe('HTTP errors (§6)', () => {
  it.each([
    [400, { code: -32021, message: 'This tool needs form elicitation', data: { requiredCapabilities: { elicitation: { form: {} } } } }, false],
    [404, { code: -32601, message: 'Method not found' }, false],
    [400, { code: -32602, message: 'Invalid params', data: { field: 'x' } }, true],
  ])('turns a JSON-RPC error body on HTTP %s into McpError with its code and data (%#)', async (status, body, omitId) => {
    const { client } = await setup(() => ({ error: body, status, omitId }));
    const error = await client.callTool('t', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).not.toBeInstanceOf(TransportError);
    expect((error as McpError).code).toBe(body.code);
    expect((error as McpError).data).toEqual((body as Json).data);
  });

  it.each([
    ['plain text', 'text/plain', 'upstream exploded'],
    ['JSON that is not JSON-RPC', 'application/json', '{"error":"boom"}'],
    ['HTML', 'text/html', '<html><body>Bad gateway</body></html>'],
  ])('turns a 500 with %s into TransportError carrying the status', async (_label, contentType, body) => {
    const { client } = await setup(() => ({ status: 500, contentType, body }));
    const error = await client.callTool('t', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).not.toBeInstanceOf(McpError);
    expect((error as TransportError).status).toBe(500);
  });
});

/* ------------------------------------------------------------------ */

describe('unreachable servers', () => {
  it('turns a refused connection into TransportError', async () => {
    const http = await startScriptedHttp(() => ({ result: done() }));
    const url = http.url;
    await http.close();
    const client = new Client(INFO, { era: 'modern' });
    clients.push(client);
    await client.connect(url);
    await expect(client.callTool('t', {})).rejects.toBeInstanceOf(TransportError);
  });
});

describe('SSE response streams (§10.1, §10.2, §12.2)', () => {
  it('turns a JSON-RPC error at the end of an SSE stream into McpError', async () => {
    const { client } = await setup((message) => ({
      sse: [note('notifications/progress', { progressToken: 'x', progress: 1 }), { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'Unknown tool', data: { name: 't' } } }],
    }));
    const error = await client.callTool('t', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).data).toEqual({ name: 't' });
  });


  it('delivers progress with each request’s own token to its onProgress and log messages to onLog', async () => {
    const arrived: Array<() => void> = [];
    let release!: () => void;
    const both = new Promise<void>((resolve) => (release = resolve));
    const onLog = vi.fn();
    const { http, client } = await setup(
      async (message) => {
        arrived.push(() => undefined);
        if (arrived.length === 2) release();
        await both; // both requests are active at once
        const token = message.params._meta.progressToken;
        const tag = message.params.arguments.tag;
        return {
          sse: [
            note('notifications/progress', { progressToken: token, progress: 1, total: 2, message: `half ${tag}` }),
            note('notifications/progress', { progressToken: `not-${String(token)}`, progress: 99 }),
            ': a comment line to ignore\n\n',
            note('notifications/message', { level: 'warning', logger: 'test', data: `log ${tag}` }),
            note('notifications/progress', { progressToken: token, progress: 2, total: 2 }),
            responseTo(message, done(`done ${tag}`)),
          ],
        };
      },
      { logLevel: 'info', onLog },
    );
    const progressA: unknown[] = [];
    const progressB: unknown[] = [];
    const [a, b] = await Promise.all([
      client.callTool('t', { tag: 'A' }, { onProgress: (p) => progressA.push(p) }),
      client.callTool('t', { tag: 'B' }, { onProgress: (p) => progressB.push(p) }),
    ]);
    expect(a.content).toEqual([{ type: 'text', text: 'done A' }]);
    expect(b.content).toEqual([{ type: 'text', text: 'done B' }]);
    const tokens = http.requests.map((r) => r.message.params._meta.progressToken);
    for (const t of tokens) expect(typeof t === 'string' || Number.isInteger(t)).toBe(true);
    expect(new Set(tokens).size).toBe(2);
    expect(progressA.map((p) => (p as Json).progress)).toEqual([1, 2]);
    expect(progressB.map((p) => (p as Json).progress)).toEqual([1, 2]);
    expect((progressA[0] as Json).message).toBe('half A');
    expect((progressB[0] as Json).message).toBe('half B');
    for (const r of http.requests) expect(r.message.params._meta['io.modelcontextprotocol/logLevel']).toBe('info');
    const logs = onLog.mock.calls.map((c) => c[0] as Json);
    expect(logs.map((l) => l.data).sort()).toEqual(['log A', 'log B']);
    for (const l of logs) expect(l.level).toBe('warning');
  });

  it('sends no progressToken when no onProgress is given', async () => {
    const { http, client } = await setup(fakeServer());
    await client.callTool('t', {});
    expect(Object.keys(http.requests[0]!.message.params._meta)).not.toContain('progressToken');
  });

  it('re-issues a request whose stream ended before the response, as a new request with a new id', async () => {
    let n = 0;
    const { http, client } = await setup((message) =>
      ++n === 1
        ? { sse: [note('notifications/progress', { progressToken: message.params._meta.progressToken ?? 'x', progress: 1 })] }
        : { result: done('second time lucky') },
    );
    const result = await client.callTool('t', { a: 1 }, { onProgress: () => undefined });
    expect(result.content).toEqual([{ type: 'text', text: 'second time lucky' }]);
    expect(http.requests).toHaveLength(2);
    const [first, again] = http.requests;
    expect(again!.message.id).not.toBe(first!.message.id);
    expect(typeof again!.message.id === 'string' || Number.isInteger(again!.message.id)).toBe(true);
    expect(again!.message.method).toBe('tools/call');
    expect(again!.message.params.name).toBe('t');
    expect(again!.message.params.arguments).toEqual({ a: 1 });
    expectRequestMeta(again!.message, INFO);
    expect(again!.headers['mcp-method']).toBe('tools/call');
    expect(again!.headers['mcp-name']).toBe('t');
  });

  it('gives up with TransportError when re-issued requests keep losing their stream', async () => {
    const { http, client } = await setup(() => ({ sse: [] }));
    await expect(client.callTool('t', {})).rejects.toBeInstanceOf(TransportError);
    expect(http.requests.length).toBeGreaterThanOrEqual(2);
    expect(http.requests.length).toBeLessThanOrEqual(5);
    expect(new Set(http.requests.map((r) => r.message.id)).size).toBe(http.requests.length);
  });
});
