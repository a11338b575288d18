/**
 * Issue 5, "Done when": one Tessera tool that asks twice (fixtures/
 * tessera-interop-server.ts `profile`: a form for the name, then one for the
 * colour, written once with `ctx.ask`), called in every era by both clients,
 * over HTTP and over stdio (real child processes, real HTTP on 127.0.0.1):
 *
 *   (a) Tessera Client pinned modern        (d) official SDK v2 Client pinned 2026-07-28
 *   (b) Tessera Client pinned legacy        (e) official SDK v2 Client in legacy mode (2025-11-25)
 *   (c) Tessera Client era 'auto' (must pick modern against this server)
 *
 * All ten runs must end with the same text. Spec §16.3/§16.4: a legacy
 * connection gets real `elicitation/create` requests (counted through the
 * client's handler and on the wire) and never a `resultType: "input_required"`;
 * a modern request gets `input_required` and never a server request. Each
 * run records the wire on the client side (HTTP: the bodies of every request
 * and reply; stdio: every line) and validates it against its era's schema.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as OfficialClient, StreamableHTTPClientTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioClientTransport as OfficialStdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, LinkClientTransport, type MessageLink } from 'tessera-mcp/client';
import { streamLink } from 'tessera-mcp/stdio';
import { compiledFixture, ROOT, startHttpFixture, stopAll, stopPid, trackPid, type HttpFixture } from '../helpers/child-processes.js';
import { assertServerMessage } from '../helpers/wire-schema.js';
import { assertClientMessage2025, assertServerMessage2025 } from '../helpers/wire-schema-2025.js';

const FIXTURE = 'tessera-interop-server';
const ARGS = { greeting: 'Hello' };
const ANSWERS: Record<string, string> = { name: 'Ada', color: 'teal' };
const EXPECTED = 'Hello Ada, your favourite color is teal.';
const QUESTIONS = ['What is your name?', 'What is your favourite color?'];

type Json = Record<string, any>;
type Era = 'modern' | 'legacy';

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function answerForm(requestedSchema: unknown): { action: 'accept'; content: Record<string, string> } | { action: 'decline' } {
  const properties = isObject(requestedSchema) && isObject(requestedSchema.properties) ? Object.keys(requestedSchema.properties) : [];
  const known = properties.filter((p) => p in ANSWERS);
  if (known.length === 0) return { action: 'decline' };
  return { action: 'accept', content: Object.fromEntries(known.map((p) => [p, ANSWERS[p]!])) };
}

/* ---------------- processes (stopped by PID) ---------------- */

