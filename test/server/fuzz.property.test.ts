/**
 * Property-based robustness of the whole request path, in process through the
 * fetch handler: over ten thousand random, mutated and well-formed messages
 * (raw body text, so invalid JSON too) with right and wrong headers. Whatever
 * arrives, the handler never throws, and every reply obeys the wire rules of
 * spec §2, §5, §6, §10.1, §10.3, §12.
 */

import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpError, McpServer } from '../../src/index.js';
import { createFetchHandler } from '../../src/fetch.js';
import { VERSION } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';
import { assertServerMessage } from '../helpers/wire-schema.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Message = Record<string, unknown>;

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

const MAX_BODY = 64 * 1024;
const HANG_GUARD_MS = 10_000;
const ENDPOINT = 'http://127.0.0.1/mcp';

/**
 * Statuses the spec (and RFC 9110 for 406/413/415) gives a Streamable HTTP POST
 * here (§6, §12); 403/405 cannot occur in these runs.
 */
const ALLOWED_STATUSES = new Set([200, 202, 400, 404, 406, 413, 415]);
const SPEC_CODES_IN_RESERVED_RANGE = new Set([-32020, -32021, -32022]);
const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const METHODS = [
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
] as const;
const OTHER_METHODS = ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'tasks/get', 'tasks/result', 'TOOLS/LIST', 'tools/list ', '', 'notifications/cancelled'];

/* ------------------------------------------------------------------ */
/* The server under test                                               */
/* ------------------------------------------------------------------ */


function buildServer(): McpServer {
  // The 2026-07-28 request path; the 2025-era lifecycle has its own tests.
  const server = new McpServer({ name: 'fuzz', version: '1.0.0' }, { logger: quietLogger(), pageSize: 2, legacy: false });
  server.tool('echo', { input: z.object({ text: z.string(), times: z.number().int().min(1).max(3).optional() }) }, ({ text, times }) =>
    text.repeat(times ?? 1),
  );
  server.tool(
    'mirror',
    {
      input: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          count: { type: 'integer', 'x-mcp-header': 'Count' },
          dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
        },
        additionalProperties: false,
      },
    },
    (args) => JSON.stringify(args),
  );
  server.tool('structured', { input: z.object({ n: z.number() }), output: z.object({ double: z.number() }) }, ({ n }) => ({
    content: [{ type: 'text', text: String(n * 2) }],
    structuredContent: { double: n * 2 },
  }));
  server.tool('progress', { description: 'Progress and a log line' }, (_args, ctx) => {
    ctx.progress(1, { total: 2 });
    ctx.log('info', { step: 'half way' }, 'fuzz');
    ctx.progress(2, { total: 2, message: 'done' });
    return 'done';
  });
  server.tool('fail', { description: 'Throws a plain Error' }, () => {
    throw new Error('internal detail that must stay on the server');
  });
  server.tool('refuse', { description: 'Throws an McpError' }, () => {
    throw McpError.invalidParams('Invalid params: refused');
  });
  server.resource({ uri: 'test://static/one', name: 'one', mimeType: 'text/plain' }, () => 'one');
  server.resource({ uri: 'test://static/bin', name: 'bin' }, () => new Uint8Array([0, 1, 2, 255]));
  server.resourceTemplate(
    { uriTemplate: 'test://items/{id}', name: 'item', complete: { id: ({ value }) => ['a1', 'a2', 'b1'].filter((v) => v.startsWith(value)) } },
    (_uri, variables) => `item ${variables.id}`,
  );
  server.prompt(
    'greet',
    { arguments: [{ name: 'name', required: true }], complete: { name: ({ value }) => ['ann', 'bob'].filter((v) => v.startsWith(value)) } },
    (args) => `Hello ${args.name}`,
  );
  server.prompt('typed', { arguments: z.object({ topic: z.string().min(1) }) }, ({ topic }) => [
    { role: 'user', content: { type: 'text', text: topic } },
  ]);
  return server;
}

const handle = createFetchHandler(buildServer(), { dnsRebindingProtection: false, maxBodyBytes: MAX_BODY, keepAliveMs: 0 });

