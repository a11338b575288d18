/**
 * Attacks on requestState (spec §7.7, checklist 46–58): the client is an
 * untrusted intermediary, so every altered, truncated, transplanted, expired or
 * replayed state must be refused with one fixed -32602 error before any
 * handler code runs, with the precise reason in the server log only.
 * Everything goes over real HTTP on 127.0.0.1; states are real ones taken from
 * a first round.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ask,
  generateStateKey,
  KeyRing,
  McpServer,
  MemoryRedemptionStore,
  type RedemptionStore,
  type StateOptions,
} from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, startHttp, type RpcReply } from '../helpers/http.js';
import { recordingLogger, type RecordingLogger } from '../helpers/recording-logger.js';

/** The one error every failing state gets (documented; checklist 49). */
const FIXED_ERROR = { code: -32602, message: 'Invalid params: requestState is invalid or expired' };
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const CAPS = { elicitation: {} };
const YES = { confirm: { action: 'accept', content: { ok: true } } };
const T0 = Date.UTC(2026, 9, 20, 12, 0, 0);
const TEN_MINUTES = 10 * 60_000;

const KEY_A = generateStateKey('ka');
const KEY_B = generateStateKey('kb');
const KEY_OLD = generateStateKey('old');
const KEY_NEW = generateStateKey('new');

/** Controllable time for every server of this file. */
let now = T0;
const clock = (): number => now;

interface Counters {
  vault: number;
  other: number;
  prompt: number;
  redeem: number;
  twoStep: number;
  /** Side effects that only a handler running past the confirmation can cause. */
  debits: number;
}

function newCounters(): Counters {
  return { vault: 0, other: 0, prompt: 0, redeem: 0, twoStep: 0, debits: 0 };
}

const confirmForm = z.object({ ok: z.boolean() });

/** Tools and a prompt whose handlers count every run, so "no handler code ran" can be checked. */
function buildServer(name: string, state: StateOptions, logger: RecordingLogger, counters: Counters): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, { logger, state: { clock, ...state } });
  const account = z.object({ account: z.string() });
  server.tool('vault', { input: account }, async ({ account: id }, ctx) => {
    counters.vault++;
    const answer = await ctx.ask(ask.form(`Move money out of ${id}?`, confirmForm, { key: 'confirm' }));
    if (answer.action !== 'accept' || !answer.content.ok) return 'kept';
    await ctx.once('debit', () => ++counters.debits);
    return `moved from ${id}`;
  });
  server.tool('other', { input: account }, async ({ account: id }, ctx) => {
    counters.other++;
    const answer = await ctx.ask(ask.form(`Move money out of ${id}?`, confirmForm, { key: 'confirm' }));
    if (answer.action === 'accept') await ctx.once('debit', () => ++counters.debits);
    return 'other done';
  });
  server.tool('redeem', { input: account, singleUseState: true }, async (_args, ctx) => {
    counters.redeem++;
    const answer = await ctx.ask(ask.form('Redeem the voucher?', confirmForm, { key: 'confirm' }));
    if (answer.action === 'accept') await ctx.once('debit', () => ++counters.debits);
    return 'redeemed';
  });
  server.tool('two_step', { input: account }, async (_args, ctx) => {
    counters.twoStep++;
    await ctx.ask(ask.form('Step one?', confirmForm, { key: 'confirm' }));
    const pin = await ctx.ask(ask.form('Your PIN?', z.object({ pin: z.string() }), { key: 'pin' }));
    return pin.action === 'accept' ? `pin ${pin.content.pin}` : 'no pin';
  });
  server.tool('hoard', { input: z.object({ size: z.number().int() }) }, async ({ size }, ctx) => {
    await ctx.once('blob', () => 'x'.repeat(size));
    await ctx.ask(ask.form('Keep it?', confirmForm, { key: 'confirm' }));
    return 'hoarded';
  });
  server.prompt('vault', { arguments: [{ name: 'account', required: true }] }, async ({ account: id }, ctx) => {
    counters.prompt++;
    const answer = await ctx.ask(ask.form(`Move money out of ${String(id)}?`, confirmForm, { key: 'confirm' }));
    return answer.action === 'accept' ? 'prompt confirmed' : 'prompt kept';
  });
  return server;
}

/** The principal is whatever the x-user header says; no header = anonymous. */
const authenticate = (header: (name: string) => string | undefined): string | undefined => header('x-user') || undefined;

