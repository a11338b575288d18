/**
 * Single use on Redis, tried from outside as an attacker or a bad day would:
 * a real redis-server restarted empty between a redemption and its replay,
 * and frozen (SIGSTOP) in the middle of a single-use retry and of a round's
 * ctx.once step. Real HTTP servers (serveHttp with redisStores) on 127.0.0.1
 * whose handlers count their side effects.
 *
 * - Restarted empty: the replayed single-use state is refused and the payment
 *   does not happen twice; the replayed round does not run its once step
 *   again; new flows work at once, also through an instance that sealed
 *   states before the restart.
 * - Frozen: the retry gets 503 with Retry-After (the default command timeout,
 *   not the client's patience, ends it) and nothing runs when Redis wakes up;
 *   a caller that went away while its redemption waited gets nothing run
 *   either, even when the redemption then succeeds.
 *
 * Seen failing before the fix: after the restart the payment and the once
 * step ran a second time; while frozen the retry hung until the client gave
 * up, and after SIGCONT the payment and the once step ran anyway.
 */

import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer } from '../../src/index.js';
import type { RunningHttpServer } from '../../src/node.js';
import { redisStores, type RedisStores } from '../../src/stores/redis/index.js';
import { deferred } from '../helpers/deferred.js';
import { meta, rpc, startHttp, type RpcReply } from '../helpers/http.js';
import { recordingLogger, type RecordingLogger } from '../helpers/recording-logger.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { quietPeriod } from '../helpers/sse-stream.js';
import { taskMeta, tasksGet } from '../helpers/tasks.js';

const KEYS = generateStateKey('fail-closed');
const FORM = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } });
const YES = { confirm: { action: 'accept', content: { confirm: true } } };
/** A request that hangs fails the test here instead of hanging it: a guard, well above the server's command timeout, not a threshold. */
const HANG_GUARD_MS = 15_000;

let redis: RedisServer;

interface Instance {
  url: string;
  stores: RedisStores;
  logger: RecordingLogger;
  /** Side effects: payments made, deployments run. */
  effects: { payments: number; deployments: number };
  /** Called as each redemption starts (tests use it to freeze Redis at that moment), and told how it ended. */
  onRedeem?: (() => void) | undefined;
  redeemed?: ((outcome: unknown) => void) | undefined;
  http: RunningHttpServer;
}

const instances: Instance[] = [];

async function instance(prefix: string, commandTimeoutMs?: number): Promise<Instance> {
  const stores = redisStores({ url: redis.url, prefix, ...(commandTimeoutMs !== undefined ? { commandTimeoutMs } : {}) });
  // The real store, watched: the test learns when a redemption starts and ends (and may freeze Redis right then).
  const redeemOnce = stores.redemptions.redeemOnce.bind(stores.redemptions);
  const made = { stores, logger: recordingLogger(), effects: { payments: 0, deployments: 0 } } as Instance;
  stores.redemptions.redeemOnce = (id, expiresAt, generation) => {
    made.onRedeem?.();
    const outcome = redeemOnce(id, expiresAt, generation);
    outcome.then(
      (value) => made.redeemed?.(value),
      (error: unknown) => made.redeemed?.(error),
    );
    return outcome;
  };
  const server = new McpServer({ name: 'payments', version: '1.0.0' }, { stores, state: { keys: KEYS }, logger: made.logger });
  server.tool('pay', { input: z.object({ amount: z.string() }), singleUseState: true }, async ({ amount }, ctx) => {
    const answer = await ctx.ask(ask.form(`Pay ${amount}?`, z.object({ confirm: z.boolean() }), { key: 'confirm' }));
    if (answer.action !== 'accept' || !answer.content.confirm) return 'not paid';
    made.effects.payments++;
    return `${amount} paid`;
  });
  server.tool('deploy', { input: z.object({ service: z.string() }) }, async ({ service }, ctx) => {
    const answer = await ctx.ask(ask.form(`Deploy ${service}?`, z.object({ confirm: z.boolean() }), { key: 'confirm' }));
    if (answer.action !== 'accept' || !answer.content.confirm) return 'not deployed';
    const run = await ctx.once('deploy', () => ++made.effects.deployments);
    return `${service} deployed (run ${run})`;
  });
  // A task tool, so that tasks/get is offered (its store is on Redis too).
  server.tool('job', { task: 'required' }, async (_args, ctx) => ctx.task(async () => 'done'));
  made.http = await startHttp(server);
  made.url = made.http.url;
  instances.push(made);
  return made;
}

