/**
 * One flow, seen whole (issue 14): a three-round tools/call whose rounds land
 * on two server instances (A, B, A) sharing a key ring and a redemption store. Every server span
 * carries the same flow id, links to the round before it, and has the
 * client's span for that round as its parent, all under the client's span
 * for the call — one trace, though the servers kept nothing between rounds.
 */

import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, createLinkPair, generateStateKey, McpServer, MemoryRedemptionStore, serveLink } from '../../src/index.js';
import type { ElicitResult } from '../../src/protocol.js';
import { Client, LinkClientTransport, type ClientTransport } from '../../src/client.js';
import { quietLogger } from '../helpers/results.js';
import { countOf, matching, metrics, propagator, tracing, type Metrics, type Tracing } from '../helpers/telemetry.js';

const KEYS = generateStateKey('flow');
/** The instances share their redemption store, as a cluster does: the once step of round 2 (on B) is redeemed there. */
const redemptions = new MemoryRedemptionStore();
const contextManager = new AsyncLocalStorageContextManager();

function instance(name: string, telemetry: Tracing, measured: Metrics): McpServer {
  const server = new McpServer(
    { name, version: '1.0.0' },
    { logger: quietLogger(), state: { keys: KEYS, audience: 'flow-cluster', redemptions }, telemetry: { ...telemetry.options, ...measured.options } },
  );
  server.tool('wizard', { input: z.object({ order: z.string() }) }, async ({ order }, ctx) => {
    const who = await ctx.ask(ask.form('Name?', z.object({ name: z.string() }), { key: 'name' }));
    // A span of the tool's own: a child of the server span of the round it runs in.
    await trace.getTracer('app').startActiveSpan('reserve', async (span) => {
      await ctx.once('reserve', () => order);
      span.end();
    });
    const colour = await ctx.ask(ask.form('Colour?', z.object({ colour: z.string() }), { key: 'colour' }));
    return who.action === 'accept' && colour.action === 'accept' ? `${order} for ${who.content.name} in ${colour.content.colour}` : 'no';
  });
  return server;
}

/**
 * Sends the calls' rounds to A, B, A (and everything else to A), from the
 * root context: in one process the server would otherwise inherit the
 * client's context as its ambient one, which a process boundary never passes
 * on (only `_meta` carries the trace across).
 */
function alternating(a: LinkClientTransport, b: LinkClientTransport): ClientTransport {
  let calls = 0;
  return {
    kind: 'memory',
    request: (message, options) => context.with(ROOT_CONTEXT, () => (message.method === 'tools/call' && calls++ % 2 === 1 ? b : a).request(message, options)),
    close: async () => {
      await a.close();
      await b.close();
    },
  };
}

function link(server: McpServer): LinkClientTransport {
  const [serverEnd, clientEnd] = createLinkPair();
  serveLink(server, serverEnd);
  return new LinkClientTransport(clientEnd, 'memory');
}

const atA = tracing();
const atB = tracing();
const atClient = tracing();
const metricsA = metrics();
const metricsB = metrics();
let client: Client;
let text: string;

beforeAll(async () => {
  // The handler's own spans find their parent through the active context: an SDK registers a context manager.
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(atA.options.tracerProvider!);
  const a = instance('a', atA, metricsA);
  const b = instance('b', atB, metricsB);
  client = new Client(
    { name: 'flow-client', version: '1.0.0' },
    {
      era: 'modern',
      telemetry: atClient.options,
      elicitation: { form: (request) => ({ action: 'accept', content: request.message === 'Name?' ? { name: 'Ada' } : { colour: 'teal' } }) as ElicitResult },
    },
  );
  await client.connect(alternating(link(a), link(b)));
  const result = await client.callTool('wizard', { order: 'o-1' });
  text = (result.content[0] as { text: string }).text;
});

afterAll(async () => {
  await client.close();
  context.disable();
  trace.disable();
});