interface Instance {
  server: McpServer;
  http: RunningHttpServer;
  url: string;
  logger: RecordingLogger;
  counters: Counters;
}

const running: Instance[] = [];

async function instance(name: string, state: StateOptions, port = 0): Promise<Instance> {
  const logger = recordingLogger();
  const counters = newCounters();
  const server = buildServer(name, state, logger, counters);
  const http = await startHttp(server, { authenticate, port });
  const made = { server, http, url: http.url, logger, counters };
  running.push(made);
  return made;
}

async function stop(target: Instance): Promise<void> {
  running.splice(running.indexOf(target), 1);
  await target.http.close();
}

interface SendOptions {
  user?: string;
  state?: string;
  answers?: Record<string, unknown>;
}

/** One request; `state` and `answers` make it a retry. */
function send(url: string, method: string, params: Record<string, unknown>, options: SendOptions = {}): Promise<RpcReply> {
  const full: Record<string, unknown> = { ...params, _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': CAPS }) };
  if (options.state !== undefined) full.requestState = options.state;
  if (options.answers !== undefined) full.inputResponses = options.answers;
  return rpc(url, method, full, { headers: options.user === undefined ? {} : { 'x-user': options.user } });
}

function retry(url: string, method: string, params: Record<string, unknown>, state: string, user?: string): Promise<RpcReply> {
  return send(url, method, params, { state, answers: YES, user });
}

/** A real state from a first round. */
async function firstState(url: string, method: string, params: Record<string, unknown>, user?: string): Promise<string> {
  const reply = await send(url, method, params, { user });
  const result = reply.response?.result as Record<string, unknown> | undefined;
  expect(result?.resultType, JSON.stringify(reply.response)).toBe('input_required');
  expect(typeof result!.requestState).toBe('string');
  return result!.requestState as string;
}

function expectRejected(reply: RpcReply, what: string): void {
  // Exactly the fixed error: no data, no detail, nothing else a client could learn the reason from.
  expect(reply.response, what).toBeDefined();
  expect(Object.keys(reply.response!).sort(), `${what}: ${JSON.stringify(reply.response)}`).toEqual(['error', 'id', 'jsonrpc']);
  expect(reply.response!.error, what).toEqual(FIXED_ERROR);
}

function expectAccepted(reply: RpcReply, what: string): Record<string, unknown> {
  expect(reply.response, what).toBeDefined();
  expect(reply.response!.error, `${what}: ${JSON.stringify(reply.response)}`).toBeUndefined();
  return reply.response!.result as Record<string, unknown>;
}

function textOf(result: Record<string, unknown>): string {
  const content = (result.content ?? (result.messages as Array<{ content: unknown }> | undefined)?.map((m) => m.content)) as Array<{
    text?: string;
  }>;
  return content.map((c) => c.text ?? '').join('\n');
}

/** Sends many variants, a few at a time, and returns the replies in order. */
async function inBatches<T>(items: readonly T[], fn: (item: T) => Promise<RpcReply>, size = 16): Promise<RpcReply[]> {
  const out: RpcReply[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

function replaceAt(text: string, index: number, char: string): string {
  return text.slice(0, index) + char + text.slice(index + 1);
}

/** A different base64url character that always changes the decoded bits: the top bit of the 6-bit group flips. */
function flipped(char: string): string {
  const index = B64URL.indexOf(char);
  return index < 0 ? 'A' : B64URL[index ^ 32]!;
}

let A: Instance;
/** A's redemption store: its siblings share it, as a cluster does (a once step that runs in a retry is redeemed there). */
const bankRedemptions: RedemptionStore = new MemoryRedemptionStore(clock);
const VAULT = { name: 'vault', arguments: { account: 'acc-1' } };

beforeAll(async () => {
  A = await instance('bank', { keys: `${KEY_A},${KEY_B}`, audience: 'bank-cluster', redemptions: bankRedemptions });
});

afterEach(() => {
  now = T0;
});

afterAll(async () => {
  await Promise.all(running.map((r) => r.http.close()));
});

describe('tampering with a real requestState', () => {
  it('the untouched state is accepted (control for everything below)', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    expect(state.startsWith('t2.ka.'), state).toBe(true);
    const result = expectAccepted(await retry(A.url, 'tools/call', VAULT, state, 'alice'), 'valid retry');
    expect(textOf(result)).toBe('moved from acc-1');
  });

  it('changing any single character (version, key id, separators, body) is rejected and no handler code runs', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const before = { ...A.counters };
    const warns = A.logger.warns.length;
    const positions = [...state].map((_, i) => i);
    const replies = await inBatches(positions, (i) => retry(A.url, 'tools/call', VAULT, replaceAt(state, i, flipped(state[i]!)), 'alice'));
    const accepted = positions.filter((i) => replies[i]!.response?.error === undefined);
    expect(accepted, 'positions whose flip was accepted').toEqual([]);
    replies.forEach((reply, i) => expectRejected(reply, `flip at ${i}`));
    expect(A.counters, 'no handler ran, no side effect happened').toEqual(before);
    expect(A.logger.warns.length - warns, 'every rejection was logged').toBeGreaterThanOrEqual(positions.length);
    // The state itself was fine all along.
    expectAccepted(await retry(A.url, 'tools/call', VAULT, state, 'alice'), 'original after the flips');
  });

  it('every other character at the version, key id and separator positions is rejected', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const header = state.slice(0, state.indexOf('.', 3) + 1); // "t2.ka."
    expect(header).toBe('t2.ka.');
    const variants: string[] = [];
    for (let i = 0; i < header.length; i++) {
      for (const char of `${B64URL}.`) if (char !== state[i]) variants.push(replaceAt(state, i, char));
    }
    const before = { ...A.counters };
    const replies = await inBatches(variants, (v) => retry(A.url, 'tools/call', VAULT, v, 'alice'));
    replies.forEach((reply, i) => expectRejected(reply, `variant ${variants[i]!.slice(0, 8)}`));
    expect(A.counters).toEqual(before);
  });

  it('naming another key of the same ring in the header is rejected (the key id is authenticated)', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const swapped = state.replace(/^t2\.ka\./, 't2.kb.');
    expect(swapped).not.toBe(state);
    const before = { ...A.counters };
    expectRejected(await retry(A.url, 'tools/call', VAULT, swapped, 'alice'), 'key id swapped');
    expect(A.counters).toEqual(before);
  });

  it('every truncation, and appended data, is rejected without running the handler', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const variants = [...state].map((_, length) => state.slice(0, length)); // lengths 0 … n-1
    variants.push(`${state}A`, `${state}.`, `${state}.AAAA`, `${state}=`, ` ${state}`, `${state} `);
    const before = { ...A.counters };
    const replies = await inBatches(variants, (v) => retry(A.url, 'tools/call', VAULT, v, 'alice'));
    replies.forEach((reply, i) => expectRejected(reply, `variant ${i} (length ${variants[i]!.length})`));
    expect(A.counters).toEqual(before);
  });

  it('a re-encoded state (the same bytes in a non-canonical base64url form) is rejected (checklist 58)', async () => {
    // Pick a ledger whose sealed body leaves unused bits in its last character (arguments are a fixed-size digest in t2).
    let state = '';
    let params: Record<string, unknown> = {};
    for (const size of [1, 2, 3, 4]) {
      params = { name: 'hoard', arguments: { size } };
      state = await firstState(A.url, 'tools/call', params, 'alice');
      if (state.split('.')[2]!.length % 4 !== 0) break;
    }
    const body = state.split('.')[2]!;
    expect(body.length % 4).not.toBe(0);
    const last = body[body.length - 1]!;
    const reencodedBody = body.slice(0, -1) + B64URL[B64URL.indexOf(last) ^ 1]!;
    // The premise: the same bytes, written differently.
    expect(Buffer.from(reencodedBody, 'base64url').equals(Buffer.from(body, 'base64url'))).toBe(true);
    const head = state.slice(0, state.length - body.length);
    const variants = [
      head + reencodedBody,
      head + body.replaceAll('-', '+').replaceAll('_', '/'),
      `${head}${body}${'='.repeat((4 - (body.length % 4)) % 4)}`,
    ].filter((v) => v !== state);
    const before = { ...A.counters };
    for (const variant of variants) expectRejected(await retry(A.url, 'tools/call', params, variant, 'alice'), `re-encoded …${variant.slice(-6)}`);
    expect(A.counters).toEqual(before);
    // Control: the canonical form is accepted.
    expectAccepted(await retry(A.url, 'tools/call', params, state, 'alice'), 'canonical');
  });
});