/* ------------------------------------------------------------------ */
/* Building requests the way a client does                             */
/* ------------------------------------------------------------------ */

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
/** An id a server can echo exactly: a string, or an integer JSON numbers hold exactly (JSON-RPC 2.0 §5; issue 18). */
function isRequestId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** §12.3/§12.4 value encoding, written here from the spec (plain when safe, else the Base64 sentinel). */
function encodeHeaderValue(value: string): string {
  const unsafe = /^[ \t]|[ \t]$/.test(value) || /[^\x20-\x7e]/.test(value) || /^=\?base64\?.*\?=$/s.test(value);
  return unsafe ? `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=` : value;
}

const printable = (value: unknown): value is string => typeof value === 'string' && /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value);

/** The headers a correct client would send for this body (best effort for malformed bodies). */
function headersFor(view: unknown): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (!isObject(view)) return headers;
  const params = isObject(view.params) ? view.params : undefined;
  const version = isObject(params?._meta) ? params._meta[PV] : undefined;
  headers['mcp-protocol-version'] = printable(version) ? version : VERSION;
  if (typeof view.method === 'string') headers['mcp-method'] = printable(view.method) ? view.method : encodeHeaderValue(view.method);
  const name = view.method === 'resources/read' ? params?.uri : view.method === 'tools/call' || view.method === 'prompts/get' ? params?.name : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  if (view.method === 'tools/call' && params?.name === 'mirror' && isObject(params.arguments)) {
    for (const [key, header] of [['region', 'Region'], ['count', 'Count'], ['dry', 'Dry-Run']] as const) {
      const value = params.arguments[key];
      if (value === undefined || value === null) continue;
      const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
      headers[`mcp-param-${header.toLowerCase()}`] = encodeHeaderValue(text);
    }
  }
  return headers;
}

/** The server must never stream for a listen request here: it would stay open. */
function forbidStreamingForListen(body: string, view: unknown, headers: Record<string, string>): void {
  if (body.includes('subscriptions/listen') || (isObject(view) && view.method === 'subscriptions/listen')) headers.accept = 'application/json';
}

/* ------------------------------------------------------------------ */
/* Arbitraries                                                         */
/* ------------------------------------------------------------------ */

const unicodeText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }),
  fc.constantFrom('\u0000', '\uD800', '\uDFFF', 'e\u0301', '🚀', '=?base64?SGk=?=', ' padded ', '\r\n', '\u2028', '../../etc/passwd'),
);

const nested = (depth: number): Json => {
  let value: Json = 'core';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { d: value };
  return value;
};

const junk: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 2, arbitrary: unicodeText },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, 2 ** 53 + 2, 1e308, -0, '', [], {}) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 400 }).map(nested) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 40_000 }).map((n) => 'é'.repeat(n)) },
);

const requestId = fc.oneof(fc.integer(), fc.string({ maxLength: 16 }), fc.constantFrom(0, -1, 2 ** 31, Number.MAX_SAFE_INTEGER, ''));

/** A valid `_meta`; with `oddVersions`, sometimes a version this server does not serve. */
const metaWith = (oddVersions: boolean): fc.Arbitrary<Record<string, Json>> => fc
  .record(
    {
      version: oddVersions ? fc.oneof({ weight: 6, arbitrary: fc.constant(VERSION) }, fc.constantFrom('2025-11-25', '2099-01-01', 'DRAFT-2026-v1')) : fc.constant(VERSION),
      info: fc.boolean(),
      capabilities: fc.constantFrom<Json>({}, { elicitation: {} }, { sampling: {}, roots: {} }, { extensions: { 'io.modelcontextprotocol/tasks': {} } }),
      progressToken: fc.option(fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { nil: undefined }),
      logLevel: fc.option(fc.constantFrom(...LOG_LEVELS, 'verbose', 'INFO'), { nil: undefined }),
    },
    { requiredKeys: ['version', 'info', 'capabilities'] },
  )
  .map(({ version, info, capabilities, progressToken, logLevel }) => {
    const m: Record<string, Json> = { [PV]: version, [CAPS]: capabilities };
    if (info) m[INFO] = { name: 'fuzzer', version: '0.0.1' };
    if (progressToken !== undefined) m.progressToken = progressToken;
    if (logLevel !== undefined) m[LOG_LEVEL] = logLevel;
    return m;
  });
const meta = metaWith(false);

const cursor = fc.option(fc.oneof(fc.string({ maxLength: 12 }), junk), { nil: undefined }).map((c): Record<string, Json> => (c === undefined ? {} : { cursor: c }));

