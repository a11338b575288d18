/** Progress (spec §10.1) and logging (§10.3) notifications on a request's own response stream, over real HTTP (§12.2). */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer, type RequestContext } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { deferred, type Deferred } from '../helpers/deferred.js';
import { meta, rpc, startHttp, type RpcReply } from '../helpers/http.js';
import { call } from '../helpers/in-process.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';
import { openStream } from '../helpers/sse-stream.js';

type Note = { method: string; params: Record<string, unknown> };

function notes(reply: { messages: Record<string, unknown>[] }, method: string): Note[] {
  return reply.messages.filter((m) => m.method === method) as unknown as Note[];
}

/** A tool whose ctx the test keeps, to try sending notifications after the response. */
function lateSender(): { keep: (ctx: RequestContext) => void; fire: () => void } {
  let kept: RequestContext | undefined;
  return {
    keep: (ctx) => (kept = ctx),
    fire: () => {
      kept?.progress(1_000, { message: 'late' });
      kept?.log('emergency', 'late');
    },
  };
}

interface Built {
  server: McpServer;
  late: ReturnType<typeof lateSender>;
  /** Released by the test to let `gated` handlers finish. */
  gate: Deferred<void>;
  /** Resolves once two `gated` handlers are in flight. */
  twoStarted: Promise<void>;
}

function buildServer(options: { logging?: boolean } = {}): Built {
  const server = new McpServer({ name: 'progress-test', version: '1.0.0' }, { logger: quietLogger(), ...options });
  const late = lateSender();
  const gate = deferred();
  const two = deferred();
  let started = 0;
  server.tool('work', {}, (_args, ctx) => {
    ctx.progress(1, { total: 3, message: 'one' });
    ctx.progress(2);
    ctx.progress(2); // not an increase: must be dropped
    ctx.progress(1.5); // a decrease: must be dropped
    ctx.progress(3, { total: 3 });
    late.keep(ctx);
    return 'done';
  });
  server.tool('chatty', {}, (_args, ctx) => {
    for (const level of ['debug', 'info', 'notice', 'warning', 'error'] as const) ctx.log(level, { said: level }, 'chatty');
    return 'logged';
  });
  server.tool('mixed', {}, (_args, ctx) => {
    ctx.progress(1);
    ctx.log('warning', 'between');
    ctx.progress(2);
    return 'mixed';
  });
  server.tool('gated', {}, async (_args, ctx) => {
    ctx.progress(1);
    if (++started === 2) two.resolve();
    await gate.promise;
    ctx.progress(2);
    return 'gated';
  });
  return { server, late, gate, twoStarted: two.promise };
}

function progressValues(reply: RpcReply): number[] {
  return notes(reply, 'notifications/progress').map((n) => n.params.progress as number);
}

describe('progress notifications over HTTP', () => {
  let running: RunningHttpServer;
  let built: Built;
  beforeAll(async () => {
    built = buildServer();
    running = await startHttp(built.server);
  });
  afterAll(() => running.close());

  it('arrive only with a progressToken, on the SSE response stream, before the response, strictly increasing', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'work', _meta: meta({ progressToken: 'p-1' }) });
    expect(reply.status).toBe(200);
    expect(reply.contentType).toContain('text/event-stream');
    const progress = notes(reply, 'notifications/progress');
    expect(progress.map((n) => n.params.progress)).toEqual([1, 2, 3]);
    for (const n of progress) expect(n.params.progressToken).toBe('p-1');
    expect(progress[0]!.params).toMatchObject({ total: 3, message: 'one' });
    // The response is the last message: every notification came before it.
    expect(reply.messages.at(-1)).toBe(reply.response);
    expect(resultOf(reply).content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('echo an integer progressToken with its JSON type', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'work', _meta: meta({ progressToken: 7 }) });
    const progress = notes(reply, 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const n of progress) expect(n.params.progressToken).toBe(7);
  });

  it('are not sent when the request has no progressToken', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'work' });
    expect(notes(reply, 'notifications/progress')).toEqual([]);
    expect(resultOf(reply).content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('stop with the response: the stream ends with it and nothing follows', async () => {
    const stream = await openStream(running.url, 'tools/call', { name: 'work', _meta: meta({ progressToken: 'p-end' }) });
    const { match: response } = await stream.nextMatching((m) => 'result' in m || 'error' in m);
    built.late.fire();
    await stream.ended;
    expect(stream.messages.at(-1)).toBe(response);
    expect(stream.messages.filter((m) => m.method === 'notifications/progress').map((m) => (m.params as Note['params']).progress)).toEqual([1, 2, 3]);
  });

  it('keep to their own request when two requests run at once', async () => {
    const a = rpc(running.url, 'tools/call', { name: 'gated', _meta: meta({ progressToken: 'A' }) });
    const b = rpc(running.url, 'tools/call', { name: 'gated', _meta: meta({ progressToken: 'B' }) });
    // Release both handlers only once both are in flight.
    await built.twoStarted;
    built.gate.resolve();
    const [ra, rb] = await Promise.all([a, b]);
    expect(notes(ra, 'notifications/progress').map((n) => n.params.progressToken)).toEqual(['A', 'A']);
    expect(notes(rb, 'notifications/progress').map((n) => n.params.progressToken)).toEqual(['B', 'B']);
    expect(progressValues(ra)).toEqual([1, 2]);
  });

  it('with Accept: application/json only, the reply is plain JSON with no notifications', async () => {
    const reply = await rpc(
      running.url,
      'tools/call',
      { name: 'mixed', _meta: meta({ progressToken: 'json-only', 'io.modelcontextprotocol/logLevel': 'debug' }) },
      { headers: { accept: 'application/json' } },
    );
    expect(reply.status).toBe(200);
    expect(reply.contentType).toContain('application/json');
    expect(reply.messages).toHaveLength(1);
    expect(resultOf(reply).content).toEqual([{ type: 'text', text: 'mixed' }]);
  });
});