describe('transplanting a valid state', () => {
  it('is rejected under another principal, or anonymously; accepted for its own principal', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const before = { ...A.counters };
    expectRejected(await retry(A.url, 'tools/call', VAULT, state, 'bob'), 'bob replays alice');
    expectRejected(await retry(A.url, 'tools/call', VAULT, state, undefined), 'anonymous replays alice');
    expect(A.counters).toEqual(before);
    expectAccepted(await retry(A.url, 'tools/call', VAULT, state, 'alice'), 'alice');
  });

  it('an anonymous state is rejected when presented by an authenticated principal', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT);
    const before = { ...A.counters };
    expectRejected(await retry(A.url, 'tools/call', VAULT, state, 'mallory'), 'mallory replays anonymous');
    expect(A.counters).toEqual(before);
    expectAccepted(await retry(A.url, 'tools/call', VAULT, state), 'anonymous');
  });

  it('is rejected on another tool with the same arguments', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const before = { ...A.counters };
    expectRejected(await retry(A.url, 'tools/call', { ...VAULT, name: 'other' }, state, 'alice'), 'other tool');
    expect(A.counters).toEqual(before);
  });

  it('is rejected with another argument set (changed value, extra argument, no arguments)', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const before = { ...A.counters };
    for (const args of [{ account: 'acc-2' }, { account: 'acc-1', extra: 1 }, {}]) {
      expectRejected(await retry(A.url, 'tools/call', { name: 'vault', arguments: args }, state, 'alice'), JSON.stringify(args));
    }
    expect(A.counters).toEqual(before);
  });

  it('is rejected on another method: a tools/call state presented to prompts/get of the prompt with the same name', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const before = { ...A.counters };
    expectRejected(await retry(A.url, 'prompts/get', VAULT, state, 'alice'), 'prompts/get with a tools/call state');
    expect(A.counters).toEqual(before);
    // The prompt's own flow works, so the rejection is about the method.
    const promptState = await firstState(A.url, 'prompts/get', VAULT, 'alice');
    expect(textOf(expectAccepted(await retry(A.url, 'prompts/get', VAULT, promptState, 'alice'), 'prompt flow'))).toBe('prompt confirmed');
    expectRejected(await retry(A.url, 'tools/call', VAULT, promptState, 'alice'), 'tools/call with a prompts/get state');
  });

  it('is rejected by another server with the same keys but another audience; accepted by one with the same audience', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const foreign = await instance('bank', { keys: `${KEY_A},${KEY_B}`, audience: 'other-cluster' });
    const sibling = await instance('bank-replica', { keys: `${KEY_A},${KEY_B}`, audience: 'bank-cluster', redemptions: bankRedemptions });
    expectRejected(await retry(foreign.url, 'tools/call', VAULT, state, 'alice'), 'other audience');
    expect(foreign.counters.vault).toBe(0);
    expectAccepted(await retry(sibling.url, 'tools/call', VAULT, state, 'alice'), 'same audience, other server name');
    await Promise.all([stop(foreign), stop(sibling)]);
  });

  it('is rejected by default by a server with another name (the audience defaults to the server name)', async () => {
    const redemptions = new MemoryRedemptionStore(clock);
    const first = await instance('alpha', { keys: KEY_A, redemptions });
    const second = await instance('beta', { keys: KEY_A, redemptions });
    const twin = await instance('alpha', { keys: KEY_A, redemptions });
    const state = await firstState(first.url, 'tools/call', VAULT, 'alice');
    expectRejected(await retry(second.url, 'tools/call', VAULT, state, 'alice'), 'server named beta');
    expect(second.counters.vault).toBe(0);
    expectAccepted(await retry(twin.url, 'tools/call', VAULT, state, 'alice'), 'another server named alpha');
    await Promise.all([stop(first), stop(second), stop(twin)]);
  });
});

