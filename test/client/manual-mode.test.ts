/**
 * The client's manual mode (spec §7.5, §7.10; checklist G, 82): begin / answer /
 * resume with a PendingRound, which survives JSON (requestState presence — an
 * empty string included — and inputRequests kept), so a flow can be finished
 * later by another Client, or by another process: a flow begun here against a
 * real Tessera server is finished by `node dist/fixtures/resume-flow.js` against
 * a second server instance that shares only the state keys.
 */

import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer } from '../../src/index.js';
import { Client, PendingRound, ProtocolViolationError } from '../../src/client.js';
import { type RunningHttpServer } from '../../src/node.js';
import { expectRequestMeta, expectRetry } from '../helpers/client-rules.js';
import { startHttp } from '../helpers/http.js';
import { startScriptedHttp, type Json, type Responder, type ScriptedHttp } from '../helpers/scripted-http.js';
import { scriptedLink, type ScriptedLink } from '../helpers/scripted-link.js';
import { compiledFixture } from '../helpers/child-processes.js';

const INFO = { name: 'manual-tests', version: '2.0.0' };
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const form = (message: string): Json => ({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: NAME_SCHEMA } });
const done = (text: string): Json => ({ resultType: 'complete', content: [{ type: 'text', text }] });
function inputRequired(inputRequests?: Json, requestState?: string): Json {
  const result: Json = { resultType: 'input_required' };
  if (inputRequests !== undefined) result.inputRequests = inputRequests;
  if (requestState !== undefined) result.requestState = requestState;
  return result;
}
function script(...results: Json[]): Responder {
  let n = 0;
  return () => {
    const result = results[n++];
    return result ? { result } : { error: { code: -32603, message: 'script exhausted' } };
  };
}

const servers: ScriptedHttp[] = [];
const links: ScriptedLink[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
  for (const l of links.splice(0)) l.close();
});

async function scripted(responder: Responder): Promise<ScriptedHttp> {
  const http = await startScriptedHttp(responder);
  servers.push(http);
  return http;
}
async function clientFor(url: string, options: ConstructorParameters<typeof Client>[1] = {}): Promise<Client> {
  const client = new Client(INFO, { era: 'modern', ...options });
  clients.push(client);
  await client.connect(url);
  return client;
}

/* ------------------------------------------------------------------ */