/** Params a client could well send, per method (including unknown names and odd values). */
const paramsFor: Record<(typeof METHODS)[number], fc.Arbitrary<Record<string, Json>>> = {
  'server/discover': fc.constant({}),
  'tools/list': cursor,
  'prompts/list': cursor,
  'resources/list': cursor,
  'resources/templates/list': cursor,
  'tools/call': fc.oneof(
    fc.record({ name: fc.constant('progress'), arguments: fc.constant({}) }),
    fc.record({ name: fc.constant('echo'), arguments: fc.record({ text: unicodeText, times: fc.integer({ min: -1, max: 5 }) }, { requiredKeys: ['text'] }) }),
    fc.record({
      name: fc.constant('mirror'),
      arguments: fc.record({ region: unicodeText, count: fc.integer(), dry: fc.boolean() }, { requiredKeys: [] }),
    }),
    fc.record({ name: fc.constant('structured'), arguments: fc.record({ n: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), junk) }) }),
    fc.record({ name: fc.constantFrom('progress', 'fail', 'refuse', 'no-such-tool'), arguments: fc.dictionary(fc.string({ maxLength: 6 }), junk, { maxKeys: 3 }) }),
  ),
  'resources/read': fc.record({
    uri: fc.oneof(fc.constantFrom('test://static/one', 'test://static/bin', 'test://items/a1', 'test://items/', 'test://nope'), fc.webUrl(), unicodeText),
  }),
  'prompts/get': fc.record(
    { name: fc.constantFrom('greet', 'typed', 'nope'), arguments: fc.dictionary(fc.constantFrom('name', 'topic', 'x'), fc.oneof(unicodeText, junk), { maxKeys: 3 }) },
    { requiredKeys: ['name'] },
  ),
  'completion/complete': fc.record(
    {
      ref: fc.oneof(
        fc.record({ type: fc.constant('ref/prompt'), name: fc.constantFrom('greet', 'typed', 'nope') }),
        fc.record({ type: fc.constant('ref/resource'), uri: fc.constantFrom('test://items/{id}', 'test://static/one', 'x') }),
        junk,
      ),
      argument: fc.oneof(fc.record({ name: fc.constantFrom('name', 'id', 'topic', 'zzz'), value: unicodeText }), junk),
      context: fc.record({ arguments: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(unicodeText, junk), { maxKeys: 2 }) }),
    },
    { requiredKeys: ['ref', 'argument'] },
  ),
  'subscriptions/listen': fc.record({
    notifications: fc.oneof(
      fc.record(
        { toolsListChanged: fc.boolean(), promptsListChanged: fc.boolean(), resourcesListChanged: fc.boolean(), resourceSubscriptions: fc.array(unicodeText, { maxLength: 3 }) },
        { requiredKeys: [] },
      ),
      junk,
    ),
  }),
};

const requestWith = (m: fc.Arbitrary<Record<string, Json>>): fc.Arbitrary<Record<string, Json>> =>
  fc
    .constantFrom(...METHODS)
    .chain((method) => fc.record({ id: requestId, params: paramsFor[method], meta: m }).map(({ id, params, meta: mm }) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: mm } })));

/** What a correct client sends. */
const wellFormedRequest = requestWith(meta);
/** The same, sometimes for a protocol version the server does not serve: the seed for mutations. */
const seedRequest = requestWith(metaWith(true));

/* Mutations: drop, replace or add at a random place in the message tree. */

type TreeMutation = { kind: 'delete' | 'replace' | 'add'; pick: number; key: string; value: Json };
type FieldMutation = { kind: 'params' | '_meta'; key: string; value: Json | undefined };
type Mutation = TreeMutation | FieldMutation | { kind: 'id' | 'method'; value: Json };
const isTreeMutation = (m: Mutation): m is TreeMutation => m.kind === 'delete' || m.kind === 'replace' || m.kind === 'add';
const isFieldMutation = (m: Mutation): m is FieldMutation => m.kind === 'params' || m.kind === '_meta';

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('delete', 'replace', 'add') as fc.Arbitrary<'delete' | 'replace' | 'add'>, pick: fc.nat(), key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('_meta', 'id', 'method', 'params', 'jsonrpc', 'result', 'error', '__proto__', PV, CAPS)), value: junk }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('id' as const), value: fc.oneof(fc.constantFrom<Json>(null, 1.5, -0, true, {}, [], 'x'.repeat(300)), junk) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('method' as const), value: fc.oneof(fc.constantFrom<Json>(...METHODS, ...OTHER_METHODS), unicodeText, junk) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('params', '_meta') as fc.Arbitrary<'params' | '_meta'>,
      key: fc.constantFrom('name', 'uri', 'arguments', 'cursor', 'ref', 'argument', 'notifications', 'inputResponses', 'requestState', PV, CAPS, INFO, LOG_LEVEL, 'progressToken', 'traceparent'),
      value: fc.option(junk, { nil: undefined }),
    }),
  },
);

