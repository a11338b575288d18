/**
 * The stdio transport with a real child process (spec §2, §10.2, §13):
 * newline-delimited JSON-RPC, concurrent requests answered by id, parse and
 * shape errors, cancellation with no response for the cancelled request,
 * nothing but MCP messages on stdout, and exit on stdin EOF.
 */

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { meta } from '../helpers/http.js';
import { compiledFixture } from '../helpers/child-processes.js';
import { StdioChild } from '../helpers/stdio-child.js';

let script: string;
beforeAll(() => {
  script = compiledFixture('stdio-echo-server');
});

const children: StdioChild[] = [];
function start(): StdioChild {
  const child = new StdioChild(script);
  children.push(child);
  return child;
}
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

function call(id: string | number, name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { _meta: meta(), name, arguments: args } };
}

/** The exit of the child, or 'still running' after a generous guard (against hangs, not a speed bound). */
function exitOrTimeout(child: StdioChild): Promise<{ code: number | null; signal: NodeJS.Signals | null } | 'still running'> {
  return Promise.race([
    child.exited,
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 15_000).unref()),
  ]);
}

function textOf(response: Record<string, unknown>): string {
  const content = (response.result as { content: Array<{ text: string }> }).content;
  return content[0]!.text;
}

describe('stdio transport', () => {
  it('answers each request with one newline-terminated line', async () => {
    const child = start();
    child.send(call(1, 'echo', { text: 'first line\nsecond line' }));
    const response = await child.response(1);
    expect(textOf(response)).toBe('first line\nsecond line');
    expect(child.stdout.endsWith('\n')).toBe(true);
    // The embedded newline travels escaped: the message is exactly one line.
    expect(child.stdout.split('\n').filter((l) => l !== '')).toHaveLength(1);
    expect(child.violations).toEqual([]);
  });

  it('reassembles a message split across writes, and splits two messages in one write', async () => {
    const child = start();
    const text = JSON.stringify(call('split', 'echo', { text: 'joined' }));
    child.write(text.slice(0, 20));
    child.write(`${text.slice(20)}\n`);
    expect(textOf(await child.response('split'))).toBe('joined');

    child.write(`${JSON.stringify(call('a', 'echo', { text: 'A' }))}\n${JSON.stringify(call('b', 'echo', { text: 'B' }))}\n`);
    expect(textOf(await child.response('a'))).toBe('A');
    expect(textOf(await child.response('b'))).toBe('B');
    expect(child.violations).toEqual([]);
  });

  it('answers concurrent requests by id, without waiting for a pending one', async () => {
    const child = start();
    child.send(call('slow', 'wait', { tag: 'concurrent' }));
    await child.stderrLine('started concurrent');
    child.send(call('quick-1', 'echo', { text: 'one' }));
    child.send(call(2, 'echo', { text: 'two' }));
    expect(textOf(await child.response(2))).toBe('two');
    expect(textOf(await child.response('quick-1'))).toBe('one');
    expect(child.messages.some((m) => m.id === 'slow')).toBe(false);
  });

  it('answers an unparsable line with -32700 and no id', async () => {
    const child = start();
    child.write('{"jsonrpc":"2.0","id":9,"method":\n');
    const error = await child.until('a parse error', () => child.messages.find((m) => 'error' in m));
    expect((error.error as { code: number }).code).toBe(-32700);
    expect(error).not.toHaveProperty('id');
    expect(child.violations).toEqual([]);
  });

  it('answers an invalid request with -32600, echoing a readable id and never id null', async () => {
    const child = start();
    child.write(`${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 42 })}\n`);
    expect(await child.response(5)).toMatchObject({ error: { code: -32600 } });

    child.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/list', params: { _meta: meta() } })}\n`);
    child.write(`${JSON.stringify([{ jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: meta() } }])}\n`);
    const idless = await child.until('two id-less errors', () => {
      const found = child.messages.filter((m) => 'error' in m && !('id' in m));
      return found.length >= 2 ? found : undefined;
    });
    for (const m of idless) expect((m.error as { code: number }).code).toBe(-32600);
    expect(child.violations).toEqual([]);
  });

  it('aborts the handler on notifications/cancelled and sends no response for the cancelled request', async () => {
    const child = start();
    child.send(call('c-1', 'wait', { tag: 'T1' }));
    await child.stderrLine('started T1');
    child.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c-1', reason: 'test' } });
    // stdin is ordered: the cancellation is processed before this request.
    child.send(call('status', 'outcome', { tag: 'T1' }));
    expect(textOf(await child.response('status'))).toBe('aborted');
    // stdout is ordered too: a response to c-1 would have been written before this one.
    child.send(call('after', 'echo', { text: 'still here' }));
    await child.response('after');
    expect(child.messages.filter((m) => m.id === 'c-1')).toEqual([]);
    expect(child.violations).toEqual([]);
  });

  it('ignores a cancellation for an unknown request and never replies to notifications', async () => {
    const child = start();
    child.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'no-such-request' } });
    child.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    child.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: null } });
    child.send(call('probe', 'echo', { text: 'ok' }));
    await child.response('probe');
    expect(child.messages).toHaveLength(1);
  });

  it('answers -32603 when a result cannot be serialized, and keeps serving', async () => {
    const child = start();
    child.send(call('ser', 'unserializable', {}));
    child.send(call('next', 'echo', { text: 'still here' }));
    expect(textOf(await child.response('next'))).toBe('still here');
    expect(await child.response('ser')).toMatchObject({ error: { code: -32603 } });
    expect(child.violations).toEqual([]);
  });

  it('writes only JSON-RPC messages to stdout, while logs go to stderr', async () => {
    const child = start();
    child.send({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: meta() } });
    child.send({ jsonrpc: '2.0', id: 'l', method: 'tools/list', params: { _meta: meta() } });
    child.send({ jsonrpc: '2.0', id: 'bad-meta', method: 'tools/list', params: {} });
    child.send({ jsonrpc: '2.0', id: 'unknown', method: 'ping', params: { _meta: meta() } });
    child.send(call('w', 'wait', { tag: 'W' }));
    await child.stderrLine('started W');
    child.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w' } });
    child.write('garbage\n');
    child.send(call('e', 'echo', { text: 'done' }));
    await child.response('e');
    await child.response('unknown');
    expect(child.messages.find((m) => m.id === 'bad-meta')).toMatchObject({ error: { code: -32602 } });
    expect(child.messages.find((m) => m.id === 'unknown')).toMatchObject({ error: { code: -32601 } });

    expect(child.stdout.endsWith('\n')).toBe(true);
    const lines = child.stdout.split('\n').slice(0, -1);
    expect(lines.length).toBe(child.messages.length);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(child.violations).toEqual([]);
    // The server's stderr notes prove logs exist and stayed off stdout.
    expect(child.stderr).toContain('started W');
    expect(child.stdout).not.toContain('started W');
  });

  it('exits when stdin reaches EOF', async () => {
    const child = start();
    child.send(call(1, 'echo', { text: 'bye' }));
    await child.response(1);
    child.proc.stdin.end();
    const exit = await exitOrTimeout(child);
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('exits on stdin EOF even with a request in flight, aborting it', async () => {
    const child = start();
    child.send(call('pending', 'wait', { tag: 'EOF' }));
    await child.stderrLine('started EOF');
    child.proc.stdin.end();
    const exit = await exitOrTimeout(child);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(child.stderr.split('\n')).toContain('aborted EOF');
  });
});