describe('expiry', () => {
  it('a state is accepted just before the default 10 minutes and rejected after', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    now = T0 + TEN_MINUTES - 1;
    expectAccepted(await retry(A.url, 'tools/call', VAULT, state, 'alice'), 'just before expiry');
    now = T0 + TEN_MINUTES + 1;
    const before = { ...A.counters };
    expectRejected(await retry(A.url, 'tools/call', VAULT, state, 'alice'), 'just after expiry');
    expect(A.counters).toEqual(before);
    now = T0 + 24 * 60 * TEN_MINUTES;
    expectRejected(await retry(A.url, 'tools/call', VAULT, state, 'alice'), 'a day later');
  });

  it('honours a configured state.ttlMs', async () => {
    const short = await instance('short', { keys: KEY_A, ttlMs: 5_000 });
    const state = await firstState(short.url, 'tools/call', VAULT, 'alice');
    now = T0 + 4_999;
    expectAccepted(await retry(short.url, 'tools/call', VAULT, state, 'alice'), 'inside ttl');
    now = T0 + 5_001;
    expectRejected(await retry(short.url, 'tools/call', VAULT, state, 'alice'), 'past ttl');
    await stop(short);
  });
});

describe('key rotation', () => {
  it('a state whose key was retired is rejected after a restart; with "new,old" it opens and the next state is sealed with "new"', async () => {
    const original = await instance('rotating', { keys: KEY_OLD });
    const port = original.http.port;
    const oldState = await firstState(original.url, 'tools/call', { name: 'two_step', arguments: { account: 'r' } }, 'alice');
    expect(oldState.startsWith('t2.old.')).toBe(true);
    await stop(original);

    // Restarted on the same port with a ring that no longer holds "old".
    const retired = await instance('rotating', { keys: KEY_NEW }, port);
    const params = { name: 'two_step', arguments: { account: 'r' } };
    expectRejected(await retry(retired.url, 'tools/call', params, oldState, 'alice'), 'retired key');
    expect(retired.counters.twoStep).toBe(0);
    expect(retired.logger.warns.join('\n'), 'the log names the unknown key').toContain('old');
    await stop(retired);

    // Restarted with the new key first and the old one kept for opening.
    const rotated = await instance('rotating', { keys: KeyRing.parse(`${KEY_NEW},${KEY_OLD}`) }, port);
    const round2 = expectAccepted(await retry(rotated.url, 'tools/call', params, oldState, 'alice'), 'old state after rotation');
    expect(round2.resultType).toBe('input_required');
    const newState = round2.requestState as string;
    expect(newState.startsWith('t2.new.'), newState).toBe(true);
    await stop(rotated);

    // Once the old key is retired, the newly sealed state still works.
    const retiredAgain = await instance('rotating', { keys: KEY_NEW }, port);
    const done = expectAccepted(
      await send(retiredAgain.url, 'tools/call', params, { state: newState, user: 'alice', answers: { pin: { action: 'accept', content: { pin: '1234' } } } }),
      'new state on a new-only ring',
    );
    expect(textOf(done)).toBe('pin 1234');
    await stop(retiredAgain);
  });
});

