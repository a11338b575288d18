/**
 * -32021 travels on HTTP 400 (spec §12, checklist 32) even for a handler that
 * sends notifications first, when the handler declares what it may ask
 * (`asks`): its notifications are held until it finishes. Without `asks`, a
 * -32021 after the first notification rides the open 200 stream (documented).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, startHttp } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';

let running: RunningHttpServer;
const confirm = ask.form('Proceed?', z.object({ ok: z.boolean() }), { key: 'ok' });

beforeAll(async () => {
  const server = new McpServer({ name: 'asks', version: '1.0.0' }, { logger: quietLogger() });
  const body = (mustAsk: boolean) => async (_args: unknown, ctx: import('../../src/index.js').RequestContext) => {
    ctx.progress(1, { total: 2, message: 'checked the plan' });
    if (mustAsk) await ctx.ask(confirm);
    ctx.progress(2, { total: 2 });
    return 'done';
  };
  server.tool('declared', { asks: ['form'], input: z.object({ ask: z.boolean() }) }, async ({ ask: mustAsk }, ctx) => body(mustAsk)(undefined, ctx));
  server.tool('undeclared', {}, async (_args, ctx) => body(true)(undefined, ctx));
  running = await startHttp(server);
});

afterAll(async () => {
  await running.close();
});

const progressMeta = (capabilities: Record<string, unknown>): Record<string, unknown> =>
  meta({ progressToken: 'p1', 'io.modelcontextprotocol/clientCapabilities': capabilities });

describe('a handler that declares asks', () => {
  it('asking what the request did not declare is -32021 on HTTP 400, its earlier notifications never sent', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'declared', arguments: { ask: true }, _meta: progressMeta({}) });
    expect(reply.status).toBe(400);
    expect(reply.contentType).toContain('application/json');
    expect(reply.messages).toHaveLength(1);
    expect((reply.response!.error as { code: number; data: unknown }).code).toBe(-32021);
    expect((reply.response!.error as { data: unknown }).data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
  });

  it('not asking after all: the held notifications go out before the result', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'declared', arguments: { ask: false }, _meta: progressMeta({}) });
    expect(reply.status).toBe(200);
    expect(reply.messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'response']);
  });

  it('with the capability declared, notifications stream as usual and the question goes out', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'declared', arguments: { ask: true }, _meta: progressMeta({ elicitation: {} }) });
    expect(reply.status).toBe(200);
    expect(reply.contentType).toContain('text/event-stream');
    expect(reply.messages[0]!.method).toBe('notifications/progress');
    expect((reply.response!.result as { resultType: string }).resultType).toBe('input_required');
  });
});

describe('a handler that does not declare asks (what remains)', () => {
  it('a -32021 after its first notification rides the open 200 stream', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'undeclared', _meta: progressMeta({}) });
    expect(reply.status).toBe(200);
    expect(reply.messages[0]!.method).toBe('notifications/progress');
    expect((reply.response!.error as { code: number }).code).toBe(-32021);
  });
});
