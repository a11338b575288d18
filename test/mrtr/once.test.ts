/**
 * ctx.once runs at most once per flow, even when a round is replayed: a round
 * that runs a once step redeems its state first (through the redemption
 * store), and a replay of that round — the client re-sending after a broken
 * stream, on this instance or another sharing the store — gets the answer the
 * round gave without running the step again. A flow starts with its first
 * request: a once step in a first round (no state yet) runs for each first
 * request, each its own flow. Written on the test kit (tessera-mcp/testing):
 * its instances share a key ring and a redemption store, like a cluster.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, McpServer, MemoryRedemptionStore, type McpServerOptions } from '../../src/index.js';
import { accept, testServer } from '../../src/testing.js';
import { deferred } from '../helpers/deferred.js';

const confirmForm = z.object({ approve: z.boolean() });
const yes = accept({ approve: true });
const deployments: string[] = [];
const gate = { release: deferred(), started: deferred() };

function build(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: 'once', version: '1.0.0' }, options);
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

const a = testServer(build);
const b = a.instance();

const textOf = (result: unknown): unknown => (result as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text;

describe('ctx.once, once per flow (issue 18; README deploy example)', () => {
  it('a replayed final round gets the same answer, and the step ran once — on the same instance and on another', async () => {
    deployments.length = 0;
    const first = await a.start('tools/call', { name: 'deploy', arguments: { service: 'api' } });
    const [done, again] = await a.replay(first, { confirm: yes });
    expect(textOf(done.result)).toBe('deployed api-1');
    expect(done.log?.onceSteps).toEqual(['deploy']);
    expect(textOf(again.result)).toBe('deployed api-1');
    const elsewhere = await b.retry(first, { confirm: yes });
    expect(textOf(elsewhere.result)).toBe('deployed api-1');
    expect(elsewhere.log?.onceSteps).toBeUndefined();
    expect(deployments).toEqual(['api']);
  });

  it('a replayed round that ran a step and asked again gets the same questions and state; the flow finishes once', async () => {
    deployments.length = 0;
    const one = await a.start('tools/call', { name: 'reserve_then_pay' });
    const two = await a.retry(one, { reserve: yes });
    expect(two.result?.resultType).toBe('input_required');
    const replayed = await b.retry(one, { reserve: yes });
    expect(replayed.pending?.requestState).toBe(two.pending?.requestState);
    expect(replayed.pending?.inputRequests).toEqual(two.pending?.inputRequests);
    const done = await b.retry(two.pending!, { pay: yes });
    expect(textOf(done.result)).toBe('paid seat-1');
    expect(deployments).toEqual(['seat']);
  });

  it('two copies of a round at once: one runs the step, the other is refused with -32602 and runs nothing', async () => {
    deployments.length = 0;
    const one = await a.start('tools/call', { name: 'slow' });
    const running = a.retry(one, { go: yes });
    await gate.started.promise;
    const second = await b.retry(one, { go: yes });
    expect(second.error?.code).toBe(-32602);
    expect(second.error?.message).toContain('already answered');
    gate.release.resolve();
    expect(textOf((await running).result)).toBe('slow done');
    // Once the first has answered, a replay gets its answer.
    expect(textOf((await b.retry(one, { go: yes })).result)).toBe('slow done');
    expect(deployments).toEqual(['slow']);
  });

  it('a once step in a first round runs for every first request: each is a flow of its own', async () => {
    deployments.length = 0;
    const first = await a.callTool('first_step');
    const second = await a.callTool('first_step');
    expect([first.text, second.text]).toEqual(['1', '2']);
    expect([first.onceSteps, second.onceSteps]).toEqual([['tick'], ['tick']]);
    expect([first.flowId, second.flowId]).toEqual([undefined, undefined]);
  });

  it('a retry reads a kept answer only when its run reaches a once step of a round answered before (one store read fewer per retry)', async () => {
    deployments.length = 0;
    // The store a cluster shares (Redis in production: every read is a round trip), with its reads counted.
    const reads: string[] = [];
    const counting = class extends MemoryRedemptionStore {
      override savedResult(id: string): ReturnType<MemoryRedemptionStore['savedResult']> {
        reads.push(id);
        return super.savedResult(id);
      }
    };
    // On the kit's clock, as the kit's own store is (states are sealed and expire by it).
    const counted = testServer((options) => build({ ...options, state: { ...options.state, redemptions: new counting(options.state?.clock) } }));
    const first = await counted.start('tools/call', { name: 'deploy', arguments: { service: 'web' } });
    // A retry that declines runs no once step: nothing is read from the store.
    expect(textOf((await counted.retry(first, { confirm: accept({ approve: false }) })).result)).toBe('cancelled');
    expect(reads).toEqual([]);
    // The round that runs the step reads nothing either; its replay reaches the step, finds it redeemed, reads the answer.
    const [done, again] = await counted.replay(first, { confirm: yes });
    expect(textOf(done.result)).toBe('deployed web-1');
    expect(textOf(again.result)).toBe('deployed web-1');
    expect(reads).toHaveLength(1);
    expect(deployments).toEqual(['web']);
  });
});