describe('begin / answer / resume', () => {
  it('begin returns a complete result as is', async () => {
    const http = await scripted(script(done('at once')));
    const client = await clientFor(http.url);
    const step = await client.begin('tools/call', { name: 't', arguments: {} });
    expect(step).toEqual({ status: 'complete', result: done('at once') });
    expect(http.requests).toHaveLength(1);
  });

  it('begin stops at the first input round and describes it', async () => {
    const requests = { who: form('Name?'), ws: { method: 'roots/list' } };
    const http = await scripted(script(inputRequired(requests, 'st-1')));
    const client = await clientFor(http.url, { capabilities: { elicitation: { form: {} }, roots: {} } });
    const step = await client.begin('tools/call', { name: 'deploy', arguments: { env: 'prod' } });
    expect(step.status).toBe('input_required');
    if (step.status !== 'input_required') return;
    const pending = step.pending;
    expect(pending.method).toBe('tools/call');
    expect(pending.params).toEqual({ name: 'deploy', arguments: { env: 'prod' } });
    expect(pending.round).toBe(1);
    expect(pending.inputRequests).toEqual(requests);
    expect(pending.hasRequestState).toBe(true);
    expect(pending.requestState).toBe('st-1');
    // Nothing is sent until the app resumes.
    expect(http.requests).toHaveLength(1);
  });

  it('answer runs the handlers and returns bare answers keyed like the requests, sending nothing', async () => {
    const http = await scripted(script(inputRequired({ a: form('A?'), b: form('B?'), r: { method: 'roots/list' } }, 's')));
    const formHandler = vi.fn((params: { message: string }) => ({ action: 'accept' as const, content: { name: params.message } }));
    const client = await clientFor(http.url, { elicitation: { form: formHandler }, roots: [{ uri: 'file:///w' }] });
    const step = await client.begin('tools/call', { name: 't', arguments: {} });
    if (step.status !== 'input_required') throw new Error('expected input_required');
    const answers = await client.answer(step.pending);
    expect(answers).toEqual({
      a: { action: 'accept', content: { name: 'A?' } },
      b: { action: 'accept', content: { name: 'B?' } },
      r: { roots: [{ uri: 'file:///w' }] },
    });
    expect(formHandler).toHaveBeenCalledTimes(2);
    expect(http.requests).toHaveLength(1);
  });

  it('resume sends the retry: new id, same params, the given answers, the exact state; the next step is round 2', async () => {
    const http = await scripted(script(inputRequired({ q: form('Name?') }, 'opaque "state" ✓'), inputRequired({ q2: form('Again?') }), done('fin')));
    const client = await clientFor(http.url, { capabilities: { elicitation: {} } });
    const first = await client.begin('prompts/get', { name: 'p', arguments: { topic: 'x' } });
    if (first.status !== 'input_required') throw new Error('expected input_required');
    const second = await client.resume(first.pending, { q: { action: 'accept', content: { name: 'Ada' } } });
    expect(second.status).toBe('input_required');
    if (second.status !== 'input_required') return;
    expect(second.pending.round).toBe(2);
    expect(second.pending.hasRequestState).toBe(false);
    const third = await client.resume(second.pending, { q2: { action: 'decline' } });
    expect(third).toEqual({ status: 'complete', result: done('fin') });

    const [m1, m2, m3] = http.messages();
    expectRetry(m1!, m2!, {
      answers: { q: { action: 'accept', content: { name: 'Ada' } } },
      requestState: 'opaque "state" ✓',
      inputRequests: { q: form('Name?') },
      earlierIds: [m1!.id],
    });
    expectRetry(m1!, m3!, { answers: { q2: { action: 'decline' } }, requestState: undefined, inputRequests: { q2: form('Again?') }, earlierIds: [m1!.id, m2!.id] });
    for (const m of http.messages()) expectRequestMeta(m, INFO, { form: true });
  });

  it('resume refuses an invalid next result like the automatic loop does', async () => {
    const http = await scripted(script(inputRequired(undefined, 's'), { resultType: 'input_required' }));
    const client = await clientFor(http.url);
    const first = await client.begin('tools/call', { name: 't', arguments: {} });
    if (first.status !== 'input_required') throw new Error('expected input_required');
    await expect(client.resume(first.pending, {})).rejects.toBeInstanceOf(ProtocolViolationError);
  });

  it('abandoning a flow between rounds sends nothing: no retry, no cancellation', async () => {
    const link = scriptedLink((message, peer) => peer.result(message, inputRequired({ q: form('Name?') }, 's')));
    links.push(link);
    const client = new Client(INFO, { era: 'modern', capabilities: { elicitation: {} } });
    clients.push(client);
    await client.connect(link.transport);
    const step = await client.begin('tools/call', { name: 't', arguments: {} });
    expect(step.status).toBe('input_required');
    await client.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(link.received).toHaveLength(1);
    expect(link.notifications()).toEqual([]);
  });
});

/* ------------------------------------------------------------------ */