describe('progress after the response (in process)', () => {
  it('is never delivered, even when the handler tries', async () => {
    const { server, late } = buildServer();
    const reply = await call(server, 'tools/call', { name: 'work', _meta: meta({ progressToken: 'late', 'io.modelcontextprotocol/logLevel': 'debug' }) });
    const before = reply.notifications.length;
    expect(before).toBe(3);
    late.fire();
    expect(reply.notifications).toHaveLength(before);
  });
});

describe('log notifications over HTTP', () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    running = await startHttp(buildServer().server);
  });
  afterAll(() => running.close());

  const withLevel = (level: unknown): Record<string, unknown> => meta({ 'io.modelcontextprotocol/logLevel': level });

  it('are not sent without io.modelcontextprotocol/logLevel', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'chatty' });
    expect(notes(reply, 'notifications/message')).toEqual([]);
    expect(resultOf(reply).content).toEqual([{ type: 'text', text: 'logged' }]);
  });

  it('are sent at or above the requested level only, before the response', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'chatty', _meta: withLevel('warning') });
    const logs = notes(reply, 'notifications/message');
    expect(logs.map((n) => n.params.level)).toEqual(['warning', 'error']);
    expect(logs[0]!.params).toEqual({ level: 'warning', logger: 'chatty', data: { said: 'warning' } });
    expect(reply.messages.at(-1)).toBe(reply.response);
  });

  it('include every level at debug', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'chatty', _meta: withLevel('debug') });
    expect(notes(reply, 'notifications/message').map((n) => n.params.level)).toEqual(['debug', 'info', 'notice', 'warning', 'error']);
  });

  it('interleave with progress in the order the handler sent them', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'mixed', _meta: meta({ progressToken: 'mx', 'io.modelcontextprotocol/logLevel': 'info' }) });
    const kinds = reply.messages.filter((m) => 'method' in m).map((m) => m.method);
    expect(kinds).toEqual(['notifications/progress', 'notifications/message', 'notifications/progress']);
  });

  it.each(['verbose', 'WARNING', '', 5, null])('reject the invalid logLevel %j with -32602', async (level) => {
    const reply = await rpc(running.url, 'tools/call', { name: 'chatty', _meta: withLevel(level) });
    expect(errorOf(reply).code).toBe(-32602);
    expect(notes(reply, 'notifications/message')).toEqual([]);
  });

  it('are advertised as the logging capability', async () => {
    const discover = resultOf(await rpc(running.url, 'server/discover'));
    expect(discover.capabilities).toHaveProperty('logging');
  });
});

describe('logging: false', () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    running = await startHttp(buildServer({ logging: false }).server);
  });
  afterAll(() => running.close());

  it('suppresses log notifications even when the request opts in', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'chatty', _meta: meta({ 'io.modelcontextprotocol/logLevel': 'debug' }) });
    expect(notes(reply, 'notifications/message')).toEqual([]);
    expect(resultOf(reply).content).toEqual([{ type: 'text', text: 'logged' }]);
  });

  it('does not advertise logging in server/discover', async () => {
    const discover = resultOf(await rpc(running.url, 'server/discover'));
    expect(discover.capabilities).not.toHaveProperty('logging');
  });

  it('leaves progress working', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'mixed', _meta: meta({ progressToken: 'still', 'io.modelcontextprotocol/logLevel': 'debug' }) });
    expect(reply.messages.filter((m) => 'method' in m).map((m) => m.method)).toEqual(['notifications/progress', 'notifications/progress']);
  });
});
