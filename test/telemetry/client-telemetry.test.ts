/**
 * The client's side of tracing (issue 14): each request's span context goes
 * in `_meta.traceparent` (the propagator's keys, over one the caller put
 * there), failures end the span in error, and `telemetry: false` sends
 * nothing and makes no span. A meter alone (no tracer) still gets every
 * request's duration, described by method and outcome.
 */

import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { Client, TransportError, type ClientTransport } from '../../src/client.js';
import type { JsonRpcRequest } from '../../src/protocol.js';
import { countOf, matching, metrics, tracing } from '../helpers/telemetry.js';

/** A 2026-07-28 server that answers every request with an empty list, or fails the ones named in `failing`. */
function recorder(sent: JsonRpcRequest[], failing: string[] = []): ClientTransport {
  return {
    kind: 'http',
    request: async (message) => {
      sent.push(message);
      if (failing.includes(message.method)) throw new TransportError('connection reset');
      return { jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', tools: [], supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' } };
    },
    close: async () => undefined,
  };
}

describe('client spans and trace context in _meta', () => {
  it('sends each request with the traceparent of its own CLIENT span', async () => {
    const traced = tracing();
    const sent: JsonRpcRequest[] = [];
    const client = new Client({ name: 'c', version: '1' }, { era: 'modern', telemetry: traced.options });
    await client.connect(recorder(sent));
    await client.listTools();
    const span = traced.spans().find((s) => s.name === 'tools/list')!;
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toMatchObject({ 'mcp.method.name': 'tools/list', 'mcp.protocol.version': '2026-07-28', 'network.transport': 'tcp', 'tessera.result_type': 'complete' });
    const meta = sent.at(-1)!.params!._meta as Record<string, unknown>;
    expect(meta.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
  });

  it('ends the span in error when the transport fails', async () => {
    const traced = tracing();
    const client = new Client({ name: 'c', version: '1' }, { era: 'modern', telemetry: traced.options });
    await client.connect(recorder([], ['tools/list']));
    await expect(client.listTools()).rejects.toThrow('connection reset');
    const span = traced.spans().find((s) => s.name === 'tools/list')!;
    expect(span.status).toEqual({ code: 2, message: 'connection reset' });
    expect(span.attributes['error.type']).toBe('TransportError');
  });

  it('with telemetry: false, sends no trace context of its own and keeps what the caller gave', async () => {
    const sent: JsonRpcRequest[] = [];
    const client = new Client({ name: 'c', version: '1' }, { era: 'modern', telemetry: false });
    await client.connect(recorder(sent));
    await client.listTools();
    expect(sent.at(-1)!.params!._meta).not.toHaveProperty('traceparent');
    const given = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await client.request('tools/list', { _meta: { traceparent: given } });
    expect((sent.at(-1)!.params!._meta as Record<string, unknown>).traceparent).toBe(given);
  });

  it('records the duration of every request with only a meter provider (the spans are no-ops, the metrics are not)', async () => {
    const measured = metrics();
    const sent: JsonRpcRequest[] = [];
    const client = new Client({ name: 'c', version: '1' }, { era: 'modern', telemetry: measured.options });
    await client.connect(recorder(sent, ['prompts/list']));
    await client.listTools();
    await client.listTools();
    await expect(client.request('prompts/list', {})).rejects.toThrow('connection reset');
    const points = await measured.points('mcp.client.operation.duration');
    const count = (match: Record<string, string>): number => matching(points, match).reduce((sum, point) => sum + countOf(point), 0);
    expect(count({ 'mcp.method.name': 'tools/list', 'tessera.result_type': 'complete' })).toBe(2);
    expect(count({ 'mcp.method.name': 'prompts/list', 'error.type': 'TransportError' })).toBe(1);
    // No tracer: no trace context of its own goes out.
    expect(sent.at(-1)!.params!._meta).not.toHaveProperty('traceparent');
  });
});