function spawnStdioFixture(): ChildProcess {
  const child = spawn(process.execPath, [compiledFixture(FIXTURE), '--stdio'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  trackPid(child.pid);
  child.stderr!.resume();
  child.stdin!.on('error', () => undefined);
  return child;
}

/* ---------------- recording the wire on the client side ---------------- */

interface WireEntry {
  /** out = client → server, in = server → client. */
  dir: 'out' | 'in';
  message: Json;
}

/** A fetch that records every JSON-RPC message it carries, as the client reads it. */
function recordingFetch(wire: WireEntry[]): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string') {
      try {
        wire.push({ dir: 'out', message: JSON.parse(init.body) as Json });
      } catch {
        // not JSON
      }
    }
    const res = await fetch(input, init);
    if (!res.body) return res;
    const contentType = res.headers.get('content-type') ?? '';
    const decoder = new TextDecoder();
    let text = '';
    const parser = createParser({
      onEvent: (event) => {
        if (event.data.trim() !== '') wire.push({ dir: 'in', message: JSON.parse(event.data) as Json });
      },
    });
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const decoded = decoder.decode(chunk, { stream: true });
        if (contentType.includes('text/event-stream')) parser.feed(decoded);
        else text += decoded;
        controller.enqueue(chunk);
      },
      flush() {
        if (!contentType.includes('text/event-stream') && text.trim() !== '') {
          try {
            wire.push({ dir: 'in', message: JSON.parse(text) as Json });
          } catch {
            // not JSON
          }
        }
      },
    });
    return new Response(res.body.pipeThrough(tap), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** A message link that records every message each way. */
function recordingLink(inner: MessageLink, wire: WireEntry[]): MessageLink {
  return {
    send(message) {
      wire.push({ dir: 'out', message: structuredClone(message) as unknown as Json });
      inner.send(message);
    },
    onMessage(listener) {
      inner.onMessage((value, raw) => {
        if (isObject(value)) wire.push({ dir: 'in', message: structuredClone(value) });
        listener(value, raw);
      });
    },
    onClose: (listener) => inner.onClose(listener),
    close: () => inner.close(),
  };
}

/** Records everything an official SDK transport sends and delivers, from before connect. */
function recordOfficialTransport(transport: object, wire: WireEntry[]): void {
  const seam = transport as { send(message: JSONRPCMessage, options?: unknown): Promise<void>; onmessage?: (message: JSONRPCMessage, extra?: unknown) => void };
  const send = seam.send.bind(seam);
  seam.send = (message, options) => {
    wire.push({ dir: 'out', message: structuredClone(message) as unknown as Json });
    return send(message, options);
  };
  let handler: ((message: JSONRPCMessage, extra?: unknown) => void) | undefined;
  Object.defineProperty(seam, 'onmessage', {
    configurable: true,
    get: () =>
      handler &&
      ((message: JSONRPCMessage, extra?: unknown) => {
        wire.push({ dir: 'in', message: structuredClone(message) as unknown as Json });
        handler!(message, extra);
      }),
    set: (value) => {
      handler = value;
    },
  });
}

/** Validates each recorded message against the schema of the run's era. */
function validateWire(wire: WireEntry[], era: Era): void {
  const outRequests = new Map<unknown, string>();
  const inRequests = new Map<unknown, string>();
  for (const { dir, message } of wire) {
    if (typeof message.method === 'string' && 'id' in message) (dir === 'out' ? outRequests : inRequests).set(message.id, message.method);
  }
  for (const { dir, message } of wire) {
    const isResponse = 'result' in message || 'error' in message;
    if (dir === 'in') {
      if (era === 'legacy') assertServerMessage2025(message, isResponse ? outRequests.get(message.id) : undefined);
      else assertServerMessage(message, isResponse ? outRequests.get(message.id) : undefined);
    } else if (era === 'legacy') {
      assertClientMessage2025(message, isResponse ? inRequests.get(message.id) : undefined);
    }
  }
}

/* ---------------- the runs ---------------- */

interface Run {
  label: string;
  era: Era;
  connect(): Promise<{ call(): Promise<{ text: string | undefined; isError: boolean; raw: unknown }>; close(): Promise<void>; era(): string }>;
  wire: WireEntry[];
  /** Questions the client's elicitation handler was asked, in order. */
  asked: string[];
}

function readTool(raw: unknown): { text: string | undefined; isError: boolean; raw: unknown } {
  const content = isObject(raw) && Array.isArray(raw.content) ? (raw.content as unknown[]) : [];
  const first = content[0];
  return { text: isObject(first) && first.type === 'text' && typeof first.text === 'string' ? first.text : undefined, isError: isObject(raw) && raw.isError === true, raw };
}

let http: HttpFixture | undefined;
const closers: Array<() => Promise<void>> = [];

function tesseraRun(label: string, era: 'modern' | 'legacy' | 'auto', transport: 'http' | 'stdio', expectEra: Era): Run {
  const wire: WireEntry[] = [];
  const asked: string[] = [];
  return {
    label,
    era: expectEra,
    wire,
    asked,
    connect: async () => {
      const client = new Client(
        { name: 'tessera-both-eras', version: '0.1.0' },
        {
          era,
          elicitation: {
            form: (params) => {
              asked.push(params.message);
              return answerForm(params.requestedSchema);
            },
          },
        },
      );
      if (transport === 'http') {
        await client.connect(http!.url, { fetch: recordingFetch(wire) });
      } else {
        const child = spawnStdioFixture();
        closers.push(async () => stopPid(child.pid));
        await client.connect(new LinkClientTransport(recordingLink(streamLink(child.stdout!, child.stdin!), wire), 'stdio'));
      }
      closers.push(() => client.close());
      return { call: async () => readTool(await client.callTool('profile', ARGS)), close: () => client.close(), era: () => client.era };
    },
  };
}

function officialRun(label: string, era: Era, transport: 'http' | 'stdio'): Run {
  const wire: WireEntry[] = [];
  const asked: string[] = [];
  return {
    label,
    era,
    wire,
    asked,
    connect: async () => {
      const client = new OfficialClient(
        { name: 'official-both-eras', version: '0.1.0' },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
      );
      client.setRequestHandler('elicitation/create', async (request) => {
        const params = request.params;
        asked.push(params.message);
        return answerForm('requestedSchema' in params ? params.requestedSchema : undefined);
      });
      let official: StreamableHTTPClientTransport | OfficialStdioClientTransport;
      if (transport === 'http') {
        official = new StreamableHTTPClientTransport(new URL(http!.url));
      } else {
        official = new OfficialStdioClientTransport({ command: process.execPath, args: [compiledFixture(FIXTURE), '--stdio'], cwd: ROOT, stderr: 'ignore' });
      }
      recordOfficialTransport(official, wire);
      await client.connect(official);
      if (official instanceof OfficialStdioClientTransport) {
        trackPid(official.pid);
      }
      closers.push(() => client.close());
      return {
        call: async () => readTool(await client.callTool({ name: 'profile', arguments: ARGS })),
        close: () => client.close(),
        era: () => `${client.getProtocolEra()} ${client.getNegotiatedProtocolVersion()}`,
      };
    },
  };
}

const runs: Array<Run & { transport: 'http' | 'stdio'; expectedEra: string }> = [];
for (const transport of ['http', 'stdio'] as const) {
  runs.push(
    { ...tesseraRun(`(a) Tessera Client pinned modern over ${transport}`, 'modern', transport, 'modern'), transport, expectedEra: 'modern' },
    { ...tesseraRun(`(b) Tessera Client pinned legacy over ${transport}`, 'legacy', transport, 'legacy'), transport, expectedEra: 'legacy' },
    { ...tesseraRun(`(c) Tessera Client era auto over ${transport}`, 'auto', transport, 'modern'), transport, expectedEra: 'modern' },
    { ...officialRun(`(d) official SDK v2 Client pinned 2026-07-28 over ${transport}`, 'modern', transport), transport, expectedEra: 'modern 2026-07-28' },
    { ...officialRun(`(e) official SDK v2 Client legacy (2025-11-25) over ${transport}`, 'legacy', transport), transport, expectedEra: 'legacy 2025-11-25' },
  );
}

const finalTexts = new Map<string, string | undefined>();

beforeAll(async () => {
  http = await startHttpFixture(FIXTURE);
});

afterAll(async () => {
  await Promise.allSettled(closers.map((close) => close()));
  stopAll();
});

for (const run of runs) {
  describe(run.label, () => {
    let result: { text: string | undefined; isError: boolean; raw: unknown } | undefined;
    let era = '';

    beforeAll(async () => {
      const session = await run.connect();
      era = session.era();
      result = await session.call();
      finalTexts.set(run.label, result.text);
    });

    it(`speaks ${run.expectedEra}`, () => {
      expect(era).toBe(run.expectedEra);
    });

    it('finishes with the expected text, the handler having been asked both questions in order', () => {
      expect(result, `HTTP fixture stderr: ${http?.stderr()}`).toMatchObject({ isError: false, text: EXPECTED });
      expect(run.asked).toEqual(QUESTIONS);
    });

    const serverRequests = (): Json[] => run.wire.filter((e) => e.dir === 'in' && typeof e.message.method === 'string' && 'id' in e.message).map((e) => e.message);
    const inputRequired = (): Json[] =>
      run.wire.filter((e) => e.dir === 'in' && isObject(e.message.result) && e.message.result.resultType === 'input_required').map((e) => e.message);

    if (run.era === 'legacy') {
      it('the server sent two real elicitation/create requests (one per handler call), each answered with a response', () => {
        const requests = serverRequests();
        expect(requests.map((r) => r.method)).toEqual(['elicitation/create', 'elicitation/create']);
        expect(new Set(requests.map((r) => r.id)).size).toBe(2);
        expect(run.asked).toHaveLength(requests.length);
        expect(requests.map((r) => r.params.message)).toEqual(QUESTIONS);
        for (const request of requests) {
          const reply = run.wire.find((e) => e.dir === 'out' && e.message.id === request.id && 'result' in e.message);
          expect(reply, `no answer to ${JSON.stringify(request)}`).toBeDefined();
          expect(reply!.message.result).toMatchObject({ action: 'accept' });
        }
      });

      it('no message on the wire had resultType "input_required"; the client never retried with inputResponses', () => {
        expect(inputRequired()).toEqual([]);
        const calls = run.wire.filter((e) => e.dir === 'out' && e.message.method === 'tools/call');
        expect(calls).toHaveLength(1);
        expect(calls[0]!.message.params).not.toHaveProperty('inputResponses');
        expect(run.wire.some((e) => e.dir === 'out' && e.message.method === 'initialize')).toBe(true);
      });

      it('every message on the wire is valid 2025-11-25', () => {
        validateWire(run.wire, 'legacy');
      });
    } else {
      it('the server sent no request; the asks came back as two input_required results and the client retried', () => {
        expect(serverRequests()).toEqual([]);
        expect(inputRequired()).toHaveLength(2);
        const calls = run.wire.filter((e) => e.dir === 'out' && e.message.method === 'tools/call');
        expect(calls).toHaveLength(3);
        expect(run.wire.some((e) => e.dir === 'out' && e.message.method === 'initialize')).toBe(false);
      });

      it('every message from the server is valid 2026-07-28', () => {
        validateWire(run.wire, 'modern');
      });
    }
  });
}

describe('all ten runs (5 clients × HTTP and stdio)', () => {
  it('end with the same result', () => {
    expect([...finalTexts.keys()].sort()).toEqual(runs.map((r) => r.label).sort());
    expect(new Set(finalTexts.values())).toEqual(new Set([EXPECTED]));
  });
});
