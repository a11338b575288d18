/**
 * A server MUST NOT hold resources assuming the client will answer or retry
 * (spec §7.4, checklist 41). Abandon many flows after their first round and
 * show that nothing of them stays: the heap does not grow with their number,
 * the suspended handlers (and what their closures captured) are collected, and
 * no per-flow record exists anywhere on the server.
 *
 * In-process through the server's RequestHandler seam, to keep 10,000 flows fast.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer, MemoryRedemptionStore } from '../../src/index.js';
import { settledHeap, turn } from '../helpers/collector.js';
import { call } from '../helpers/in-process.js';
import { meta } from '../helpers/http.js';
import { recordingLogger } from '../helpers/recording-logger.js';

/** Retained growth allowed between 1,000 and 10,000 abandoned flows: far below what 9,000 retained flows would cost. */
const NOISE_BYTES = 2 * 1024 * 1024;

const CAPS = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
const confirm = z.object({ ok: z.boolean() });

function newServer(options: { singleUse?: boolean } = {}): { server: McpServer; store: MemoryRedemptionStore } {
  const store = new MemoryRedemptionStore();
  const server = new McpServer(
    { name: 'memory', version: '1.0.0' },
    { logger: recordingLogger(), state: { keys: generateStateKey('mem'), redemptions: store, singleUse: options.singleUse ?? false } },
  );
  return { server, store };
}

/** Starts one flow and walks away from it. */
async function abandon(server: McpServer, tool: string, n: number): Promise<void> {
  const reply = await call(server, 'tools/call', { name: tool, arguments: { n }, _meta: CAPS });
  const result = (reply.response as { result?: { resultType?: string } }).result;
  if (result?.resultType !== 'input_required') throw new Error(`flow ${n} did not stop for input: ${JSON.stringify(reply.response)}`);
}

async function abandonMany(server: McpServer, tool: string, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) await abandon(server, tool, n);
}

describe('abandoned flows leave nothing behind', () => {
  it('heap after 10,000 abandoned flows is within noise of the heap after 1,000', async () => {
    const { server } = newServer();
    server.tool('abandon', { input: z.object({ n: z.number() }) }, async ({ n }, ctx) => {
      // Per-flow data a suspended handler would keep alive.
      const scratch = Array.from({ length: 16 }, (_, i) => `${n}:${i}`);
      const answer = await ctx.ask(ask.form(`Confirm flow ${n}?`, confirm, { key: 'confirm' }));
      return `${scratch.length} ${answer.action}`;
    });
    await abandonMany(server, 'abandon', 0, 1_000);
    const after1k = await settledHeap();
    await abandonMany(server, 'abandon', 1_000, 9_000);
    const after10k = await settledHeap();
    const growth = after10k - after1k;
    expect(growth, `retained ${growth} bytes for 9,000 more abandoned flows (~${Math.round(growth / 9_000)} bytes each)`).toBeLessThan(NOISE_BYTES);
  });

  it('the suspended handler and what its closure captured are collected (WeakRef + FinalizationRegistry)', async () => {
    const { server } = newServer();
    const FLOWS = 1_000;
    let finalized = 0;
    const registry = new FinalizationRegistry<number>(() => {
      finalized++;
    });
    const markers: WeakRef<object>[] = [];
    const contexts: WeakRef<object>[] = [];
    server.tool('tracked', { input: z.object({ n: z.number() }) }, async ({ n }, ctx) => {
      const marker = { flow: n };
      registry.register(marker, n);
      markers.push(new WeakRef(marker));
      contexts.push(new WeakRef(ctx));
      const answer = await ctx.ask(ask.form(`Confirm flow ${n}?`, confirm, { key: 'confirm' }));
      return `${marker.flow} ${answer.action}`;
    });
    await abandonMany(server, 'tracked', 0, FLOWS);
    expect(markers).toHaveLength(FLOWS);
    // Bounded by collection cycles, not by time.
    for (let cycle = 0; cycle < 10 && finalized < FLOWS; cycle++) await settledHeap();
    const liveMarkers = markers.filter((ref) => ref.deref() !== undefined).length;
    const liveContexts = contexts.filter((ref) => ref.deref() !== undefined).length;
    expect({ liveMarkers, liveContexts, finalized }).toEqual({ liveMarkers: 0, liveContexts: 0, finalized: FLOWS });
  });

  it('no per-flow record exists: the redemption store stays empty when single use is off', async () => {
    const { server, store } = newServer();
    server.tool('plain', { input: z.object({ n: z.number() }) }, async (_args, ctx) => {
      await ctx.ask(ask.form('Confirm?', confirm, { key: 'confirm' }));
      return 'done';
    });
    await abandonMany(server, 'plain', 0, 10_000);
    expect(store.size).toBe(0);

    // Control: the store is the one the server uses; a single-use retry does record there.
    const { server: strict, store: strictStore } = newServer({ singleUse: true });
    strict.tool('plain', { input: z.object({ n: z.number() }) }, async (_args, ctx) => {
      await ctx.ask(ask.form('Confirm?', confirm, { key: 'confirm' }));
      return 'done';
    });
    await abandonMany(strict, 'plain', 0, 1_000);
    // Even with single use on, a flow nobody retries leaves no record.
    expect(strictStore.size).toBe(0);
    const first = await call(strict, 'tools/call', { name: 'plain', arguments: { n: 1 }, _meta: CAPS });
    const requestState = (first.response.result as { requestState: string }).requestState;
    const done = await call(strict, 'tools/call', {
      name: 'plain',
      arguments: { n: 1 },
      requestState,
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      _meta: CAPS,
    });
    expect((done.response.result as { resultType: string }).resultType).toBe('complete');
    expect(strictStore.size).toBe(1);
  });

  it('abandoned flows leave no timers or immediates pending', async () => {
    const { server } = newServer();
    server.tool('plain', { input: z.object({ n: z.number() }) }, async (_args, ctx) => {
      await ctx.ask(ask.form('Confirm?', confirm, { key: 'confirm' }));
      return 'done';
    });
    await turn();
    const pending = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'Immediate').length;
    const before = pending();
    await abandonMany(server, 'plain', 0, 1_000);
    await turn();
    expect(pending()).toBeLessThanOrEqual(before);
  });
});
