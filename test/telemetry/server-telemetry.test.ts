/**
 * What the server reports of each request (issue 14): the request log's
 * entries (facts only unless asked), the span's attributes for errors,
 * refused states, tool errors and the 2025 era, the link to an ambient span,
 * states sealed before flow ids, the metrics of refused states and tasks,
 * and nothing at all with `telemetry: false`.
 */

import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { digestOf } from '../../src/mrtr/digest.js';
import { StateSealer } from '../../src/mrtr/sealed-state.js';
import { ask, McpServer, toolError, type McpServerOptions, type RequestLogEntry } from '../../src/index.js';
import { TASKS_EXTENSION } from '../../src/protocol.js';
import { accept, ALL_CAPABILITIES, tamper, testServer } from '../../src/testing.js';
import { call } from '../helpers/in-process.js';
import { quietLogger } from '../helpers/results.js';
import { countOf, matching, metrics, propagator, tracing } from '../helpers/telemetry.js';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => context.disable());

function shop(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: 'shop', version: '1.0.0' }, options);
  server.tool('order', { input: z.object({ item: z.string() }) }, async ({ item }, ctx) => {
    const who = await ctx.ask(ask.form('Your name?', z.object({ name: z.string() }), { key: 'name' }));
    await ctx.once('charge', () => item);
    const size = await ctx.ask(ask.form('Size?', z.object({ size: z.number() }), { key: 'size' }));
    return who.action === 'accept' && size.action === 'accept' ? `${item} for ${who.content.name}` : 'no';
  });
  server.tool('sold_out', {}, () => toolError('sold out'));
  server.tool('jobs', { task: 'optional' }, (_args, ctx) => ctx.task(async () => 'job done'));
  return server;
}

const ORDER = { name: accept({ name: 'Ada' }), size: accept({ size: 2 }) };

describe('the request log', () => {
  it('writes one entry per request: method, name, era, status, duration, flow, round, principal, state bytes, once steps', async () => {
    const entries: RequestLogEntry[] = [];
    const kit = testServer(shop, { principal: 'alice', server: { requestLog: { write: (entry) => entries.push(entry) } } });
    const run = await kit.callTool('order', { item: 'tea' }, ORDER);
    expect(entries).toHaveLength(3);
    for (const [i, entry] of entries.entries()) {
      expect(entry).toMatchObject({ method: 'tools/call', name: 'order', era: 'modern', protocolVersion: '2026-07-28', principal: 'alice', flowId: run.flowId, round: i + 1 });
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(entry.time)).not.toBeNaN();
      expect(entry).not.toHaveProperty('arguments');
      expect(entry).not.toHaveProperty('answers');
      expect(entry).not.toHaveProperty('result');
    }
    expect(entries.map((e) => e.status)).toEqual(['input_required', 'input_required', 'complete']);
    expect(entries.map((e) => e.onceSteps)).toEqual([undefined, ['charge'], undefined]);
    expect(entries.map((e) => typeof e.stateBytes)).toEqual(['number', 'number', 'undefined']);
  });

  it('adds arguments, answers and results only when the app asks, and marks tool errors and plain requests', async () => {
    const entries: RequestLogEntry[] = [];
    const kit = testServer(shop, { server: { requestLog: { write: (entry) => entries.push(entry), include: ['arguments', 'answers', 'result'] } } });
    await kit.callTool('order', { item: 'tea' }, ORDER);
    expect(entries[0]).toMatchObject({ arguments: { item: 'tea' }, result: { resultType: 'input_required' } });
    expect(entries[0]).not.toHaveProperty('answers');
    expect(entries[1]!.answers).toEqual({ name: { action: 'accept', content: { name: 'Ada' } } });
    await kit.callTool('sold_out');
    expect(entries.at(-1)).toMatchObject({ status: 'complete', toolError: true, round: 1 });
    expect(entries.at(-1)).not.toHaveProperty('flowId');
    await kit.send('tools/list');
    expect(entries.at(-1)).toMatchObject({ method: 'tools/list', status: 'complete' });
    expect(entries.at(-1)).not.toHaveProperty('round');
    expect(entries.at(-1)).not.toHaveProperty('name');
  });

  it('logs errors with their code and a refused state with its reason; a log that throws breaks nothing', async () => {
    const entries: RequestLogEntry[] = [];
    const kit = testServer(shop, {
      server: {
        requestLog: {
          write: (entry) => {
            entries.push(entry);
            throw new Error('log full');
          },
        },
      },
    });
    const first = await kit.start('tools/call', { name: 'order', arguments: { item: 'tea' } });
    await kit.expectRefused(kit.retry(first, ORDER, { requestState: tamper(first.requestState!) }), 'forged');
    expect(entries.at(-1)).toMatchObject({ status: 'error', errorCode: -32602, rejectedState: 'forged' });
    await kit.send('no/such/method');
    expect(entries.at(-1)).toMatchObject({ status: 'error', errorCode: -32601 });
    expect(kit.serverLog.filter((line) => line.message === 'A request log failed to write an entry')).toHaveLength(3);
  });

  it('is added and removed on a server made elsewhere (McpServer.logRequests)', async () => {
    const server = shop({ logger: quietLogger() });
    const entries: RequestLogEntry[] = [];
    const stop = server.logRequests({ write: (entry) => entries.push(entry) });
    await call(server, 'tools/list');
    stop();
    await call(server, 'tools/list');
    expect(entries).toHaveLength(1);
  });
});

