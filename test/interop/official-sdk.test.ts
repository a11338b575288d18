/**
 * Interop with the official MCP TypeScript SDK v2 (2.4.0), revision 2026-07-28,
 * in four directions, with real child processes and real HTTP on 127.0.0.1:
 *
 *   1. Tessera Client      → official SDK server   (HTTP)
 *   2. Tessera Client      → official SDK server   (stdio)
 *   3. official SDK Client → Tessera server        (HTTP)
 *   4. official SDK Client → Tessera server        (stdio)
 *
 * Both servers (fixtures/official-sdk-server.ts, fixtures/tessera-interop-server.ts,
 * run from dist/) have `echo` and `profile`, an MRTR tool that asks twice
 * (name, then colour). The answers come from this file's handlers, and every
 * direction must end with the same text. Each direction records the
 * `tools/call` exchanges on the client side and checks that every retry
 * carried a new id, the answers under the keys asked, and the `requestState`
 * exactly as received. The official server checks the same from its side (new
 * id, answers, a MAC over the exact state) and turns any violation into a
 * tool error, which shows up here as a wrong final text.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as OfficialClient, StreamableHTTPClientTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioClientTransport as OfficialStdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from 'tessera-mcp/protocol';
import {
  Client,
  HttpClientTransport,
  type ClientTransport,
  type TransportRequestOptions,
} from 'tessera-mcp/client';
import { StdioClientTransport } from 'tessera-mcp/stdio';
import { compiledFixture, ROOT, startHttpFixture, stopAll, stopPid, type HttpFixture } from '../helpers/child-processes.js';

const VERSION = '2026-07-28';
const ARGS = { greeting: 'Hello' };
const ANSWERS: Record<string, string> = { name: 'Ada', color: 'teal' };
const EXPECTED = 'Hello Ada, your favourite color is teal.';
const QUESTIONS = ['What is your name?', 'What is your favourite color?'];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/* ---------------- processes ---------------- */

/** stderr of every child, for failure messages. */
const stderrOf = new Map<string, () => string>();

/** Appends a stdio child's stderr to the failure messages. */
function collectStderr(name: string): (text: string) => void {
  let stderr = '';
  stderrOf.set(name, () => stderr);
  return (text) => (stderr += text);
}

/** A command line that runs a fixture in stdio mode. */
function stdioCommand(name: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [compiledFixture(name), '--stdio'] };
}

/* ---------------- what each direction records ---------------- */

interface Exchange {
  request: Json;
  response: Json;
}

/** The answer a test user gives: whatever the form asks for, from ANSWERS. */
function answerForm(requestedSchema: unknown): { action: 'accept'; content: Record<string, string> } | { action: 'decline' } {
  const properties = isObject(requestedSchema) && isObject(requestedSchema.properties) ? Object.keys(requestedSchema.properties) : [];
  const known = properties.filter((p) => p in ANSWERS);
  if (known.length === 0) return { action: 'decline' };
  return { action: 'accept', content: Object.fromEntries(known.map((p) => [p, ANSWERS[p]!])) };
}

interface Session {
  label: string;
  callTool(name: string, args: Json): Promise<{ text: string | undefined; isError: boolean; raw: unknown }>;
  /** tools/call exchanges as the client sent and received them, in order. */
  exchanges: Exchange[];
  /** The questions the client's handler was asked, in order. */
  asked: string[];
  close(): Promise<void>;
}

function readTool(raw: unknown): { text: string | undefined; isError: boolean; raw: unknown } {
  const content = isObject(raw) && Array.isArray(raw.content) ? (raw.content as unknown[]) : [];
  const first = content[0];
  return {
    text: isObject(first) && first.type === 'text' && typeof first.text === 'string' ? first.text : undefined,
    isError: isObject(raw) && raw.isError === true,
    raw,
  };
}

/** A Tessera ClientTransport that records every exchange it carries. */
class RecordingTransport implements ClientTransport {
  readonly kind: ClientTransport['kind'];
  readonly exchanges: Exchange[] = [];

  constructor(private readonly inner: ClientTransport) {
    this.kind = inner.kind;
  }

  async request(message: JsonRpcRequest, options?: TransportRequestOptions): Promise<JsonRpcResponse> {
    const response = await this.inner.request(message, options);
    this.exchanges.push({ request: structuredClone(message) as unknown as Json, response: structuredClone(response) as unknown as Json });
    return response;
  }