describe('PendingRound as JSON', () => {
  const CASES: Array<[string, Json]> = [
    ['no requestState', inputRequired({ q: form('Name?') })],
    ['an empty-string requestState', inputRequired({ q: form('Name?') }, '')],
    ['a state-only round with an empty string', inputRequired(undefined, '')],
    ['a tricky requestState', inputRequired({ q: form('Name?'), r: { method: 'roots/list' } }, 'ünï\u0000"\\\n😀'.repeat(500))],
  ];

  it.each(CASES)('round-trips %s through JSON text and resumes from another Client', async (_label, first) => {
    const http = await scripted(script(first, done('ok')));
    const begun = await clientFor(http.url, { capabilities: { elicitation: {}, roots: {} } });
    const step = await begun.begin('resources/read', { uri: 'file:///a%20b.txt' });
    if (step.status !== 'input_required') throw new Error('expected input_required');

    const text = JSON.stringify(step.pending);
    const plain = JSON.parse(text) as Json;
    expect('requestState' in plain).toBe('requestState' in first);
    if ('requestState' in first) expect(plain.requestState).toBe(first.requestState);

    const revived = PendingRound.fromJSON(text);
    expect(revived.method).toBe('resources/read');
    expect(revived.params).toEqual({ uri: 'file:///a%20b.txt' });
    expect(revived.round).toBe(step.pending.round);
    expect(revived.inputRequests).toEqual(first.inputRequests ?? {});
    expect(revived.hasRequestState).toBe('requestState' in first);
    expect(revived.requestState).toBe(first.requestState);
    expect(PendingRound.fromJSON(plain as never).toJSON()).toEqual(step.pending.toJSON());

    // Another client (same process) finishes it.
    const other = await clientFor(http.url, { capabilities: { elicitation: {}, roots: {} } });
    const answers: Json = {};
    for (const [key, request] of Object.entries(revived.inputRequests)) {
      answers[key] = request.method === 'roots/list' ? { roots: [] } : { action: 'accept', content: { name: 'Ada' } };
    }
    const end = await other.resume(revived, answers as never);
    expect(end.status).toBe('complete');
    const [m1, m2] = http.messages();
    // (The id rule is checked on its own below.)
    expectRetry(m1!, m2!, {
      answers: first.inputRequests ? answers : 'absent',
      requestState: first.requestState,
      inputRequests: first.inputRequests,
      earlierIds: [],
    });
  });

  it('a retry resumed by another Client still uses an id different from the original request', async () => {
    const http = await scripted(script(inputRequired({ q: form('Name?') }, 's'), done('ok')));
    const begun = await clientFor(http.url, { capabilities: { elicitation: {} } });
    const step = await begun.begin('tools/call', { name: 't', arguments: {} });
    if (step.status !== 'input_required') throw new Error('expected input_required');
    const other = await clientFor(http.url, { capabilities: { elicitation: {} } });
    await other.resume(PendingRound.fromJSON(JSON.stringify(step.pending)), { q: { action: 'accept', content: { name: 'Ada' } } });
    const [m1, m2] = http.messages();
    expect(m2!.id).not.toBe(m1!.id);
  });
});

/* ------------------------------------------------------------------ */