/** Every node of a JSON tree with its parent, up to a depth (enough to reach `_meta` entries and arguments). */
function nodes(root: Json): Array<{ parent: Json[] | { [key: string]: Json } | undefined; key: string | number | undefined; value: Json }> {
  const out: Array<{ parent: Json[] | { [key: string]: Json } | undefined; key: string | number | undefined; value: Json }> = [
    { parent: undefined, key: undefined, value: root },
  ];
  const walk = (value: Json, depth: number): void => {
    if (depth > 5 || value === null || typeof value !== 'object') return;
    const entries: Array<[string | number, Json]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, child] of entries) {
      out.push({ parent: value, key, value: child });
      walk(child, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

function mutate(message: Record<string, Json>, mutations: Mutation[]): Json {
  let root: Json = JSON.parse(JSON.stringify(message)) as Json;
  for (const m of mutations) {
    if (isFieldMutation(m)) {
      const params = isObject(root) ? (root as Record<string, Json>).params : undefined;
      const target = m.kind === 'params' ? params : isObject(params) ? (params as Record<string, Json>)._meta : undefined;
      if (isObject(target)) {
        if (m.value === undefined) delete (target as Record<string, Json>)[m.key];
        else (target as Record<string, Json>)[m.key] = m.value;
      }
      continue;
    }
    if (!isTreeMutation(m)) {
      if (isObject(root)) (root as Record<string, Json>)[m.kind] = m.value;
      continue;
    }
    const all = nodes(root);
    const target = all[m.pick % all.length]!;
    if (m.kind === 'delete') {
      if (target.parent === undefined) continue;
      if (Array.isArray(target.parent)) target.parent.splice(target.key as number, 1);
      else delete target.parent[target.key as string];
    } else if (m.kind === 'replace') {
      if (target.parent === undefined) root = m.value;
      else if (Array.isArray(target.parent)) target.parent[target.key as number] = m.value;
      else target.parent[target.key as string] = m.value;
    } else if (isObject(target.value)) {
      Object.defineProperty(target.value, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
    } else if (Array.isArray(target.value)) {
      target.value.push(m.value);
    }
  }
  return root;
}

type HeaderMutation =
  | { kind: 'drop'; pick: number }
  | { kind: 'set'; pick: number; value: string }
  | { kind: 'add'; name: string; value: string }
  | { kind: 'accept' | 'content-type'; value: string | undefined };

const headerValue = fc.oneof(fc.stringMatching(/^[\x21-\x7e]{0,24}$/), fc.constantFrom(VERSION, '2099-01-01', 'tools/list', '=?base64?!!?=', '=?base64?dG9vbHMvbGlzdA==?='));
const headerMutation: fc.Arbitrary<HeaderMutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), value: headerValue }),
  fc.record({ kind: fc.constant('add' as const), name: fc.constantFrom('mcp-param-region', 'mcp-param-count', 'mcp-param-junk', 'mcp-name', 'mcp-session-id', 'last-event-id'), value: headerValue }),
  fc.record({ kind: fc.constant('accept' as const), value: fc.constantFrom(undefined, 'application/json', 'text/event-stream', '*/*') }),
  fc.record({ kind: fc.constant('content-type' as const), value: fc.constantFrom(undefined, 'text/plain', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/jsonx') }),
);

function mutateHeaders(headers: Record<string, string>, mutations: HeaderMutation[]): Record<string, string> {
  const out = { ...headers };
  for (const m of mutations) {
    const names = Object.keys(out);
    if (m.kind === 'drop' && names.length > 0) delete out[names[m.pick % names.length]!];
    else if (m.kind === 'set' && names.length > 0) out[names[m.pick % names.length]!] = m.value;
    else if (m.kind === 'add') out[m.name] = m.value;
    else if (m.kind === 'accept' || m.kind === 'content-type') {
      if (m.value === undefined) delete out[m.kind];
      else out[m.kind] = m.value;
    }
  }
  return out;
}

/* ------------------------------------------------------------------ */
/* One exchange and the rules every reply must follow                  */
/* ------------------------------------------------------------------ */

interface Exchange {
  status: number;
  contentType: string;
  text: string;
  messages: Message[];
}

function guard<T>(promise: Promise<T>, what: string, controller: AbortController): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`hang: no ${what} within ${HANG_GUARD_MS} ms`));
    }, HANG_GUARD_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function exchange(body: string, headers: Record<string, string>, onMessage?: (m: Message, controller: AbortController) => void): Promise<Exchange> {
  const controller = new AbortController();
  const request = new Request(ENDPOINT, { method: 'POST', headers, body, signal: controller.signal });
  // The handler must not throw or reject, whatever the input.
  const response = await guard(handle(request), 'response', controller);
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.includes('text/event-stream')) {
    const messages: Message[] = [];
    const parser = createParser({
      onEvent: (event) => {
        const message = JSON.parse(event.data) as Message;
        messages.push(message);
        onMessage?.(message, controller);
      },
    });
    const read = async (): Promise<void> => {
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    };
    await guard(read(), 'end of the SSE stream', controller);
    return { status: response.status, contentType, text: '', messages };
  }
  const text = await guard(response.text(), 'response body', controller);
  let messages: Message[] = [];
  if (text !== '') {
    try {
      messages = [JSON.parse(text) as Message];
    } catch {
      throw new Error(`status ${response.status} body is not JSON: ${text.slice(0, 200)}`);
    }
  }
  return { status: response.status, contentType, text, messages };
}

