/**
 * ctx.once runs at most once per flow, even when a round is replayed: a round
 * that runs a once step redeems its state first (through the redemption
 * store), and a replay of that round — the client re-sending after a broken
 * stream, on this instance or another sharing the store — gets the answer the
 * round gave without running the step again. A flow starts with its first
 * request: a once step in a first round (no state yet) runs for each first
 * request, each its own flow.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer, MemoryRedemptionStore } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { deferred } from '../helpers/deferred.js';
import { meta, rpc, startHttp } from '../helpers/http.js';
import { accept, toolText } from '../helpers/mrtr-client.js';
import { quietLogger } from '../helpers/results.js';

const KEYS = generateStateKey('once1');
const FORM = { elicitation: { form: {} } };
const confirmForm = z.object({ approve: z.boolean() });
const deployments: string[] = [];
const gate = { release: deferred(), started: deferred() };

function build(redemptions: MemoryRedemptionStore): McpServer {
  const server = new McpServer({ name: 'once', version: '1.0.0' }, { logger: quietLogger(), state: { keys: KEYS, audience: 'once-cluster', redemptions } });
  // The README's deploy tool: confirm, then the side effect in ctx.once.
  server.tool('deploy', { input: z.object({ service: z.string() }) }, async ({ service }, ctx) => {
    const answer = await ctx.ask(ask.form(`Deploy ${service}?`, confirmForm, { key: 'confirm' }));
    if (answer.action !== 'accept' || !answer.content.approve) return 'cancelled';
    const id = await ctx.once('deploy', () => {
      deployments.push(service);
      return `${service}-${deployments.length}`;
    });
    return `deployed ${id}`;
  });
  // A once step, then one more question: the round that ran the step answers input_required.
  server.tool('reserve_then_pay', {}, async (_args, ctx) => {
    await ctx.ask(ask.form('Reserve?', confirmForm, { key: 'reserve' }));
    const seat = await ctx.once('reserve', () => {
      deployments.push('seat');
      return `seat-${deployments.length}`;
    });
    const pay = await ctx.ask(ask.form(`Pay for ${seat}?`, confirmForm, { key: 'pay' }));
    return pay.action === 'accept' ? `paid ${seat}` : 'not paid';
  });
  // A once step that waits for the test: two copies of its round run at the same time.
  server.tool('slow', {}, async (_args, ctx) => {
    await ctx.ask(ask.form('Go?', confirmForm, { key: 'go' }));
    const done = await ctx.once('slow', async () => {
      gate.started.resolve();
      await gate.release.promise;
      deployments.push('slow');
      return 'slow done';
    });
    return done;
  });
  // A once step before any question: a first round has no state to redeem.
  server.tool('first_step', {}, async (_args, ctx) => String(await ctx.once('tick', () => deployments.push('tick'))));
  return server;
}

const shared = new MemoryRedemptionStore();
let a: RunningHttpServer;
let b: RunningHttpServer;

beforeAll(async () => {
  a = await startHttp(build(shared));
  b = await startHttp(build(shared));
});

afterAll(async () => {
  await a.close();
  await b.close();
});

async function call(url: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await rpc(url, 'tools/call', { ...params, _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': FORM }) });
  return reply.response as Record<string, unknown>;
}

const resultOf = (response: Record<string, unknown>): Record<string, unknown> => response.result as Record<string, unknown>;

describe('ctx.once, once per flow (issue 18; README deploy example)', () => {
  it('a replayed final round gets the same answer, and the step ran once — on the same instance and on another', async () => {
    deployments.length = 0;
    const params = { name: 'deploy', arguments: { service: 'api' } };
    const first = resultOf(await call(a.url, params));
    const retry = { ...params, requestState: first.requestState, inputResponses: { confirm: accept({ approve: true }) } };
    const done = resultOf(await call(a.url, retry));
    expect(toolText(done)).toBe('deployed api-1');
    const again = resultOf(await call(a.url, retry));
    const elsewhere = resultOf(await call(b.url, retry));
    expect(toolText(again)).toBe('deployed api-1');
    expect(toolText(elsewhere)).toBe('deployed api-1');
    expect(deployments).toEqual(['api']);
  });

  it('a replayed round that ran a step and asked again gets the same questions and state; the flow finishes once', async () => {
    deployments.length = 0;
    const one = resultOf(await call(a.url, { name: 'reserve_then_pay' }));
    const retry = { name: 'reserve_then_pay', requestState: one.requestState, inputResponses: { reserve: accept({ approve: true }) } };
    const two = resultOf(await call(a.url, retry));
    expect(two.resultType).toBe('input_required');
    const replayed = resultOf(await call(b.url, retry));
    expect(replayed.requestState).toBe(two.requestState);
    expect(replayed.inputRequests).toEqual(two.inputRequests);
    const done = resultOf(await call(b.url, { name: 'reserve_then_pay', requestState: two.requestState, inputResponses: { pay: accept({ approve: true }) } }));
    expect(toolText(done)).toBe('paid seat-1');
    expect(deployments).toEqual(['seat']);
  });

  it('two copies of a round at once: one runs the step, the other is refused with -32602 and runs nothing', async () => {
    deployments.length = 0;
    const one = resultOf(await call(a.url, { name: 'slow' }));
    const retry = { name: 'slow', requestState: one.requestState, inputResponses: { go: accept({ approve: true }) } };
    const running = call(a.url, retry);
    await gate.started.promise;
    const second = await call(b.url, retry);
    expect((second.error as { code: number; message: string }).code).toBe(-32602);
    expect((second.error as { message: string }).message).toContain('already answered');
    gate.release.resolve();
    expect(toolText(resultOf(await running))).toBe('slow done');
    // Once the first has answered, a replay gets its answer.
    expect(toolText(resultOf(await call(b.url, retry)))).toBe('slow done');
    expect(deployments).toEqual(['slow']);
  });

  it('a once step in a first round runs for every first request: each is a flow of its own', async () => {
    deployments.length = 0;
    expect(toolText(resultOf(await call(a.url, { name: 'first_step' })))).toBe('1');
    expect(toolText(resultOf(await call(a.url, { name: 'first_step' })))).toBe('2');
  });
});
