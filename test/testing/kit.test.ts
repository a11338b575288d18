/**
 * The test kit (tessera-mcp/testing, issue 14): flows run through the real
 * pipeline in memory with scripted answers, transcripts of every round, a
 * clock to move by hand, and states taken from a round that are tampered
 * with, replayed or moved — refused, with the reason the server logged.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, McpServer, toolError, type McpServerOptions } from '../../src/index.js';
import { accept, cancel, decline, roots, sampled, tamper, testServer, UnscriptedQuestionError, type AnswerContext } from '../../src/testing.js';

const reservations: string[] = [];

function shop(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: 'shop', version: '1.0.0' }, options);
  server.tool('order', { input: z.object({ item: z.string() }) }, async ({ item }, ctx) => {
    const who = await ctx.ask(ask.form('Your name?', z.object({ name: z.string() }), { key: 'name' }));
    if (who.action !== 'accept') return toolError(`name: ${who.action}`);
    const seat = await ctx.once('reserve', () => {
      reservations.push(item);
      return `r${reservations.length}`;
    });
    const size = await ctx.ask(ask.form('Size?', z.object({ size: z.number().int().min(1).max(5) }), { key: 'size' }));
    if (size.action !== 'accept') return toolError(`size: ${size.action}`);
    return `${item} ×${size.content.size} for ${who.content.name} (${seat})`;
  });
  server.tool('redeem', { input: z.object({ code: z.string() }), singleUseState: true }, async ({ code }, ctx) => {
    const ok = await ctx.ask(ask.form(`Redeem ${code}?`, z.object({ ok: z.boolean() }), { key: 'confirm' }));
    return ok.action === 'accept' && ok.content.ok ? `redeemed ${code}` : 'kept';
  });
  server.tool('summarise', {}, async (_args, ctx) => {
    const [reply, folders] = await Promise.all([ctx.ask(ask.sampling({ messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }], maxTokens: 50 }, { key: 'model' })), ctx.ask(ask.roots({ key: 'roots' }))]);
    const block = Array.isArray(reply.content) ? reply.content[0] : reply.content;
    return `${block?.type === 'text' ? block.text : '?'} over ${folders.map((r) => r.uri).join(', ')}`;
  });
  server.prompt('greet', {}, async (_args, ctx) => {
    const who = await ctx.ask(ask.form('Name?', z.object({ name: z.string() }), { key: 'name' }));
    return `Say hello to ${who.action === 'accept' ? who.content.name : 'nobody'}`;
  });
  server.resource({ uri: 'memo://today', name: 'today' }, async (_uri, ctx) => {
    const pin = await ctx.ask(ask.form('PIN?', z.object({ pin: z.string() }), { key: 'pin' }));
    return pin.action === 'accept' ? `memo for ${pin.content.pin}` : 'locked';
  });
  return server;
}

describe('running a flow with scripted answers', () => {
  it('answers by key, and records each round: questions, answers, state size, once steps, one flow id', async () => {
    const kit = testServer(shop);
    const run = await kit.callTool('order', { item: 'tea' }, { name: accept({ name: 'Ada' }), size: accept({ size: 2 }) });
    expect(run.text).toMatch(/^tea ×2 for Ada \(r\d+\)$/);
    expect(run.rounds).toBe(3);
    expect(run.transcript.map((r) => r.outcome)).toEqual(['input_required', 'input_required', 'complete']);
    expect(run.transcript.map((r) => Object.keys(r.questions))).toEqual([['name'], ['size'], []]);
    expect(run.transcript.map((r) => r.answers)).toEqual([{}, { name: { action: 'accept', content: { name: 'Ada' } } }, { size: { action: 'accept', content: { size: 2 } } }]);
    expect(run.transcript.map((r) => r.onceSteps)).toEqual([[], ['reserve'], []]);
    expect(run.transcript.map((r) => typeof r.stateBytes)).toEqual(['number', 'number', 'undefined']);
    expect(new Set(run.transcript.map((r) => r.flowId)).size).toBe(1);
    expect(run.flowId).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(run.onceSteps).toEqual(['reserve']);
  });

  it('declines and cancels', async () => {
    const kit = testServer(shop);
    expect((await kit.callTool('order', { item: 'tea' }, { name: decline() })).text).toBe('name: decline');
    expect((await kit.callTool('order', { item: 'tea' }, { name: accept({ name: 'Ada' }), size: cancel() })).text).toBe('size: cancel');
  });

  it('answers with a function, and with a list for a key asked again after an answer that did not fit', async () => {
    const kit = testServer(shop);
    const seen: AnswerContext[] = [];
    const run = await kit.callTool('order', { item: 'jam' }, {
      name: (question, context) => {
        seen.push(context);
        return accept({ name: question.method === 'elicitation/create' ? 'Grace' : '?' });
      },
      size: [accept({ size: 9 }), accept({ size: 3 })],
    });
    expect(run.text).toMatch(/^jam ×3 for Grace/);
    expect(seen).toEqual([{ key: 'name', round: 1, asked: 0 }]);
    expect(run.transcript.map((r) => Object.keys(r.questions))).toEqual([['name'], ['size'], ['size'], []]);
  });

  it('answers sampling and roots, asked in one round', async () => {
    const kit = testServer(shop);
    const run = await kit.callTool('summarise', {}, { model: sampled('Short.'), roots: roots('file:///work') });
    expect(run.text).toBe('Short. over file:///work');
    expect(run.rounds).toBe(2);
  });

  it('runs prompts and resources too', async () => {
    const kit = testServer(shop);
    const prompt = await kit.getPrompt('greet', {}, { name: accept({ name: 'Lin' }) });
    expect(prompt.result.messages[0]?.content).toEqual({ type: 'text', text: 'Say hello to Lin' });
    const memo = await kit.readResource('memo://today', { pin: accept({ pin: '1234' }) });
    expect(memo.result.contents[0]).toMatchObject({ uri: 'memo://today', text: 'memo for 1234' });
  });

  it('says which question the script does not answer', async () => {
    const kit = testServer(shop);
    await expect(kit.callTool('order', { item: 'tea' }, { name: accept({ name: 'Ada' }) })).rejects.toThrow(UnscriptedQuestionError);
    await expect(kit.callTool('order', { item: 'tea' }, {})).rejects.toThrow('Round 1 asked "name" (elicitation/create: "Your name?")');
  });

  it('works with a server object too (its own keys and clock)', async () => {
    const kit = testServer(shop({}));
    expect((await kit.callTool('order', { item: 'tea' }, { name: accept({ name: 'Ada' }), size: accept({ size: 1 }) })).text).toMatch(/^tea ×1/);
    expect(() => kit.instance()).toThrow('needs the server as a factory');
  });

  it('reports a flow that ended in an error, with what the server logged', async () => {
    const kit = testServer((options) => {
      const server = new McpServer({ name: 'broken', version: '1' }, options);
      server.tool('boom', {}, () => {
        throw new Error('disk on fire');
      });
      return server;
    });
    const run = await kit.callTool('boom');
    expect(run.error?.code).toBe(-32603);
    expect(() => run.result).toThrow(/ended in error -32603 after 1 round\(s\)[\s\S]*server error: tools\/call failed \(disk on fire\)/);
  });
});

describe('states under attack', () => {
  const name = { name: accept({ name: 'Ada' }) };

  it('refuses a tampered state, a state moved to another tool, other arguments or another principal', async () => {
    const kit = testServer(shop);
    const first = await kit.start('tools/call', { name: 'order', arguments: { item: 'tea' } }, { principal: 'alice' });
    await kit.expectRefused(kit.retry(first, name, { requestState: tamper(first.requestState!) }), 'forged');
    await kit.expectRefused(kit.retry(first, name, { name: 'redeem', arguments: { code: 'x' } }), 'target');
    await kit.expectRefused(kit.retry(first, name, { arguments: { item: 'gold' } }), 'arguments');
    await kit.expectRefused(kit.retry(first, name, { principal: 'mallory' }), 'principal');
    await kit.expectRefused(kit.retry(first, name, { method: 'prompts/get', name: 'order' }), 'method');
    // The untouched state still works: nothing above used it up.
    expect((await kit.retry(first, name)).pending?.inputRequests).toHaveProperty('size');
  });

  it('refuses an expired state once the clock has moved past its lifetime', async () => {
    const kit = testServer(shop);
    const first = await kit.start('tools/call', { name: 'order', arguments: { item: 'tea' } });
    kit.clock.advance(10 * 60_000 - 1);
    expect((await kit.retry(first, name)).error).toBeUndefined();
    kit.clock.advance(1);
    await kit.expectRefused(kit.retry(first, name), 'expired');
  });

  it('moves a flow between instances: the same key ring continues it, another key ring or audience refuses it', async () => {
    const kit = testServer(shop);
    const first = await kit.start('tools/call', { name: 'order', arguments: { item: 'tea' } });
    const twin = kit.instance();
    const second = await twin.retry(first, name);
    expect(second.pending?.inputRequests).toHaveProperty('size');
    expect(second.log?.flowId).toBe(kit.keys && (await kit.retry(first, name)).log?.flowId);
    await twin.expectRefused(kit.instance({ keys: 'other' }).retry(first, name), 'unknown_key');
    const elsewhere = kit.instance({ audience: 'another-cluster' });
    await elsewhere.expectRefused(elsewhere.retry(first, name), 'audience');
  });

  it('refuses a replayed single-use state; a replayed once round gets its answer again', async () => {
    const kit = testServer(shop);
    const voucher = await kit.start('tools/call', { name: 'redeem', arguments: { code: 'v1' } });
    const [used, again] = await kit.replay(voucher, { confirm: accept({ ok: true }) });
    expect(used.result?.content).toEqual([{ type: 'text', text: 'redeemed v1' }]);
    await kit.expectRefused(again, 'redeemed');

    const before = reservations.length;
    const order = await kit.start('tools/call', { name: 'order', arguments: { item: 'pie' } });
    const [ran, replayed] = await kit.replay(order, name);
    expect(ran.log?.onceSteps).toEqual(['reserve']);
    expect(replayed.log?.onceSteps).toBeUndefined();
    expect(replayed.result).toEqual(ran.result);
    expect(reservations.length).toBe(before + 1);
  });

  it('says so when a state was not refused', async () => {
    const kit = testServer(shop);
    const first = await kit.start('tools/call', { name: 'order', arguments: { item: 'tea' } });
    await expect(kit.expectRefused(kit.retry(first, name))).rejects.toThrow('Expected the requestState to be refused');
    await expect(kit.expectRefused(kit.retry(first, name, { requestState: tamper(first.requestState!) }), 'expired')).rejects.toThrow('refused as "forged", not "expired"');
  });
});