/** What the server will read: the body after UTF-8 encoding (lone surrogates become U+FFFD). */
function serverView(body: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(new TextEncoder().encode(body)));
  } catch {
    return undefined;
  }
}

function check(body: string, headers: Record<string, string>, ex: Exchange): void {
  const view = serverView(body);
  const context = (): string => `\nstatus ${ex.status}\nbody: ${body.slice(0, 300)}\nheaders: ${JSON.stringify(headers)}\nreply: ${JSON.stringify(ex.messages).slice(0, 600)}`;
  const fail = (reason: string): never => {
    throw new Error(`${reason}${context()}`);
  };

  if (!ALLOWED_STATUSES.has(ex.status)) fail(`status ${ex.status} is not one the spec gives`);

  // Refusals before the body is read: each only for its own reason, and each reason refused.
  const contentType = headers['content-type'];
  const jsonBody = contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim());
  const tooLarge = Buffer.byteLength(body, 'utf8') > MAX_BODY;
  const accept = headers.accept;
  const acceptable = accept === undefined || /application\/json|text\/event-stream|\*\/\*|application\/\*/.test(accept);
  if (ex.status === 406 && acceptable) fail('406 although Accept allows JSON or SSE');
  if (ex.status === 415 && jsonBody) fail('415 for an application/json body');
  if (ex.status === 413 && !tooLarge) fail(`413 for a body within ${MAX_BODY} bytes`);
  if (!jsonBody && ![415, 406].includes(ex.status)) fail('a non-JSON Content-Type was not refused with 415');
  if (tooLarge && ![413, 415, 406].includes(ex.status)) fail('an oversized body was not refused with 413');
  if (ex.status === 413 || ex.status === 415 || ex.status === 406) {
    for (const m of ex.messages) assertServerMessage(m);
    return;
  }

  const isNotificationShaped = isObject(view) && 'method' in view && !('id' in view);
  if (ex.status === 202) {
    if (ex.text !== '' || ex.messages.length > 0) fail('202 with a body');
    if (!(isNotificationShaped && view.jsonrpc === '2.0' && typeof view.method === 'string' && (view.params === undefined || isObject(view.params)))) {
      fail('202 for something that is not a valid notification');
    }
    return;
  }

  const sse = ex.contentType.includes('text/event-stream');
  if (!sse && !ex.contentType.includes('application/json')) fail(`content type ${ex.contentType}`);
  if (sse && ex.status !== 200) fail('an SSE stream with a status other than 200');
  if (ex.messages.length === 0) fail('no JSON-RPC message in the reply');
  if (!sse && ex.messages.length !== 1) fail('a JSON body with more than one message');

  const method = isObject(view) && typeof view.method === 'string' ? view.method : undefined;
  for (const m of ex.messages) {
    try {
      assertServerMessage(m, method);
    } catch (error) {
      fail(`schema: ${(error as Error).message}`);
    }
  }

  const last = ex.messages[ex.messages.length - 1]!;
  if (last.jsonrpc !== '2.0') fail('jsonrpc is not "2.0"');
  if ('result' in last === 'error' in last) fail('a response must have result XOR error');
  if ('id' in last && (last.id === null || !isRequestId(last.id))) fail('a response id that is null or not a RequestId');

  // The id is echoed when it could be read, and omitted (never null) when it could not.
  if (isObject(view) && 'method' in view) {
    if (isRequestId(view.id)) {
      if (last.id !== view.id) fail(`response id ${JSON.stringify(last.id)} differs from request id ${JSON.stringify(view.id)}`);
    } else if ('id' in last) {
      fail('an id was echoed although the request id was not readable');
    }
  }
  if (isNotificationShaped && ex.status < 400) fail('a rejected notification must get a 4xx');

  if ('result' in last) {
    if (ex.status !== 200) fail('a result with a status other than 200');
    const result = last.result as Message;
    if (result.resultType === 'input_required' && !(method && MRTR_METHODS.has(method))) fail('input_required on a method that may not return it');
  } else {
    const code = (last.error as { code: number }).code;
    if (!sse) {
      if (code === -32601 && ex.status !== 404) fail('-32601 must travel with 404');
      if (ex.status === 404 && code !== -32601) fail('404 must carry -32601');
      if (SPEC_CODES_IN_RESERVED_RANGE.has(code) && ex.status !== 400) fail(`${code} must travel with 400`);
    }
    if (code <= -32000 && code >= -32099 && !SPEC_CODES_IN_RESERVED_RANGE.has(code)) fail(`code ${code} is reserved or legacy`);
    if (code === -32603 && JSON.stringify(last).includes('internal detail')) fail('an internal error leaked its detail');
  }

  // Notifications before the response belong to this request and were asked for.
  const params = isObject(view) && isObject(view.params) ? view.params : undefined;
  const requestMeta = isObject(params?._meta) ? params._meta : undefined;
  let lastProgress = -Infinity;
  for (const note of ex.messages.slice(0, -1)) {
    if (!('method' in note) || 'id' in note) fail('a non-notification before the response');
    const noteParams = (note.params ?? {}) as Message;
    if (note.method === 'notifications/progress') {
      if (requestMeta?.progressToken === undefined || noteParams.progressToken !== requestMeta.progressToken) fail('progress for a token the request did not send');
      if (!((noteParams.progress as number) > lastProgress)) fail('progress did not increase');
      lastProgress = noteParams.progress as number;
    } else if (note.method === 'notifications/message') {
      if (typeof requestMeta?.[LOG_LEVEL] !== 'string') fail('a log message for a request without logLevel');
    } else {
      fail(`unexpected notification ${String(note.method)} on a request stream`);
    }
  }
}