/** The first round of a flow: its state. */
async function firstState(url: string, name: string, args: Record<string, string>): Promise<string> {
  const reply = await rpc(url, 'tools/call', { name, arguments: args, _meta: FORM });
  const result = reply.response!.result as { resultType: string; requestState: string };
  expect(result.resultType).toBe('input_required');
  return result.requestState;
}

function retry(url: string, name: string, args: Record<string, string>, requestState: string, signal?: AbortSignal): Promise<RpcReply> {
  return rpc(url, 'tools/call', { name, arguments: args, requestState, inputResponses: YES, _meta: FORM }, { signal: signal ?? AbortSignal.timeout(HANG_GUARD_MS) });
}

/** After a restart: the instance's connection comes back by itself; until then a request gets the 503 (bounded tries). */
async function untilConnected(send: () => Promise<RpcReply>): Promise<RpcReply> {
  let reply = await send();
  for (let attempt = 0; attempt < 100 && reply.status === 503; attempt++) {
    await quietPeriod(50);
    reply = await send();
  }
  return reply;
}

const text = (reply: RpcReply): string | undefined => ((reply.response?.result as { content?: Array<{ text: string }> } | undefined)?.content ?? [])[0]?.text;

function expectUnavailable(reply: RpcReply): void {
  expect(reply.status, JSON.stringify(reply.response)).toBe(503);
  expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(reply.response!.error).toMatchObject({ code: -32603, message: expect.stringMatching(/Redis.*cannot be reached/) });
}

beforeAll(async () => {
  redis = await startRedis();
});

afterEach(async () => {
  // A failed test must not leave Redis frozen for the next.
  for (const made of instances) made.onRedeem = made.redeemed = undefined;
  await redis.thaw().catch(() => undefined);
});

afterAll(async () => {
  await redis?.thaw().catch(() => undefined);
  for (const made of instances) {
    await made.http.close();
    await made.stores.close();
  }
  await redis?.stop();
});

describe('Redis restarted empty between a redemption and its replay', () => {
  it('refuses the replayed single-use state: the payment is not made twice', async () => {
    const a = await instance('restart-pay:');
    const args = { amount: '42 EUR' };
    const state = await firstState(a.url, 'pay', args);
    expect(text(await retry(a.url, 'pay', args, state))).toBe('42 EUR paid');
    expect(a.effects.payments).toBe(1);

    await redis.stop();
    await redis.start();
    const replay = await untilConnected(() => retry(a.url, 'pay', args, state));
    expect(replay.response!.error, JSON.stringify(replay.response)).toMatchObject({ code: -32602, message: 'Invalid params: requestState is invalid or expired' });
    expect(a.effects.payments).toBe(1);
    expect(a.logger.text()).toContain('another generation of the redemption store');
  });

  it('refuses the replayed last round instead of running its once step again', async () => {
    const a = await instance('restart-once:');
    const args = { service: 'api' };
    const state = await firstState(a.url, 'deploy', args);
    expect(text(await retry(a.url, 'deploy', args, state))).toBe('api deployed (run 1)');
    // Before the restart a replay gets the same answer, and the step does not run again (the control).
    expect(text(await retry(a.url, 'deploy', args, state))).toBe('api deployed (run 1)');
    expect(a.effects.deployments).toBe(1);

    await redis.stop();
    await redis.start();
    const replay = await untilConnected(() => retry(a.url, 'deploy', args, state));
    expect(replay.response!.error, JSON.stringify(replay.response)).toMatchObject({ code: -32602, message: 'Invalid params: requestState is invalid or expired' });
    expect(a.effects.deployments).toBe(1);
  });

  it('serves new flows at once, also through an instance that sealed states before the restart', async () => {
    const a = await instance('restart-new:');
    const b = await instance('restart-new:');
    // b learns the generation before the restart (it seals a first round under it).
    await firstState(b.url, 'pay', { amount: 'before' });

    await redis.stop();
    await redis.start();
    // A flow started on b after the restart, finished on a: sealed under the new generation, so redeemed.
    const args = { amount: '7 EUR' };
    const first = await untilConnected(() => rpc(b.url, 'tools/call', { name: 'pay', arguments: args, _meta: FORM }));
    const state = (first.response!.result as { requestState: string }).requestState;
    const paid = await untilConnected(() => retry(a.url, 'pay', args, state));
    expect(text(paid), JSON.stringify(paid.response)).toBe('7 EUR paid');
    expect(a.effects.payments + b.effects.payments).toBe(1);
    // And it stays single use.
    expect((await retry(b.url, 'pay', args, state)).response!.error).toMatchObject({ code: -32602 });
  });
});