describe('a flow finished in another process', () => {
  const KEYS = generateStateKey('resume1');
  const running: RunningHttpServer[] = [];
  let urlA: string;
  let urlB: string;

  function build(label: string): McpServer {
    const server = new McpServer({ name: 'resume-server', version: '1.0.0' }, { state: { keys: KEYS, audience: 'resume-tests' } });
    server.tool('profile', { input: z.object({ greeting: z.string() }) }, async ({ greeting }, ctx) => {
      const who = await ctx.ask(ask.form('What is your name?', z.object({ name: z.string() }), { key: 'name' }));
      if (who.action !== 'accept') return `${greeting}, stranger (${who.action}) [${label}]`;
      const colour = await ctx.ask(ask.form('Favourite colour?', z.object({ color: z.string() }), { key: 'color' }));
      const c = colour.action === 'accept' ? colour.content.color : colour.action;
      return `${greeting} ${who.content.name}, your favourite colour is ${c}. [${label}]`;
    });
    return server;
  }

  beforeAll(async () => {
    const a = await startHttp(build('A'));
    const b = await startHttp(build('B'));
    running.push(a, b);
    urlA = a.url;
    urlB = b.url;
  });
  afterAll(async () => {
    for (const r of running) await r.close();
  });

  function runChild(url: string, input: unknown): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const script = compiledFixture('resume-flow');
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script, url], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
      child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
      const guard = setTimeout(() => {
        if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
        reject(new Error(`resume-flow did not finish; stderr: ${stderr}`));
      }, 20_000);
      child.on('error', reject);
      child.on('exit', (code) => {
        clearTimeout(guard);
        resolve({ code, stdout, stderr });
      });
      child.stdin.end(JSON.stringify(input));
    });
  }

  it('begun here against server A, resumed from JSON by a child process against server B, completes', async () => {
    const client = await clientFor(urlA, { capabilities: { elicitation: { form: {} } } });
    const step = await client.begin('tools/call', { name: 'profile', arguments: { greeting: 'Hello' } });
    expect(step.status).toBe('input_required');
    if (step.status !== 'input_required') return;
    expect(Object.keys(step.pending.inputRequests)).toEqual(['name']);
    expect(step.pending.hasRequestState).toBe(true);

    const out = await runChild(urlB, {
      pending: JSON.stringify(step.pending),
      answers: { name: { action: 'accept', content: { name: 'Ada' } }, color: { action: 'accept', content: { color: 'teal' } } },
    });
    expect(out.stderr).not.toContain('resume-flow failed');
    expect(out.code).toBe(0);
    const printed = JSON.parse(out.stdout.trim()) as { result: Json; rounds: number; keys: string[] };
    expect(printed.result.content).toEqual([{ type: 'text', text: 'Hello Ada, your favourite colour is teal. [B]' }]);
    expect(printed.result.isError ?? false).toBe(false);
    expect(printed.keys).toEqual(['name', 'color']);
    expect(printed.rounds).toBe(2);
  });

  it('the retry the child process sends is a proper retry of the original request (new id, same params, answers, exact state)', async () => {
    const state = 'state from this process: ünï "quoted" \\ ✓';
    const http = await scripted(script(inputRequired({ name: form('Name?') }, state), done('finished elsewhere')));
    const client = await clientFor(http.url, { capabilities: { elicitation: { form: {} } } });
    const step = await client.begin('tools/call', { name: 'profile', arguments: { greeting: 'Hello' } });
    if (step.status !== 'input_required') throw new Error('expected input_required');
    const out = await runChild(http.url, { pending: JSON.stringify(step.pending), answers: { name: { action: 'accept', content: { name: 'Ada' } } } });
    expect(out.code).toBe(0);
    expect((JSON.parse(out.stdout.trim()) as { result: Json }).result).toEqual(done('finished elsewhere'));
    const [m1, m2] = http.messages();
    expect(http.messages()).toHaveLength(2);
    expectRetry(m1!, m2!, {
      answers: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: state,
      inputRequests: { name: form('Name?') },
      earlierIds: [],
    });
    expectRequestMeta(m2!, { name: 'resume-flow', version: '0.1.0' }, { form: true });
    // §7.5: the retry MUST use a new id, different from the original request's.
    expect(m2!.id).not.toBe(m1!.id);
  });

  it('the child process sends the decline it is given, and the server takes the other path', async () => {
    const client = await clientFor(urlA, { capabilities: { elicitation: { form: {} } } });
    const step = await client.begin('tools/call', { name: 'profile', arguments: { greeting: 'Hi' } });
    if (step.status !== 'input_required') throw new Error('expected input_required');
    const out = await runChild(urlB, { pending: JSON.stringify(step.pending), answers: { name: { action: 'decline' } } });
    expect(out.code).toBe(0);
    const printed = JSON.parse(out.stdout.trim()) as { result: Json; rounds: number };
    expect(printed.result.content).toEqual([{ type: 'text', text: 'Hi, stranger (decline) [B]' }]);
    expect(printed.rounds).toBe(1);
  });
});
