/**
 * The client over stdio with a real Tessera server child process
 * (fixtures/stdio-client-peer.ts, which echoes every stdin line to stderr as
 * `recv …`): calls and a multi-round flow work, every line the client writes is
 * one MCP request or notifications/cancelled (spec §13); aborting a request
 * sends notifications/cancelled naming that request's id (§10.2); close() ends
 * the child (§13 shutdown); a child that exits mid-request fails the pending
 * requests with TransportError instead of hanging.
 */

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client, TransportError, type ClientOptions } from '../../src/client.js';
import { StdioClientTransport } from '../../src/stdio.js';
import { expectRequestMeta, expectRetry } from '../helpers/client-rules.js';
import type { Json } from '../helpers/scripted-http.js';
import { compiledFixture } from '../helpers/child-processes.js';

const INFO = { name: 'stdio-client-tests', version: '0.3.0' };

let script: string;
beforeAll(() => {
  script = compiledFixture('stdio-client-peer');
});

interface Started {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  /** Waits for a stderr line matching `pattern` (a guard against hangs, not a speed bound). */
  line: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
  /** What the server received on stdin, parsed (lines that are not JSON are kept as strings). */
  received: () => Array<Json | string>;
}

const started: Started[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) {
    await s.client.close().catch(() => undefined);
    const child = s.transport.process;
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

async function start(options: ClientOptions = {}): Promise<Started> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [script], stderr: 'pipe' });
  let text = '';
  const waiters: Array<() => void> = [];
  transport.process.stderr!.setEncoding('utf8');
  transport.process.stderr!.on('data', (chunk: string) => {
    text += chunk;
    for (const w of waiters.splice(0)) w();
  });
  const client = new Client(INFO, { era: 'modern', ...options });
  await client.connect(transport);
  const s: Started = {
    client,
    transport,
    stderr: () => text,
    async line(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const l of text.split('\n')) {
          const match = l.match(pattern);
          if (match) return match;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`gave up waiting for stderr ${pattern}; stderr so far:\n${text}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    received: () =>
      text
        .split('\n')
        .filter((l) => l.startsWith('recv '))
        .map((l) => {
          const raw = l.slice(5);
          try {
            return JSON.parse(raw) as Json;
          } catch {
            return raw;
          }
        }),
  };
  started.push(s);
  return s;
}

/** Rejects if `promise` has not settled within `ms` (a guard against hangs). */
function noHang<T>(promise: Promise<T>, what: string, ms = 15_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} hung`)), ms).unref()),
  ]);
}

const textOf = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text;