describe('flows, states and spans', () => {
  it('opens a state sealed before flow ids: the state names the flow from then on, counted from round 2', async () => {
    const entries: RequestLogEntry[] = [];
    const kit = testServer(shop, { server: { requestLog: { write: (entry) => entries.push(entry) } } });
    const sealer = new StateSealer({ keys: kit.keys!, clock: kit.clock.now });
    const claims = { method: 'tools/call', target: 'order', args: await digestOf({ item: 'tea' }), principal: '', audience: 'tessera-test' };
    const first = await kit.start('tools/call', { name: 'order', arguments: { item: 'tea' } });
    // What an older Tessera sealed after asking the name: the question pending, no `f`. Under the redemption
    // store's generation, as every state sealed since generations: the round's once step may be redeemed
    // (a state without one is refused there, see state-security.md and test/mrtr/state-format.test.ts).
    const current = await sealer.open(first.requestState, claims);
    const generation = current.ok ? current.state.generation : undefined;
    expect(generation).toBeDefined();
    const oldState = await sealer.seal(claims, { p: { name: await nameDigest(kit) } }, generation);
    const retried = await kit.retry(first, ORDER, { requestState: oldState });
    expect(retried.pending?.inputRequests).toHaveProperty('size');
    expect(retried.log?.round).toBe(2);
    expect(retried.log?.flowId).toMatch(/^[A-Za-z0-9_-]{12}$/);
    const last = await kit.retry(retried.pending!, ORDER);
    expect(last.result?.content).toEqual([{ type: 'text', text: 'tea for Ada' }]);
    expect(last.log).toMatchObject({ round: 3, flowId: retried.log?.flowId });
  });

  it('records a refused state on the span and in the metrics, by reason', async () => {
    const traced = tracing();
    const measured = metrics();
    const kit = testServer(shop, { server: { telemetry: { ...traced.options, ...measured.options } } });
    const first = await kit.start('tools/call', { name: 'order', arguments: { item: 'tea' } });
    await kit.expectRefused(kit.retry(first, ORDER, { requestState: tamper(first.requestState!) }), 'forged');
    await kit.expectRefused(kit.retry(first, ORDER, { arguments: { item: 'gold' } }), 'arguments');
    kit.clock.advance(11 * 60_000);
    await kit.expectRefused(kit.retry(first, ORDER), 'expired');
    const refused = traced.spans().filter((s) => s.attributes['tessera.state.rejection'] !== undefined);
    expect(refused.map((s) => s.attributes['tessera.state.rejection'])).toEqual(['forged', 'arguments', 'expired']);
    for (const span of refused) {
      expect(span.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
      expect(span.status).toEqual({ code: 2, message: 'Invalid params: requestState is invalid or expired' });
    }
    const points = await measured.points('tessera.state.rejected');
    expect(Object.fromEntries(points.map((p) => [p.attributes['tessera.state.rejection'], countOf(p)]))).toEqual({ forged: 1, arguments: 1, expired: 1 });
  });

  it('marks a tool error, links an ambient span (the transport’s) beside the client parent, and names the 2025 era', async () => {
    const traced = tracing();
    const server = shop({ logger: quietLogger(), telemetry: traced.options });
    await call(server, 'tools/call', { name: 'sold_out' });
    const soldOut = traced.spans().find((s) => s.name === 'tools/call sold_out')!;
    expect(soldOut.attributes['error.type']).toBe('tool_error');
    expect(soldOut.status.code).toBe(2);

    const tracer = traced.options.tracerProvider!.getTracer('test');
    const client = tracer.startSpan('client round');
    const http = tracer.startSpan('POST /mcp', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    const traceparent: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, client), traceparent, { set: (carrier, key, value) => (carrier[key] = value) });
    await context.with(trace.setSpan(ROOT_CONTEXT, http), () =>
      call(server, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, ...traceparent } }),
    );
    const list = traced.spans().find((s) => s.name === 'tools/list')!;
    expect(list.kind).toBe(SpanKind.SERVER);
    expect(list.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    expect(list.links.map((l) => l.context.spanId)).toEqual([http.spanContext().spanId]);

    // A 2025 handshake (sent as is: the helper would check it against the 2026 schema).
    const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } };
    await server.handleRequest({ jsonrpc: '2.0', id: 'init', method: 'initialize', params }, { signal: new AbortController().signal, canNotify: false, send: () => undefined });
    const initialize = traced.spans().find((s) => s.name === 'initialize')!;
    expect(initialize.attributes).toMatchObject({ 'tessera.era': 'legacy', 'mcp.protocol.version': '2025-11-25', 'mcp.method.name': 'initialize' });
  });

  it('counts tasks entering each status', async () => {
    const measured = metrics();
    const kit = testServer(shop, { capabilities: { ...ALL_CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } }, server: { telemetry: measured.options } });
    const created = await kit.send('tools/call', { name: 'jobs' });
    expect(created.result?.resultType).toBe('task');
    const taskId = (created.result as { task?: { taskId: string } }).task?.taskId ?? (created.result as { taskId?: string }).taskId;
    for (let i = 0; i < 50; i++) {
      const got = await kit.send('tasks/get', { taskId });
      if ((got.result as { status?: string }).status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const points = await measured.points('tessera.task.status_changes');
    expect(Object.fromEntries(points.map((p) => [p.attributes['tessera.task.status'], countOf(p)]))).toEqual({ working: 1, completed: 1 });
  });

  it('records every request with only a meter provider: no tracer makes the spans no-ops, not the metrics', async () => {
    const measured = metrics();
    const kit = testServer(shop, { server: { telemetry: measured.options } });
    await kit.callTool('order', { item: 'tea' }, ORDER);
    await kit.callTool('sold_out');
    const durations = await measured.points('mcp.server.operation.duration');
    const count = (match: Record<string, string>): number => matching(durations, match).reduce((sum, point) => sum + countOf(point), 0);
    expect(count({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'order', 'tessera.result_type': 'input_required' })).toBe(2);
    expect(count({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'order', 'tessera.result_type': 'complete' })).toBe(1);
    expect(count({ 'gen_ai.tool.name': 'sold_out', 'error.type': 'tool_error' })).toBe(1);
    // Rounds per flow, recorded by the round that ended it: 3 for the order, 1 for the tool error.
    const rounds = await measured.points('tessera.flow.rounds');
    expect(rounds.map((point) => (point.value as { sum?: number }).sum)).toEqual([4]);
  });

  it('traces from the next request on when an SDK registers globally after the server was made', async () => {
    const traced = tracing();
    const kit = testServer(shop);
    await kit.send('tools/list');
    trace.setGlobalTracerProvider(traced.options.tracerProvider!);
    try {
      expect(traced.spans()).toEqual([]);
      await kit.send('tools/list');
      await kit.callTool('sold_out');
      expect(traced.spans().map((s) => s.name)).toEqual(['tools/list', 'tools/call sold_out']);
    } finally {
      trace.disable();
    }
    // Unregistered again: nothing more is traced.
    await kit.send('tools/list');
    expect(traced.spans()).toHaveLength(2);
  });

  it('without any tracer, still hands an incoming trace context to the handler (its own calls carry it on)', async () => {
    let seen: string | undefined;
    const kit = testServer(
      (options) => {
        const server = new McpServer({ name: 'relay', version: '1.0.0' }, options);
        server.tool('relay', {}, () => {
          seen = trace.getActiveSpan()?.spanContext().traceId;
          return 'relayed';
        });
        return server;
      },
      { server: { telemetry: { propagator } } },
    );
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await kit.send('tools/call', { name: 'relay', arguments: {} }, { meta: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(seen).toBe(traceId);
    seen = undefined;
    await kit.send('tools/call', { name: 'relay', arguments: {} });
    expect(seen).toBeUndefined();
  });

  it('makes no span and no metric with telemetry: false, even with providers registered globally', async () => {
    const traced = tracing();
    trace.setGlobalTracerProvider(traced.options.tracerProvider!);
    try {
      const kit = testServer(shop, { server: { telemetry: false } });
      await kit.callTool('order', { item: 'tea' }, ORDER);
      expect(traced.spans()).toEqual([]);
      const measuredDefault = testServer(shop);
      await measuredDefault.send('tools/list');
      expect(traced.spans().map((s) => s.name)).toEqual(['tools/list']);
    } finally {
      trace.disable();
    }
  });
});

/** The digest the name question is pinned to, taken from a state the kit's server sealed. */
async function nameDigest(kit: ReturnType<typeof testServer>): Promise<string> {
  const first = await kit.start('tools/call', { name: 'order', arguments: { item: 'tea' } });
  const sealer = new StateSealer({ keys: kit.keys!, clock: kit.clock.now });
  const opened = await sealer.open<{ p: Record<string, string> }>(first.requestState, {
    method: 'tools/call',
    target: 'order',
    args: await digestOf({ item: 'tea' }),
    principal: '',
    audience: 'tessera-test',
  });
  if (!opened.ok) throw new Error(opened.reason);
  return opened.state.data.p.name!;
}