  onUnrouted(listener: (notification: JsonRpcNotification) => void): void {
    this.inner.onUnrouted?.(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

async function tesseraSession(label: string, inner: ClientTransport): Promise<Session> {
  const asked: string[] = [];
  const client = new Client(
    { name: 'tessera-interop-client', version: '0.1.0' },
    {
      elicitation: {
        form: (params) => {
          asked.push(params.message);
          return answerForm(params.requestedSchema);
        },
      },
    },
  );
  const recording = new RecordingTransport(inner);
  await client.connect(recording);
  return {
    label,
    asked,
    get exchanges() {
      return recording.exchanges.filter((e) => e.request.method === 'tools/call');
    },
    callTool: async (name, args) => readTool(await client.callTool(name, args)),
    close: () => client.close(),
  };
}

/** The official client's transports, seen through the one interface this file needs. */
interface OfficialTransport {
  send(message: JSONRPCMessage, options?: never): Promise<void>;
  onmessage?: ((message: JSONRPCMessage, extra?: never) => void) | undefined;
}

async function officialSession(label: string, transport: StreamableHTTPClientTransport | OfficialStdioClientTransport): Promise<Session> {
  const asked: string[] = [];
  const client = new OfficialClient(
    { name: 'official-interop-client', version: '0.1.0' },
    {
      capabilities: { elicitation: { form: {} } },
      // Without this the official client speaks 2025-11-25 (initialize); pinning makes connect fail unless the server offers 2026-07-28.
      versionNegotiation: { mode: { pin: VERSION } },
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params;
    asked.push(params.message);
    return answerForm('requestedSchema' in params ? params.requestedSchema : undefined);
  });

  // Record what the client sends and receives, at the transport seam.
  const seam = transport as unknown as OfficialTransport;
  const sent: Json[] = [];
  const received: Json[] = [];
  const send = seam.send.bind(seam);
  seam.send = (message, options) => {
    sent.push(structuredClone(message) as unknown as Json);
    return send(message, options);
  };
  await client.connect(transport);
  expect(client.getProtocolEra()).toBe('modern');
  expect(client.getNegotiatedProtocolVersion()).toBe(VERSION);
  const deliver = seam.onmessage;
  if (!deliver) throw new Error('the official client did not install onmessage on its transport');
  seam.onmessage = (message, extra) => {
    received.push(structuredClone(message) as unknown as Json);
    deliver.call(seam, message, extra);
  };

  return {
    label,
    asked,
    get exchanges() {
      return sent
        .filter((m) => m.method === 'tools/call')
        .map((request) => ({ request, response: received.find((r) => r.id === request.id && ('result' in r || 'error' in r)) ?? {} }));
    },
    callTool: async (name, args) => readTool(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

/* ---------------- the checks every direction shares ---------------- */

/**
 * The three tools/call exchanges of one `profile` call: the first without
 * answers or state, then each retry with a new id, the same name and
 * arguments, the answers to what was just asked, and the exact requestState.
 */
function expectTwoRoundFlow(exchanges: Exchange[]): void {
  const flow = exchanges.filter((e) => isObject(e.request.params) && e.request.params.name === 'profile');
  expect(flow, 'profile should take exactly three requests (ask, ask, answer)').toHaveLength(3);
  const ids = flow.map((e) => e.request.id);
  expect(new Set(ids).size, `every retry needs a new request id; got ${JSON.stringify(ids)}`).toBe(3);

  const params = flow.map((e) => e.request.params as Json);
  const results = flow.map((e) => e.response.result as Json);
  for (const [i, e] of flow.entries()) {
    expect(e.response.error, `round ${i + 1} got an error`).toBeUndefined();
    expect(params[i]!.name).toBe('profile');
    expect(params[i]!.arguments).toEqual(ARGS);
  }

  expect(params[0]).not.toHaveProperty('inputResponses');
  expect(params[0]).not.toHaveProperty('requestState');

  const keys = ['name', 'color'];
  for (const round of [0, 1]) {
    const result = results[round]!;
    const retry = params[round + 1]!;
    expect(result.resultType).toBe('input_required');
    expect(Object.keys(result.inputRequests as Json)).toEqual([keys[round]]);
    expect(typeof result.requestState).toBe('string');
    expect(retry.requestState, 'the retry must echo requestState exactly').toBe(result.requestState);
    expect(retry.inputResponses).toEqual({ [keys[round]!]: { action: 'accept', content: { [keys[round]!]: ANSWERS[keys[round]!] } } });
  }

  expect(results[2]!.resultType).toBe('complete');
  expect(results[2]!.content).toEqual([{ type: 'text', text: EXPECTED }]);
}

/* ---------------- the four directions ---------------- */

const finalTexts = new Map<string, string | undefined>();

interface Direction {
  label: string;
  open: () => Promise<Session>;
  /** Extra checks on the HTTP wire, when the direction records it. */
  wire?: () => Json[];
}

/** Bodies of the POSTs an official client put on the wire (HTTP directions). */
const officialHttpBodies: Json[] = [];
const officialHttpHeaders: Array<Record<string, string>> = [];

let officialHttp: HttpFixture | undefined;
let tesseraHttp: HttpFixture | undefined;
const sessions: Session[] = [];
const stdioPids: Array<() => number | null | undefined> = [];

beforeAll(async () => {
  [officialHttp, tesseraHttp] = await Promise.all([startHttpFixture('official-sdk-server'), startHttpFixture('tessera-interop-server')]);
  stderrOf.set('official-sdk-server', officialHttp.stderr);
  stderrOf.set('tessera-interop-server', tesseraHttp.stderr);
});

afterAll(async () => {
  await Promise.allSettled(sessions.map((s) => s.close()));
  for (const pid of stdioPids) stopPid(pid());
  stopAll();
});

const directions: Direction[] = [
  {
    label: '1. Tessera Client → official SDK server over HTTP',
    open: () => tesseraSession('tessera→official http', new HttpClientTransport(officialHttp!.url)),
  },
  {
    label: '2. Tessera Client → official SDK server over stdio',
    open: async () => {
      const transport = new StdioClientTransport({ ...stdioCommand('official-sdk-server'), cwd: ROOT, stderr: 'pipe' });
      stdioPids.push(() => transport.process.pid);
      transport.process.stderr?.setEncoding('utf8').on('data', collectStderr('official-sdk-server --stdio'));
      return tesseraSession('tessera→official stdio', transport);
    },
  },
  {
    label: '3. official SDK Client (pinned 2026-07-28) → Tessera server over HTTP',
    open: () => {
      const recordingFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
        if (typeof init?.body === 'string') {
          officialHttpBodies.push(JSON.parse(init.body) as Json);
          officialHttpHeaders.push(Object.fromEntries(new Headers(init.headers)));
        }
        return fetch(url, init);
      };
      return officialSession('official→tessera http', new StreamableHTTPClientTransport(new URL(tesseraHttp!.url), { fetch: recordingFetch }));
    },
  },
  {
    label: '4. official SDK Client (pinned 2026-07-28) → Tessera server over stdio',
    open: () => {
      const transport = new OfficialStdioClientTransport({ ...stdioCommand('tessera-interop-server'), cwd: ROOT, stderr: 'pipe' });
      stdioPids.push(() => transport.pid);
      const append = collectStderr('tessera-interop-server --stdio');
      transport.stderr?.on('data', (chunk: Buffer) => append(chunk.toString('utf8')));
      return officialSession('official→tessera stdio', transport);
    },
  },
];

for (const direction of directions) {
  describe(direction.label, () => {
    let session: Session;

    beforeAll(async () => {
      session = await direction.open();
      sessions.push(session);
    });

    it('calls a plain tool (echo)', async () => {
      const result = await session.callTool('echo', { text: 'hello interop ✓' });
      expect(result.isError).toBe(false);
      expect(result.text).toBe('hello interop ✓');
    });

    it('runs an MRTR tool that asks twice, answered by the client handlers', async () => {
      const result = await session.callTool('profile', ARGS);
      finalTexts.set(direction.label, result.text);
      expect(result, `servers' stderr: ${JSON.stringify(Object.fromEntries([...stderrOf].map(([name, stderr]) => [name, stderr()])))}`).toMatchObject({ isError: false, text: EXPECTED });
      expect(session.asked).toEqual(QUESTIONS);
    });

    it('retried with a new id, the answers and the exact requestState each time', () => {
      expectTwoRoundFlow(session.exchanges);
    });
  });
}

describe('3. on the HTTP wire (official client → Tessera server)', () => {
  it('the retry bodies and headers carried ids, answers and the exact requestState', () => {
    const calls = officialHttpBodies
      .map((body, i) => ({ body, headers: officialHttpHeaders[i]! }))
      .filter(({ body }) => body.method === 'tools/call' && isObject(body.params) && body.params.name === 'profile');
    expect(calls).toHaveLength(3);
    for (const { body, headers } of calls) {
      expect(headers['mcp-protocol-version']).toBe(VERSION);
      expect(headers['mcp-method']).toBe('tools/call');
      expect(headers['mcp-name']).toBe('profile');
      expect((body.params as Json)._meta).toMatchObject({ 'io.modelcontextprotocol/protocolVersion': VERSION });
    }
    // The transport-level record (checked above) is what went on the wire.
    const session = sessions.find((s) => s.label === 'official→tessera http')!;
    const recorded = session.exchanges.filter((e) => isObject(e.request.params) && e.request.params.name === 'profile');
    expect(calls.map((c) => c.body)).toEqual(recorded.map((e) => e.request));
  });
});

describe('all four directions', () => {
  it('end with the same final text', () => {
    expect([...finalTexts.keys()]).toHaveLength(4);
    expect(new Set(finalTexts.values())).toEqual(new Set([EXPECTED]));
  });
});