describe('size budget', () => {
  it('an oversized incoming state is rejected (default budget 64 KiB) without running the handler', async () => {
    const forged = `t2.ka.${'A'.repeat(64 * 1024)}`;
    const before = { ...A.counters };
    expectRejected(await retry(A.url, 'tools/call', VAULT, forged, 'alice'), 'oversized forged state');
    expect(A.counters).toEqual(before);
  });

  it('a genuine state over a configured budget is rejected, though a server with a larger budget accepts it', async () => {
    const small = await instance('bank', { keys: `${KEY_A},${KEY_B}`, audience: 'bank-cluster', maxBytes: 200 });
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    expect(state.length).toBeGreaterThan(200);
    expectRejected(await retry(small.url, 'tools/call', VAULT, state, 'alice'), 'over the small budget');
    expect(small.counters.vault).toBe(0);
    expect(small.logger.warns.join('\n')).toMatch(/size|bytes|large|limit|budget/i);
    expectAccepted(await retry(A.url, 'tools/call', VAULT, state, 'alice'), 'default budget');
    await stop(small);
  });

  it('sealing more than the budget fails on the server: -32603 to the client, advice for the author in logger.error', async () => {
    const fits = await send(A.url, 'tools/call', { name: 'hoard', arguments: { size: 1_000 } });
    expect((fits.response?.result as Record<string, unknown>).resultType).toBe('input_required');

    const errors = A.logger.errors.length;
    const reply = await send(A.url, 'tools/call', { name: 'hoard', arguments: { size: 70_000 } });
    const error = reply.response?.error as { code: number; message: string; data?: unknown };
    expect(error.code).toBe(-32603);
    expect(JSON.stringify(error)).not.toMatch(/65536|budget|bytes/);
    const logged = A.logger.errors.slice(errors).map((e) => `${e.message} ${e.detail instanceof Error ? e.detail.message : String(e.detail)}`);
    expect(logged.length).toBeGreaterThan(0);
    // The author learns the limit and what to do about it.
    expect(logged.join('\n')).toContain('65536');
    expect(logged.join('\n')).toMatch(/state/i);
    expect(logged.join('\n')).toMatch(/keep less|store|raise|increase|maxBytes|limit/i);
  });
});