describe('client over stdio', () => {
  it('lists and calls tools and runs a multi-round flow; every stdin line is one valid request', async () => {
    const s = await start({ elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } });
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'exit_now', 'greet', 'hold']);
    expect(textOf(await s.client.callTool('echo', { text: 'line one\nline "two" ✓' }))).toBe('line one\nline "two" ✓');
    expect(textOf(await s.client.callTool('greet', { greeting: 'Hello' }))).toBe('Hello, Ada!');

    // Requests reach the server as they were sent (stderr may trail stdout a little).
    await s.line(/^recv .*"greet".*"inputResponses"/);
    const received = s.received();
    for (const message of received) {
      expect(typeof message).toBe('object');
      expectRequestMeta(message as Json, INFO, { form: true });
    }
    const calls = received.filter((m) => (m as Json).method === 'tools/call' && (m as Json).params.name === 'greet') as Json[];
    expect(calls).toHaveLength(2);
    expect(Object.keys(calls[0]!.params.inputResponses ?? {})).toEqual([]);
    expectRetry(calls[0]!, calls[1]!, {
      answers: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: calls[1]!.params.requestState,
      earlierIds: received.filter((m) => m !== calls[1]).map((m) => (m as Json).id),
    });
    expect(typeof calls[1]!.params.requestState).toBe('string');
  });

  it('connect() spawns nothing itself: a {command} is refused, naming StdioClientTransport', async () => {
    const client = new Client(INFO, { era: 'modern' });
    const target = { command: process.execPath, args: [script] } as unknown as string;
    await expect(client.connect(target)).rejects.toThrow(/StdioClientTransport.*tessera-mcp\/stdio/);
  });

  it('aborting a request sends notifications/cancelled with that request id, and only for it', async () => {
    const s = await start();
    const a = new AbortController();
    const b = new AbortController();
    const callA = s.client.callTool('hold', { tag: 'A' }, { signal: a.signal });
    const callB = s.client.callTool('hold', { tag: 'B' }, { signal: b.signal });
    callB.catch(() => undefined);
    const [, , idA] = await s.line(/^started (A) (.+)$/);
    await s.line(/^started B /);

    a.abort(new Error('user pressed stop'));
    await expect(callA).rejects.toThrow();
    const [, , abortedId] = await s.line(/^aborted (A) (.+)$/);
    expect(abortedId).toBe(idA);

    await s.line(/^recv .*notifications\/cancelled/);
    const received = s.received() as Json[];
    const holdA = received.find((m) => m.method === 'tools/call' && m.params.arguments?.tag === 'A')!;
    const cancels = received.filter((m) => m.method === 'notifications/cancelled');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]!.params.requestId).toBe(holdA.id);
    expect(JSON.stringify(holdA.id)).toBe(idA);
    expect(Object.keys(cancels[0]!)).not.toContain('id');

    // B still runs: a later call goes through and B was not aborted.
    expect(textOf(await s.client.callTool('echo', { text: 'still here' }))).toBe('still here');
    expect(s.stderr()).not.toMatch(/^aborted B /m);
    b.abort();
    await expect(callB).rejects.toThrow();
  });

  it('close() closes the server’s stdin and the child exits', async () => {
    const s = await start();
    expect(textOf(await s.client.callTool('echo', { text: 'x' }))).toBe('x');
    const child = s.transport.process;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    await noHang(s.client.close(), 'close()');
    expect(child.stdin!.writableEnded || child.stdin!.destroyed).toBe(true);
    expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
    // Closing stdin first lets the server exit on EOF by itself (§13), rather than being killed.
    expect(await noHang(exited, 'the child exit')).toEqual({ code: 0, signal: null });
  });

  it('close() with a request in flight still ends the child and fails that request', async () => {
    const s = await start();
    const call = s.client.callTool('hold', { tag: 'C' });
    call.catch(() => undefined);
    await s.line(/^started C /);
    await noHang(s.client.close(), 'close()');
    const child = s.transport.process;
    expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
    await expect(noHang(call, 'the in-flight request')).rejects.toBeInstanceOf(TransportError);
  });

  it('a child that exits mid-request fails that request and the others in flight with TransportError', async () => {
    const s = await start();
    const held = s.client.callTool('hold', { tag: 'D' });
    held.catch(() => undefined);
    await s.line(/^started D /);
    const exiting = s.client.callTool('exit_now', { code: 3 });
    await expect(noHang(exiting, 'the request whose server exited')).rejects.toBeInstanceOf(TransportError);
    await expect(noHang(held, 'the other request in flight')).rejects.toBeInstanceOf(TransportError);
    // And later requests fail at once rather than hang.
    await expect(noHang(s.client.callTool('echo', { text: 'anyone?' }), 'a request after the exit')).rejects.toBeInstanceOf(TransportError);
    const child = s.transport.process;
    const code = child.exitCode ?? (await noHang(new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c))), 'the child exit'));
    expect(code).toBe(3);
  });

  it('a child killed mid-request fails the pending request with TransportError', async () => {
    const s = await start();
    const held = s.client.callTool('hold', { tag: 'E' });
    held.catch(() => undefined);
    await s.line(/^started E /);
    process.kill(s.transport.process.pid!, 'SIGKILL');
    await expect(noHang(held, 'the request whose server was killed')).rejects.toBeInstanceOf(TransportError);
  });
});