describe('one flow across rounds and instances (issue 14)', () => {
  it('completes on A after a round on B', () => {
    expect(text).toBe('o-1 for Ada in teal');
    expect(atA.spans().filter((s) => s.kind === SpanKind.SERVER).map((s) => s.attributes['tessera.flow.round'])).toEqual([1, 3]);
    expect(atB.spans().filter((s) => s.kind === SpanKind.SERVER).map((s) => s.attributes['tessera.flow.round'])).toEqual([2]);
  });

  it('gives every round the same flow id, and links each round to the one before', () => {
    const rounds = [...atA.spans(), ...atB.spans()].filter((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call wizard');
    rounds.sort((x, y) => Number(x.attributes['tessera.flow.round']) - Number(y.attributes['tessera.flow.round']));
    expect(rounds).toHaveLength(3);
    const flowIds = new Set(rounds.map((s) => s.attributes['tessera.flow.id']));
    expect(flowIds.size).toBe(1);
    expect([...flowIds][0]).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(rounds[0]!.links).toEqual([]);
    for (const n of [1, 2]) {
      expect(rounds[n]!.links.map((l) => l.context.spanId)).toEqual([rounds[n - 1]!.spanContext().spanId]);
      expect(rounds[n]!.links[0]!.context.traceId).toBe(rounds[n - 1]!.spanContext().traceId);
    }
    expect(rounds.map((s) => s.attributes['tessera.result_type'])).toEqual(['input_required', 'input_required', 'complete']);
    expect(rounds.map((s) => typeof s.attributes['tessera.state.bytes'])).toEqual(['number', 'number', 'undefined']);
    // The once step ran in round 2 (on B), under that round's span.
    expect(rounds.map((s) => s.attributes['tessera.once.steps'])).toEqual([undefined, ['reserve'], undefined]);
  });

  it("has the client's round spans as parents, all under the client's span for the call, in one trace", () => {
    const clientSpans = atClient.spans();
    const call = clientSpans.find((s) => s.kind === SpanKind.INTERNAL && s.name === 'tools/call wizard');
    expect(call).toBeDefined();
    const roundSpans = clientSpans.filter((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call wizard');
    expect(roundSpans.map((s) => s.attributes['tessera.flow.round'])).toEqual([1, 2, 3]);
    for (const span of roundSpans) expect(span.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);

    const servers = [...atA.spans(), ...atB.spans()].filter((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call wizard');
    for (const server of servers) {
      const round = server.attributes['tessera.flow.round'];
      const parent = roundSpans.find((s) => s.attributes['tessera.flow.round'] === round)!;
      expect(server.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(server.parentSpanContext?.isRemote).toBe(true);
      expect(server.spanContext().traceId).toBe(call!.spanContext().traceId);
      expect(server.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'wizard', 'gen_ai.operation.name': 'execute_tool', 'mcp.protocol.version': '2026-07-28', 'tessera.era': 'modern' });
    }
    expect(call!.attributes['tessera.flow.round']).toBe(3);
  });

  it("makes the tool's own span a child of the round it ran in", () => {
    const reserve = atA.spans().concat(atB.spans()).find((s) => s.name === 'reserve');
    const roundTwo = atB.spans().find((s) => s.kind === SpanKind.SERVER && s.attributes['tessera.flow.round'] === 2)!;
    expect(reserve?.parentSpanContext?.spanId).toBe(roundTwo.spanContext().spanId);
  });

  it('counts rounds per flow where the flow ended, state sizes where they were sealed, requests by method and outcome', async () => {
    const rounds = await metricsA.points('tessera.flow.rounds');
    expect(rounds.map((p) => [(p.value as { sum: number }).sum, countOf(p)])).toEqual([[3, 1]]);
    expect(await metricsB.points('tessera.flow.rounds')).toEqual([]);
    expect((await metricsA.points('tessera.state.size')).map(countOf)).toEqual([1]);
    expect((await metricsB.points('tessera.state.size')).map(countOf)).toEqual([1]);
    const durations = await metricsA.points('mcp.server.operation.duration');
    expect(matching(durations, { 'mcp.method.name': 'tools/call', 'tessera.result_type': 'input_required' }).map(countOf)).toEqual([1]);
    expect(matching(durations, { 'mcp.method.name': 'tools/call', 'tessera.result_type': 'complete' }).map(countOf)).toEqual([1]);
  });

  it('puts W3C trace context in _meta, and nothing but the three reserved keys', () => {
    const call = atClient.spans().find((s) => s.kind === SpanKind.CLIENT && s.attributes['tessera.flow.round'] === 1)!;
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(context.active(), trace.wrapSpanContext(call.spanContext())), carrier, { set: (c, k, v) => (c[k] = v) });
    expect(Object.keys(carrier)).toEqual(['traceparent']);
  });
});