describe('Redis frozen (SIGSTOP) during a single-use retry', () => {
  it('answers 503 with Retry-After (the command timeout, not a hang), and nothing runs when Redis wakes up', async () => {
    const a = await instance('frozen-pay:');
    const args = { amount: '99 EUR' };
    const state = await firstState(a.url, 'pay', args);
    redis.freeze();
    const during = await retry(a.url, 'pay', args, state);
    expectUnavailable(during);
    // Another store's command is bounded the same way.
    expectUnavailable(await tasksGet(a.url, 'task-unknown', taskMeta(), { signal: AbortSignal.timeout(HANG_GUARD_MS) }));
    await redis.thaw();
    await quietPeriod(300);
    expect(a.effects.payments).toBe(0);
    // The client retries after Retry-After: the payment happens at most once (the redemption Redis ran on
    // waking up may already have used the state up: then the flow starts over).
    const after = await retry(a.url, 'pay', args, state);
    if (after.response!.error) expect(after.response!.error).toMatchObject({ code: -32602 });
    else expect(text(after)).toBe('99 EUR paid');
    expect(a.effects.payments).toBe(after.response!.error ? 0 : 1);
  });

  it('answers 503 when Redis freezes as a round claims its once step, and the step does not run when it wakes up', async () => {
    const a = await instance('frozen-once:');
    const args = { service: 'billing' };
    const state = await firstState(a.url, 'deploy', args);
    // Frozen exactly as the round redeems its state, before the step (after the replay check at open).
    a.onRedeem = () => redis.freeze();
    const ended = deferred<unknown>();
    a.redeemed = ended.resolve;
    const during = await retry(a.url, 'deploy', args, state);
    expectUnavailable(during);
    a.onRedeem = undefined;
    await redis.thaw();
    await ended.promise;
    await quietPeriod(300);
    expect(a.effects.deployments).toBe(0);
  });
});

describe('the caller goes away while its redemption waits on a frozen Redis', () => {
  /**
   * Freezes Redis as the retry's redemption starts, lets the client leave, thaws, and resolves once the redemption
   * went through (its outcome). A command timeout far beyond the test: what must stop the handler is the caller leaving.
   */
  async function leaveWhileRedeeming(a: Instance, name: string, args: Record<string, string>): Promise<unknown> {
    const state = await firstState(a.url, name, args);
    const started = deferred();
    const ended = deferred<unknown>();
    const left = deferred();
    a.onRedeem = () => {
      redis.freeze();
      started.resolve();
    };
    a.redeemed = ended.resolve;
    // node:http's own word that the client left: the response closed before it was sent.
    const watch = (_request: unknown, response: ServerResponse): void => void response.once('close', () => response.writableFinished || left.resolve());
    a.http.server.on('request', watch);
    try {
      const client = new AbortController();
      const sent = retry(a.url, name, args, state, client.signal).catch((error: unknown) => error);
      await started.promise;
      client.abort();
      expect(await sent).toBeInstanceOf(Error);
      await left.promise;
    } finally {
      a.http.server.off('request', watch);
    }
    await redis.thaw();
    const outcome = await ended.promise;
    await quietPeriod(300);
    return outcome;
  }

  it('runs nothing for a single-use retry whose redemption then succeeds', async () => {
    const a = await instance('gone-pay:', 60_000);
    expect(await leaveWhileRedeeming(a, 'pay', { amount: '5 EUR' })).toBe(true); // the redemption went through once Redis woke up…
    expect(a.effects.payments).toBe(0); // …and still nothing ran for the caller that had left
    expect(a.logger.text()).toContain('the client went away');
  });

  it("runs nothing for a round's once step whose claim then succeeds", async () => {
    const a = await instance('gone-once:', 60_000);
    expect(await leaveWhileRedeeming(a, 'deploy', { service: 'search' })).toBe(true);
    expect(a.effects.deployments).toBe(0);
  });
});