async function run(body: string, headers: Record<string, string>): Promise<void> {
  check(body, headers, await exchange(body, headers));
}

/* ------------------------------------------------------------------ */
/* Properties (numRuns add up to more than 10,000 messages)            */
/* ------------------------------------------------------------------ */

const LONG = 180_000;

describe('fuzzing the request path', () => {
  it('survives arbitrary JSON values as bodies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 5, stringUnit: 'binary' }), async (value) => {
        const body = JSON.stringify(value) ?? 'null';
        const headers = headersFor(serverView(body));
        forbidStreamingForListen(body, serverView(body), headers);
        await run(body, headers);
      }),
      { numRuns: 2000 },
    );
  }, LONG);

  it('survives bodies that are not JSON, or barely', async () => {
    const valid = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [PV]: VERSION, [CAPS]: {} } } });
    const rawBody = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.string({ unit: 'binary-ascii', maxLength: 200 }),
      fc.nat(valid.length).map((n) => valid.slice(0, n)),
      fc.string({ maxLength: 20 }).map((tail) => valid + tail),
      fc.constantFrom('', ' ', '\n', '\uFEFF' + valid, valid.replace('"2.0"', "'2.0'"), 'NaN', 'undefined', '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"a":1e999}}}'),
      fc.integer({ min: 1, max: 5000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
      fc.integer({ min: 1, max: 5000 }).map((d) => '{"a":'.repeat(d) + '1' + '}'.repeat(d)),
      fc.integer({ min: MAX_BODY - 10, max: MAX_BODY + 10 }).map((n) => `"${'x'.repeat(n)}"`),
    );
    await fc.assert(
      fc.asyncProperty(rawBody, async (body) => {
        const headers = headersFor(serverView(body));
        forbidStreamingForListen(body, serverView(body), headers);
        await run(body, headers);
      }),
      { numRuns: 1500 },
    );
  }, LONG);

  it('survives mutated requests sent with the headers a client would compute', async () => {
    await fc.assert(
      fc.asyncProperty(seedRequest, fc.array(mutation, { minLength: 1, maxLength: 3 }), async (request, mutations) => {
        const body = JSON.stringify(mutate(request, mutations)) ?? 'null';
        const view = serverView(body);
        const headers = headersFor(view);
        forbidStreamingForListen(body, view, headers);
        await run(body, headers);
      }),
      { numRuns: 4000 },
    );
  }, LONG);

  it('survives mutated requests with wrong, missing and extra headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        seedRequest,
        fc.array(mutation, { maxLength: 2 }),
        fc.array(headerMutation, { minLength: 1, maxLength: 3 }),
        async (request, mutations, headerMutations) => {
          const body = JSON.stringify(mutate(request, mutations)) ?? 'null';
          const view = serverView(body);
          const headers = mutateHeaders(headersFor(view), headerMutations);
          forbidStreamingForListen(body, view, headers);
          await run(body, headers);
        },
      ),
      { numRuns: 2000 },
    );
  }, LONG);

  it('never rejects the envelope, headers, version or method of a well-formed request', async () => {
    await fc.assert(
      fc.asyncProperty(wellFormedRequest, async (request) => {
        const body = JSON.stringify(request);
        // A lone surrogate has no UTF-8 form, so no client could mirror it into a header.
        fc.pre(!/\\ud[89a-f][0-9a-f]{2}/i.test(body));
        const headers = headersFor(request);
        forbidStreamingForListen(body, request, headers);
        const ex = await exchange(body, headers);
        check(body, headers, ex);
        const error = ex.messages[ex.messages.length - 1]?.error as { code: number } | undefined;
        if (error && ex.status !== 413) {
          // A correct client gets no envelope, header, version or method complaint: only params errors,
          // internal errors from the tools built to fail, and listen refused for want of a stream.
          const allowed =
            request.method === 'subscriptions/listen' ? [-32600, -32602] : request.method === 'tools/call' ? [-32602, -32603] : [-32602];
          expect(allowed, `unexpected ${error.code} for ${body.slice(0, 200)}`).toContain(error.code);
        }
      }),
      { numRuns: 1000 },
    );
  }, LONG);

  it('ends a streamed subscriptions/listen when the client goes away', async () => {
    await fc.assert(
      fc.asyncProperty(requestId, paramsFor['subscriptions/listen'], meta, async (id, params, m) => {
        const request = { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { ...params, _meta: m } };
        const body = JSON.stringify(request);
        const headers = headersFor(request);
        let acknowledged = false;
        const ex = await exchange(body, headers, (message, controller) => {
          if (message.method === 'notifications/subscriptions/acknowledged') {
            acknowledged = true;
            controller.abort();
          }
        });
        if (!ex.contentType.includes('text/event-stream')) {
          // Refused before streaming (e.g. a filter that is not an object): one error with the id.
          check(body, headers, ex);
          expect(ex.messages[0]).toHaveProperty('error');
          return;
        }
        expect(acknowledged).toBe(true);
        for (const message of ex.messages) assertServerMessage(message, 'subscriptions/listen');
        const [ack, ...rest] = ex.messages;
        expect((ack!.params as Message)._meta).toEqual({ [SUBSCRIPTION_ID]: id });
        // The acknowledged filter never holds a type the client did not ask for.
        const asked = (isObject(params.notifications) ? params.notifications : {}) as Message;
        const agreed = (ack!.params as { notifications: Message }).notifications;
        for (const [key, value] of Object.entries(agreed)) {
          if (key === 'resourceSubscriptions') for (const uri of value as string[]) expect(asked.resourceSubscriptions).toContain(uri);
          else expect(asked[key]).toBe(true);
        }
        for (const message of rest) {
          if ('result' in message) expect(message).toMatchObject({ id, result: { _meta: { [SUBSCRIPTION_ID]: id } } });
          else expect((message.params as Message)._meta).toMatchObject({ [SUBSCRIPTION_ID]: id });
        }
      }),
      { numRuns: 100 },
    );
  }, LONG);
});