describe('single use', () => {
  it('a tool with singleUseState accepts the first use and rejects the replay without running the handler', async () => {
    const params = { name: 'redeem', arguments: { account: 'v-1' } };
    const state = await firstState(A.url, 'tools/call', params, 'alice');
    const debits = A.counters.debits;
    expect(textOf(expectAccepted(await retry(A.url, 'tools/call', params, state, 'alice'), 'first use'))).toBe('redeemed');
    expect(A.counters.debits).toBe(debits + 1);
    const before = { ...A.counters };
    expectRejected(await retry(A.url, 'tools/call', params, state, 'alice'), 'second use');
    expect(A.counters).toEqual(before);
  });

  it('a tool without it may be retried with the same state (control)', async () => {
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    expectAccepted(await retry(A.url, 'tools/call', VAULT, state, 'alice'), 'first');
    expectAccepted(await retry(A.url, 'tools/call', VAULT, state, 'alice'), 'second');
  });

  it('state.singleUse applies to every flow, and a shared redemption store stops a replay on another instance', async () => {
    const used: string[] = [];
    const memory = new MemoryRedemptionStore(clock);
    const shared: RedemptionStore = {
      redeemOnce: (id, expiresAt) => {
        used.push(id);
        return memory.redeemOnce(id, expiresAt);
      },
    };
    const options: StateOptions = { keys: KEY_A, audience: 'tellers', singleUse: true, redemptions: shared };
    const p = await instance('teller-p', options);
    const q = await instance('teller-q', options);
    const state = await firstState(p.url, 'prompts/get', VAULT, 'alice');
    expect(textOf(expectAccepted(await retry(p.url, 'prompts/get', VAULT, state, 'alice'), 'first use on p'))).toBe('prompt confirmed');
    expectRejected(await retry(q.url, 'prompts/get', VAULT, state, 'alice'), 'replay on q');
    expectRejected(await retry(p.url, 'prompts/get', VAULT, state, 'alice'), 'replay on p');
    expect(q.counters.prompt).toBe(0);
    expect(used.length).toBeGreaterThanOrEqual(2);
    expect(memory.size).toBe(1);
    await Promise.all([stop(p), stop(q)]);
  });
});

describe('what the client sees vs what the log gets', () => {
  it('each kind of failure gives the client the same fixed error, and the log a distinct precise reason', async () => {
    const reasons = new Map<string, string[]>();
    const attempt = async (label: string, target: Instance, fn: () => Promise<RpcReply>): Promise<void> => {
      const mark = target.logger.warns.length;
      expectRejected(await fn(), label);
      const logged = target.logger.warns.slice(mark);
      expect(logged.length, `${label} was logged`).toBeGreaterThan(0);
      reasons.set(label, logged);
    };
    const state = await firstState(A.url, 'tools/call', VAULT, 'alice');
    const foreign = await instance('bank', { keys: `${KEY_A},${KEY_B}`, audience: 'elsewhere' });
    await attempt('tampered', A, () => retry(A.url, 'tools/call', VAULT, replaceAt(state, state.length - 5, flipped(state[state.length - 5]!)), 'alice'));
    await attempt('principal', A, () => retry(A.url, 'tools/call', VAULT, state, 'bob'));
    await attempt('tool', A, () => retry(A.url, 'tools/call', { ...VAULT, name: 'other' }, state, 'alice'));
    await attempt('arguments', A, () => retry(A.url, 'tools/call', { name: 'vault', arguments: { account: 'x' } }, state, 'alice'));
    await attempt('method', A, () => retry(A.url, 'prompts/get', VAULT, state, 'alice'));
    await attempt('audience', foreign, () => retry(foreign.url, 'tools/call', VAULT, state, 'alice'));
    await attempt('unknown key', A, () => retry(A.url, 'tools/call', VAULT, state.replace('t2.ka.', 't2.zz.'), 'alice'));
    now = T0 + TEN_MINUTES + 1;
    await attempt('expired', A, () => retry(A.url, 'tools/call', VAULT, state, 'alice'));
    await stop(foreign);

    const texts = [...reasons.values()].map((lines) => lines.join('\n'));
    for (const text of texts) expect(text).not.toBe(FIXED_ERROR.message);
    expect(new Set(texts).size, [...reasons.entries()].map(([k, v]) => `${k}: ${v.join(' | ')}`).join('\n')).toBe(texts.length);
    expect(reasons.get('expired')!.join('\n')).toMatch(/expir/i);
    expect(reasons.get('unknown key')!.join('\n')).toContain('zz');
  });
});
