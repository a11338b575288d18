/**
 * Multi-round flows over real HTTP with a scripted client (test/helpers/mrtr-client.ts),
 * which checks the client rules on everything it sends and the capability rules
 * on everything it receives. Spec §7 and §8; checklist sections A–D.
 */

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer, type Completer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, startHttp, type RpcReply } from '../helpers/http.js';
import { accept, runFlow, toolText, type FlowOptions, type WireInputRequest } from '../helpers/mrtr-client.js';
import { recordingLogger, type RecordingLogger } from '../helpers/recording-logger.js';

const FIXED_ERROR = { code: -32602, message: 'Invalid params: requestState is invalid or expired' };
const FORM = { elicitation: {} };
const EVERYTHING = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} };
const KEYS = `${generateStateKey('shared1')},${generateStateKey('shared2')}`;

const nameForm = z.object({ name: z.string() });
const okForm = z.object({ ok: z.boolean() });
const samplingAnswer = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };

/** Real calls, counted by the tests. */
const counts = { fiveRuns: 0, charges: 0, laterOnce: 0, changingRuns: 0 };
const onceValues: unknown[] = [];
/** An external variable the "changing" tool's question depends on. */
let policyVersion = 1;

/** A completer (not an MRTR method) that asks anyway: a server programming error. */
const completerThatAsks: Completer = async (_request, ctx) => {
  await ctx.ask(ask.form('Which?', okForm));
  return ['never'];
};

function buildServer(name: string, keys: string | undefined, logger: RecordingLogger): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, { logger, state: keys === undefined ? {} : { keys, audience: 'rounds' } });

  server.tool('greet', {}, async (_args, ctx) => {
    const who = await ctx.ask(ask.form('What is your name?', nameForm, { key: 'name' }));
    return who.action === 'accept' ? `Hello, ${who.content.name}!` : `Hello, stranger (${who.action})`;
  });

  server.tool('survey', { input: z.object({ topic: z.string() }) }, async ({ topic }, ctx) => {
    const who = await ctx.ask(ask.form('Name?', nameForm, { key: 'name' }));
    const color = await ctx.ask(ask.form(`Favourite ${topic} colour?`, z.object({ color: z.string() }), { key: 'color' }));
    const n = who.action === 'accept' ? who.content.name : '?';
    const c = color.action === 'accept' ? color.content.color : '?';
    return `${n} likes ${c} ${topic}`;
  });

  server.tool('five', {}, async (_args, ctx) => {
    counts.fiveRuns++;
    const id = await ctx.once('charge', () => {
      counts.charges++;
      return `charge-${Math.random().toString(36).slice(2)}`;
    });
    onceValues.push(id);
    const answers: string[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await ctx.ask(ask.form(`Question ${i + 1}`, z.object({ value: z.string() }), { key: `q${i}` }));
      answers.push(answer.action === 'accept' ? answer.content.value : answer.action);
      if (i === 1) await ctx.once('later', () => ++counts.laterOnce);
    }
    return `${id}: ${answers.join(',')}`;
  });

  server.tool('batch_map', {}, async (_args, ctx) => {
    const { first, second } = await ctx.ask({
      first: ask.form('First name?', nameForm),
      second: ask.form('Second name?', nameForm),
    });
    const read = (a: typeof first): string => (a.action === 'accept' ? a.content.name : a.action);
    return `${read(first)} & ${read(second)}`;
  });

  server.tool('batch_all', {}, async (_args, ctx) => {
    const [x, y] = await Promise.all([
      ctx.ask(ask.form('X?', nameForm, { key: 'x' })),
      ctx.ask(ask.form('Y?', nameForm, { key: 'y' })),
    ]);
    return `${x.action === 'accept' ? x.content.name : '-'}+${y.action === 'accept' ? y.content.name : '-'}`;
  });

  server.tool('batch_all_async', {}, async (_args, ctx) => {
    // The second question is reached only after some asynchronous (microtask) work.
    const later = async (): Promise<string> => {
      for (let i = 0; i < 10; i++) await Promise.resolve();
      const y = await ctx.ask(ask.form('Y?', nameForm, { key: 'y' }));
      return y.action === 'accept' ? y.content.name : '-';
    };
    const [x, y] = await Promise.all([ctx.ask(ask.form('X?', nameForm, { key: 'x' })), later()]);
    return `${x.action === 'accept' ? x.content.name : '-'}+${y}`;
  });

  server.tool('mixed', {}, async (_args, ctx) => {
    const answers = await ctx.ask({
      who: ask.form('Who?', nameForm),
      model: ask.sampling({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 20 }),
      where: ask.roots(),
    });
    const text = (answers.model.content as { text?: string }).text;
    return `${answers.who.action === 'accept' ? answers.who.content.name : '-'} / ${text} / ${answers.where.map((r) => r.uri).join(' ')}`;
  });

  server.tool('decide', {}, async (_args, ctx) => {
    const answer = await ctx.ask(ask.form('Proceed?', okForm, { key: 'confirm' }));
    if (answer.action === 'accept') return answer.content.ok ? 'proceeding' : 'not proceeding';
    return { content: [{ type: 'text', text: `stopped: ${answer.action}` }], isError: true };
  });

  server.tool('two_steps', {}, async (_args, ctx) => {
    await ctx.ask(ask.form('Step one?', okForm, { key: 'step1' }));
    await ctx.ask(ask.form('Step two?', okForm, { key: 'step2' }));
    return 'both steps done';
  });

  server.tool('optional_note', {}, async (_args, ctx) => {
    const answer = await ctx.ask(ask.form('A note?', z.object({ title: z.string(), note: z.string().optional() }), { key: 'note' }));
    return answer.action === 'accept' ? `${answer.content.title}: ${answer.content.note ?? '(no note)'}` : answer.action;
  });

  server.tool('changing', {}, async (_args, ctx) => {
    counts.changingRuns++;
    const answer = await ctx.ask(ask.form(`Do you accept policy v${policyVersion}?`, okForm, { key: 'policy' }));
    return answer.action === 'accept' && answer.content.ok ? `accepted v${policyVersion}` : 'refused';
  });

  server.tool('wizard', {}, (_args, ctx) => {
    const step = typeof ctx.state === 'object' && ctx.state !== null && !Array.isArray(ctx.state) ? Number(ctx.state.step) : 0;
    const trail = typeof ctx.state === 'object' && ctx.state !== null && !Array.isArray(ctx.state) ? String(ctx.state.trail) : '';
    if (step < 3) return ctx.inputRequired({ state: { step: step + 1, trail: `${trail}${step}` } });
    return `done after steps ${trail}`;
  });

  server.tool('manual', {}, (_args, ctx) => {
    if (ctx.state === undefined) {
      return ctx.inputRequired({
        inputRequests: {
          pick: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'Pick a size',
              requestedSchema: { type: 'object', properties: { size: { type: 'string', enum: ['S', 'M', 'L'] } }, required: ['size'] },
            },
          },
        },
        state: { started: 'manual-1' },
      });
    }
    const answer = ctx.inputResponses.pick as { action: string; content?: { size?: string } } | undefined;
    return `state ${JSON.stringify(ctx.state)} size ${answer?.content?.size ?? 'none'}`;
  });

  server.tool('manual_roots', {}, (_args, ctx) =>
    ctx.state === undefined ? ctx.inputRequired({ inputRequests: { dirs: { method: 'roots/list' } }, state: 1 }) : 'had roots',
  );

  server.tool('url_login', {}, async (_args, ctx) => {
    const answer = await ctx.ask(ask.url('Sign in to continue', 'https://login.example.com/start', { key: 'login' }));
    return `login ${answer.action}`;
  });

  server.tool('sample_plain', {}, async (_args, ctx) => {
    const answer = await ctx.ask(
      ask.sampling({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 10 }, { key: 'llm' }),
    );
    return `model ${answer.model}`;
  });

  server.tool('sample_tools', {}, async (_args, ctx) => {
    const answer = await ctx.ask(
      ask.sampling(
        {
          messages: [{ role: 'user', content: { type: 'text', text: 'Weather?' } }],
          maxTokens: 10,
          tools: [{ name: 'weather', inputSchema: { type: 'object' } }],
          toolChoice: { mode: 'auto' },
        },
        { key: 'llm' },
      ),
    );
    return `model ${answer.model}`;
  });

  server.tool('list_roots', {}, async (_args, ctx) => {
    const roots = await ctx.ask(ask.roots({ key: 'roots' }));
    return `roots ${roots.map((r) => r.uri).join(',')}`;
  });

  server.tool('form_then_roots', {}, async (_args, ctx) => {
    await ctx.ask(ask.form('Go?', okForm, { key: 'confirm' }));
    const roots = await ctx.ask(ask.roots({ key: 'roots' }));
    return `roots ${roots.length}`;
  });

  server.tool('degrade', {}, async (_args, ctx) => {
    const question = ask.form('Confirm?', okForm, { key: 'confirm' });
    if (!ctx.canAsk(question)) return 'went ahead without asking';
    const answer = await ctx.ask(question);
    return `asked: ${answer.action}`;
  });

  server.prompt('ask_prompt', { arguments: [{ name: 'topic', required: true }], complete: { topic: completerThatAsks } }, async ({ topic }, ctx) => {
    const answer = await ctx.ask(ask.form(`Context for ${String(topic)}?`, z.object({ context: z.string() }), { key: 'context' }));
    return `Use ${answer.action === 'accept' ? answer.content.context : 'nothing'} for ${String(topic)}`;
  });

  server.resource({ uri: 'mem://secret', name: 'Secret', mimeType: 'text/plain' }, async (_uri, ctx) => {
    const answer = await ctx.ask(ask.form('Reveal the secret?', okForm, { key: 'reveal' }));
    return answer.action === 'accept' && answer.content.ok ? 'the secret' : 'hidden';
  });

  server.resourceTemplate(
    { uriTemplate: 'mem://doc/{id}', name: 'Doc', mimeType: 'text/plain', complete: { id: completerThatAsks } },
    async (_uri, { id }, ctx) => {
      const answer = await ctx.ask(ask.form(`Open doc ${id}?`, okForm, { key: 'open' }));
      return answer.action === 'accept' ? `doc ${id}` : 'closed';
    },
  );
  return server;
}

let logger: RecordingLogger;
let http: RunningHttpServer;
let url: string;
const extra: RunningHttpServer[] = [];

beforeAll(async () => {
  logger = recordingLogger();
  http = await startHttp(buildServer('rounds', KEYS, logger));
  url = http.url;
});

afterAll(async () => {
  await Promise.all([http, ...extra].map((h) => h.close()));
});

function flow(name: string, options: Partial<FlowOptions> & { arguments?: Record<string, unknown> } = {}): ReturnType<typeof runFlow> {
  const params: Record<string, unknown> = { name };
  if (options.arguments) params.arguments = options.arguments;
  return runFlow({ url, capabilities: FORM, params, ...options });
}

function keysOf(result: Record<string, unknown>): string[] {
  return Object.keys((result.inputRequests ?? {}) as object).sort();
}

function messageOf(result: Record<string, unknown>, key: string): string {
  const request = (result.inputRequests as Record<string, WireInputRequest>)[key]!;
  return String(request.params?.message);
}

/** One raw request with the given capabilities (for deliberately incomplete or malformed retries). */
function send(method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = FORM, target = url): Promise<RpcReply> {
  return rpc(target, method, { ...params, _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': capabilities }) });
}

function resultOf(reply: RpcReply): Record<string, unknown> {
  expect(reply.response?.error, JSON.stringify(reply.response)).toBeUndefined();
  return reply.response!.result as Record<string, unknown>;
}

function errorOf(reply: RpcReply): { code: number; message: string; data?: Record<string, unknown> } {
  expect(reply.response?.error, JSON.stringify(reply.response)).toBeDefined();
  return reply.response!.error as { code: number; message: string; data?: Record<string, unknown> };
}

/** -32021 on HTTP 400 with `data.requiredCapabilities` as an object (checklist 31, 32). */
function expectMissingCapability(reply: RpcReply): Record<string, unknown> {
  const error = errorOf(reply);
  expect(error.code).toBe(-32021);
  expect(reply.status).toBe(400);
  const required = error.data?.requiredCapabilities;
  expect(typeof required === 'object' && required !== null && !Array.isArray(required), JSON.stringify(error)).toBe(true);
  return required as Record<string, unknown>;
}

describe('rounds', () => {
  it('two rounds: one question, then the complete result', async () => {
    const outcome = await flow('greet', { answers: { name: accept({ name: 'Ada' }) } });
    expect(outcome.rounds).toHaveLength(2);
    expect(keysOf(outcome.inputRequired[0]!)).toEqual(['name']);
    expect(outcome.result?.resultType).toBe('complete');
    expect(toolText(outcome.result)).toBe('Hello, Ada!');
  });

  it('three rounds: each round asks only what is still unanswered', async () => {
    const outcome = await flow('survey', {
      arguments: { topic: 'car' },
      answers: { name: accept({ name: 'Bo' }), color: accept({ color: 'red' }) },
    });
    expect(outcome.rounds).toHaveLength(3);
    expect(outcome.inputRequired.map(keysOf)).toEqual([['name'], ['color']]);
    expect(toolText(outcome.result)).toBe('Bo likes red car');
  });

  it('five rounds; once() runs exactly once across them; every requestState differs', async () => {
    const before = { ...counts };
    onceValues.length = 0;
    const outcome = await flow('five', { answers: (_request, round) => accept({ value: `a${round}` }) });
    expect(outcome.rounds).toHaveLength(5);
    expect(outcome.inputRequired.map(keysOf)).toEqual([['q0'], ['q1'], ['q2'], ['q3']]);
    expect(toolText(outcome.result)).toMatch(/: a1,a2,a3,a4$/);
    // The handler is replayed each round, but each once() body ran once and its value was reused.
    expect(counts.fiveRuns - before.fiveRuns).toBe(5);
    expect(counts.charges - before.charges).toBe(1);
    expect(counts.laterOnce - before.laterOnce).toBe(1);
    expect(new Set(onceValues).size).toBe(1);
    expect(toolText(outcome.result).startsWith(String(onceValues[0]))).toBe(true);
    const states = outcome.inputRequired.map((r) => r.requestState);
    expect(states.every((s) => typeof s === 'string')).toBe(true);
    expect(new Set(states).size).toBe(states.length);
  });

  it('a map of questions is asked in one round', async () => {
    const outcome = await flow('batch_map', {
      answers: (request) => accept({ name: String(request.params?.message).startsWith('First') ? 'one' : 'two' }),
    });
    expect(outcome.rounds).toHaveLength(2);
    expect(keysOf(outcome.inputRequired[0]!)).toEqual(['first', 'second']);
    expect(toolText(outcome.result)).toBe('one & two');
  });

  it('two concurrent asks (Promise.all) join one round', async () => {
    const outcome = await flow('batch_all', { answers: { x: accept({ name: 'ex' }), y: accept({ name: 'why' }) } });
    expect(outcome.rounds).toHaveLength(2);
    expect(keysOf(outcome.inputRequired[0]!)).toEqual(['x', 'y']);
    expect(toolText(outcome.result)).toBe('ex+why');
  });

  it('a concurrent ask reached after asynchronous work still joins the same round', async () => {
    const outcome = await flow('batch_all_async', { answers: { x: accept({ name: 'ex' }), y: accept({ name: 'why' }) } });
    expect(outcome.inputRequired.map(keysOf)).toEqual([['x', 'y']]);
    expect(toolText(outcome.result)).toBe('ex+why');
  });

  it('form, sampling and roots asked together in one round', async () => {
    const outcome = await flow('mixed', {
      capabilities: EVERYTHING,
      answers: {
        who: accept({ name: 'Cy' }),
        model: samplingAnswer,
        where: { roots: [{ uri: 'file:///srv/app', name: 'app' }] },
      },
    });
    expect(outcome.rounds).toHaveLength(2);
    const methods = Object.values(outcome.inputRequired[0]!.inputRequests as Record<string, WireInputRequest>).map((r) => r.method).sort();
    expect(methods).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    expect(toolText(outcome.result)).toBe('Cy / Paris / file:///srv/app');
  });

  it.each([
    ['decline', 'stopped: decline'],
    ['cancel', 'stopped: cancel'],
  ])('an elicitation answered with %s is handled (checklist 40)', async (action, text) => {
    const outcome = await flow('decide', { answers: { confirm: { action } } });
    expect(outcome.rounds).toHaveLength(2);
    expect(outcome.result?.resultType).toBe('complete');
    expect(outcome.result?.isError).toBe(true);
    expect(toolText(outcome.result)).toBe(text);
  });

  it('a question that changed between rounds is asked again, though the retry answers its key', async () => {
    policyVersion = 1;
    const before = counts.changingRuns;
    const outcome = await flow('changing', {
      answers: {
        policy: (request: WireInputRequest) => {
          const asked = String(request.params?.message);
          // The policy changes while the user reads version 1.
          if (asked.includes('v1')) policyVersion = 2;
          return accept({ ok: true });
        },
      },
    });
    expect(outcome.rounds).toHaveLength(3);
    expect(messageOf(outcome.inputRequired[0]!, 'policy')).toContain('v1');
    expect(messageOf(outcome.inputRequired[1]!, 'policy')).toContain('v2');
    expect(toolText(outcome.result)).toBe('accepted v2');
    expect(counts.changingRuns - before).toBe(3);
  });

  it('answered questions are not asked again when a retry answers only the latest round', async () => {
    const outcome = await flow('five', { answers: (_r, round) => accept({ value: `r${round}` }) });
    const asked = outcome.inputRequired.flatMap(keysOf);
    expect(new Set(asked).size).toBe(asked.length);
  });

  it('a state-only round ("retry now"): wizard steps carried in ctx.state', async () => {
    const outcome = await flow('wizard', { capabilities: {} });
    expect(outcome.rounds).toHaveLength(4);
    for (const result of outcome.inputRequired) {
      expect(result).not.toHaveProperty('inputRequests');
      expect(typeof result.requestState).toBe('string');
    }
    expect(toolText(outcome.result)).toBe('done after steps 012');
  });

  it('hand-made inputRequests: sent as given, answered through ctx.inputResponses, with ctx.state carried', async () => {
    const outcome = await flow('manual', { answers: { pick: accept({ size: 'M' }) } });
    expect(outcome.rounds).toHaveLength(2);
    const pick = (outcome.inputRequired[0]!.inputRequests as Record<string, WireInputRequest>).pick!;
    expect(pick.method).toBe('elicitation/create');
    expect(pick.params?.message).toBe('Pick a size');
    expect(toolText(outcome.result)).toBe('state {"started":"manual-1"} size M');
  });

  it('hand-made inputRequests for an undeclared capability get -32021, not input_required', async () => {
    const required = expectMissingCapability(await send('tools/call', { name: 'manual_roots' }, FORM));
    expect(required.roots).toBeTypeOf('object');
    const outcome = await flow('manual_roots', { capabilities: { roots: {} }, answers: { dirs: { roots: [] } } });
    expect(toolText(outcome.result)).toBe('had roots');
  });
});

describe('capabilities (checklist 22–33)', () => {
  it('asking without any declared capability: -32021, HTTP 400, requiredCapabilities names elicitation', async () => {
    const required = expectMissingCapability(await send('tools/call', { name: 'greet' }, {}));
    expect(required.elicitation).toBeTypeOf('object');
  });

  it('elicitation: {} means form only: forms are asked, URL mode is -32021 naming elicitation.url', async () => {
    expect((await flow('greet', { capabilities: { elicitation: {} }, answers: { name: accept({ name: 'F' }) } })).rounds).toHaveLength(2);
    const required = expectMissingCapability(await send('tools/call', { name: 'url_login' }, { elicitation: {} }));
    expect((required.elicitation as Record<string, unknown>).url).toBeTypeOf('object');
    expectMissingCapability(await send('tools/call', { name: 'url_login' }, { elicitation: { form: {} } }));
  });

  it('URL mode needs elicitation.url, and then works (accept only means consent)', async () => {
    const outcome = await flow('url_login', { capabilities: { elicitation: { url: {} } }, answers: { login: { action: 'accept' } } });
    const login = (outcome.inputRequired[0]!.inputRequests as Record<string, WireInputRequest>).login!;
    expect(login.params).toMatchObject({ mode: 'url', url: 'https://login.example.com/start' });
    expect(toolText(outcome.result)).toBe('login accept');
  });

  it('only elicitation.url declared: no forms (-32021 naming elicitation)', async () => {
    const required = expectMissingCapability(await send('tools/call', { name: 'greet' }, { elicitation: { url: {} } }));
    expect(required.elicitation).toBeTypeOf('object');
    const both = await flow('greet', { capabilities: { elicitation: { form: {}, url: {} } }, answers: { name: accept({ name: 'G' }) } });
    expect(toolText(both.result)).toBe('Hello, G!');
  });

  it('sampling needs sampling; sampling with tools needs sampling.tools', async () => {
    expect(expectMissingCapability(await send('tools/call', { name: 'sample_plain' }, FORM)).sampling).toBeTypeOf('object');
    const plain = await flow('sample_plain', { capabilities: { sampling: {} }, answers: { llm: samplingAnswer } });
    expect(toolText(plain.result)).toBe('model test-model');
    const required = expectMissingCapability(await send('tools/call', { name: 'sample_tools' }, { sampling: {} }));
    expect((required.sampling as Record<string, unknown>).tools).toBeTypeOf('object');
    const withTools = await flow('sample_tools', { capabilities: { sampling: { tools: {} } }, answers: { llm: samplingAnswer } });
    expect(toolText(withTools.result)).toBe('model test-model');
  });

  it('roots needs roots', async () => {
    expect(expectMissingCapability(await send('tools/call', { name: 'list_roots' }, { elicitation: {}, sampling: {} })).roots).toBeTypeOf('object');
    const outcome = await flow('list_roots', { capabilities: { roots: {} }, answers: { roots: { roots: [{ uri: 'file:///a' }] } } });
    expect(toolText(outcome.result)).toBe('roots file:///a');
  });

  it('capabilities come from the current request only, never from an earlier round (checklist 30)', async () => {
    // Round 1 declares roots; the retry does not, and the next question needs it.
    const reply = await runFlow({
      url,
      params: { name: 'form_then_roots' },
      capabilities: (round) => (round === 1 ? { elicitation: {}, roots: {} } : { elicitation: {} }),
      answers: { confirm: accept({ ok: true }) },
    });
    expect(reply.rounds).toHaveLength(2);
    expect(reply.error?.code).toBe(-32021);
    expect(reply.last.reply.status).toBe(400);
    expect((reply.error?.data as Record<string, unknown>).requiredCapabilities).toMatchObject({ roots: {} });
  });

  it('ctx.canAsk lets a handler degrade instead of failing', async () => {
    expect(toolText(resultOf(await send('tools/call', { name: 'degrade' }, {})))).toBe('went ahead without asking');
    const outcome = await flow('degrade', { answers: { confirm: { action: 'decline' } } });
    expect(toolText(outcome.result)).toBe('asked: decline');
  });
});

describe('which methods may ask (checklist 13–18)', () => {
  it('prompts/get can ask', async () => {
    const outcome = await runFlow({
      url,
      method: 'prompts/get',
      params: { name: 'ask_prompt', arguments: { topic: 'cats' } },
      capabilities: FORM,
      answers: { context: accept({ context: 'pets' }) },
    });
    expect(outcome.rounds).toHaveLength(2);
    const messages = outcome.result?.messages as Array<{ content: { text: string } }>;
    expect(messages[0]!.content.text).toBe('Use pets for cats');
  });

  it('resources/read of a static resource can ask; the complete result still carries ttlMs and cacheScope', async () => {
    const outcome = await runFlow({
      url,
      method: 'resources/read',
      params: { uri: 'mem://secret' },
      capabilities: FORM,
      answers: { reveal: accept({ ok: true }) },
    });
    expect(outcome.rounds).toHaveLength(2);
    expect(outcome.result?.contents).toEqual([{ uri: 'mem://secret', mimeType: 'text/plain', text: 'the secret' }]);
    expect(outcome.result?.ttlMs).toBeTypeOf('number');
    expect(outcome.result?.cacheScope).toBeTypeOf('string');
  });

  it('resources/read of a template can ask', async () => {
    const outcome = await runFlow({
      url,
      method: 'resources/read',
      params: { uri: 'mem://doc/42' },
      capabilities: FORM,
      answers: { open: accept({ ok: true }) },
    });
    expect(outcome.rounds).toHaveLength(2);
    expect((outcome.result?.contents as Array<{ text: string }>)[0]!.text).toBe('doc 42');
  });

  it('list methods and server/discover never return input_required', async () => {
    for (const method of ['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      const reply = await send(method, {}, EVERYTHING);
      expect(resultOf(reply).resultType, method).toBe('complete');
    }
  });

  it('ctx.ask in a completer is a server programming error: -32603, never input_required', async () => {
    for (const ref of [
      { ref: { type: 'ref/prompt', name: 'ask_prompt' }, argument: { name: 'topic', value: 'c' } },
      { ref: { type: 'ref/resource', uri: 'mem://doc/{id}' }, argument: { name: 'id', value: '4' } },
    ]) {
      const errors = logger.errors.length;
      const reply = await send('completion/complete', ref, EVERYTHING);
      expect(reply.response).not.toHaveProperty('result');
      expect(errorOf(reply).code).toBe(-32603);
      const logged = logger.errors.slice(errors);
      expect(logged.length, 'the programming error is logged for the author').toBeGreaterThan(0);
      expect(logged.some((e) => e.detail instanceof Error && /ask/.test(e.detail.message)), logger.text()).toBe(true);
    }
  });
});

describe('malformed and partial retries (checklist 35–38)', () => {
  async function firstRound(): Promise<string> {
    const result = resultOf(await send('tools/call', { name: 'decide' }));
    expect(result.resultType).toBe('input_required');
    return result.requestState as string;
  }

  it.each([
    ['null', null],
    ['an array', [{ action: 'accept' }]],
    ['a string', 'yes'],
    ['a number', 7],
  ])('inputResponses that is %s is a -32602 error', async (_label, inputResponses) => {
    const requestState = await firstRound();
    const error = errorOf(await send('tools/call', { name: 'decide', requestState, inputResponses }));
    expect(error.code).toBe(-32602);
  });

  it.each([
    ['not an object', 'yes', 'the answer is not an object'],
    ['without an action', { content: { ok: true } }, 'action must be'],
    ['with an unknown action', { action: 'maybe' }, 'action must be'],
  ])('an answer %s is malformed: -32602 naming its key (checklist 35; issue 18: one rule for both eras)', async (_label, answer, reason) => {
    const requestState = await firstRound();
    const error = errorOf(await send('tools/call', { name: 'decide', requestState, inputResponses: { confirm: answer } }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('"confirm"');
    expect(error.message).toContain(reason);
    expect((error.data as { key?: string }).key).toBe('confirm');
  });

  it.each([
    ['with content failing the schema', { action: 'accept', content: { ok: 'yes' } }],
    ['with content missing a required field', { action: 'accept', content: {} }],
  ])('an answer %s is asked again, the question saying what was wrong (checklist 38)', async (_label, answer) => {
    const requestState = await firstRound();
    const result = resultOf(await send('tools/call', { name: 'decide', requestState, inputResponses: { confirm: answer } }));
    expect(result.resultType).toBe('input_required');
    expect(keysOf(result)).toEqual(['confirm']);
    const asked = (result.inputRequests as Record<string, { params: { message: string; requestedSchema: unknown } }>).confirm!;
    expect(asked.params.message).toMatch(/The last answer was not accepted: .*ok/);
    // And the re-asked round can still be completed.
    const done = resultOf(
      await send('tools/call', { name: 'decide', requestState: result.requestState, inputResponses: { confirm: accept({ ok: true }) } }),
    );
    expect(toolText(done)).toBe('proceeding');
  });

  it('a form answered wrongly three times in all fails with -32602 naming the key and the field (the count is sealed in the state)', async () => {
    let requestState = await firstRound();
    for (let attempt = 1; attempt <= 2; attempt++) {
      const again = resultOf(await send('tools/call', { name: 'decide', requestState, inputResponses: { confirm: { action: 'accept', content: { ok: 'no' } } } }));
      expect(again.resultType).toBe('input_required');
      requestState = again.requestState as string;
    }
    const error = errorOf(await send('tools/call', { name: 'decide', requestState, inputResponses: { confirm: { action: 'accept', content: { ok: 'no' } } } }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('"confirm"');
    expect(error.message).toContain('ok');
  });

  it('null for an optional form field is read as the field left empty', async () => {
    const first = resultOf(await send('tools/call', { name: 'optional_note' }));
    const done = resultOf(
      await send('tools/call', { name: 'optional_note', requestState: first.requestState, inputResponses: { note: accept({ title: 'T', note: null }) } }),
    );
    expect(toolText(done)).toBe('T: (no note)');
  });

  it.each([
    ['roots', 'list_roots', { roots: {} }, { roots: 'file:///x' }],
    ['roots', 'list_roots', { roots: {} }, { roots: [{ name: 'no uri' }] }],
    ['llm', 'sample_plain', { sampling: {} }, { role: 'assistant', content: { type: 'text', text: 'x' } }],
    ['llm', 'sample_plain', { sampling: {} }, { role: 'robot', content: { type: 'text', text: 'x' }, model: 'm' }],
  ])('a malformed %s answer for %s is -32602 naming its key (checklist 35)', async (key, tool, capabilities, bad) => {
    const first = resultOf(await send('tools/call', { name: tool }, capabilities));
    expect(keysOf(first)).toEqual([key]);
    const error = errorOf(await send('tools/call', { name: tool, requestState: first.requestState, inputResponses: { [key]: bad } }, capabilities));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(`"${key}"`);
  });

  it('a retry without the needed answer is asked again, not an error', async () => {
    const requestState = await firstRound();
    const result = resultOf(await send('tools/call', { name: 'decide', requestState }));
    expect(result.resultType).toBe('input_required');
    expect(keysOf(result)).toEqual(['confirm']);
  });

  it('unknown keys in inputResponses are ignored', async () => {
    const requestState = await firstRound();
    const result = resultOf(
      await send('tools/call', {
        name: 'decide',
        requestState,
        inputResponses: { confirm: accept({ ok: true }), stray: { action: 'accept' }, other: { roots: [] } },
      }),
    );
    expect(toolText(result)).toBe('proceeding');
    const onlyStray = resultOf(await send('tools/call', { name: 'decide', requestState, inputResponses: { stray: { action: 'decline' } } }));
    expect(onlyStray.resultType).toBe('input_required');
  });

  it('an answer for a question never asked is ignored: on a first request, or one the last round did not ask (checklist 36)', async () => {
    // No requestState: nothing was asked yet, so the answer given up front does not count.
    const first = resultOf(await send('tools/call', { name: 'decide', inputResponses: { confirm: accept({ ok: true }) } }));
    expect(first.resultType).toBe('input_required');
    expect(keysOf(first)).toEqual(['confirm']);
    // Round 1 of a two-step flow asks only step1; an answer for step2 on the retry is ignored and step2 is asked.
    const one = resultOf(await send('tools/call', { name: 'two_steps' }));
    expect(keysOf(one)).toEqual(['step1']);
    const two = resultOf(
      await send('tools/call', { name: 'two_steps', requestState: one.requestState, inputResponses: { step1: accept({ ok: true }), step2: accept({ ok: true }) } }),
    );
    expect(two.resultType).toBe('input_required');
    expect(keysOf(two)).toEqual(['step2']);
    const done = resultOf(await send('tools/call', { name: 'two_steps', requestState: two.requestState, inputResponses: { step2: accept({ ok: true }) } }));
    expect(toolText(done)).toBe('both steps done');
  });
});

describe('a retry on another server instance (checklist 34)', () => {
  it('finishes the flow when the instances share the key ring and audience', async () => {
    const other = await startHttp(buildServer('rounds-replica', KEYS, recordingLogger()));
    extra.push(other);
    const urls = [url, other.url];
    const outcome = await runFlow({
      url: (round) => urls[(round - 1) % 2]!,
      params: { name: 'survey', arguments: { topic: 'bike' } },
      capabilities: FORM,
      answers: { name: accept({ name: 'Di' }), color: accept({ color: 'blue' }) },
    });
    expect(outcome.rounds.map((r) => r.index)).toEqual([1, 2, 3]);
    expect(toolText(outcome.result)).toBe('Di likes blue bike');
  });

  it('fails clearly with the fixed error when the instance does not share the key', async () => {
    const stranger = await startHttp(buildServer('rounds', generateStateKey('alien'), recordingLogger()));
    extra.push(stranger);
    const outcome = await runFlow({
      url: (round) => (round === 1 ? url : stranger.url),
      params: { name: 'greet' },
      capabilities: FORM,
      answers: { name: accept({ name: 'Ed' }) },
    });
    expect(outcome.rounds).toHaveLength(2);
    expect(outcome.error).toEqual(FIXED_ERROR);
  });

  it('keys from TESSERA_STATE_KEYS (no state.keys option) are shared by instances that read the same value', async () => {
    vi.stubEnv('TESSERA_STATE_KEYS', KEYS);
    try {
      const loggers = [recordingLogger(), recordingLogger()];
      const one = await startHttp(buildServer('env-keyed', undefined, loggers[0]!));
      const two = await startHttp(buildServer('env-keyed', undefined, loggers[1]!));
      extra.push(one, two);
      const outcome = await runFlow({
        url: (round) => (round === 1 ? one.url : two.url),
        params: { name: 'greet' },
        capabilities: FORM,
        answers: { name: accept({ name: 'Gus' }) },
      });
      expect(toolText(outcome.result)).toBe('Hello, Gus!');
      expect(loggers.flatMap((l) => l.warns), 'configured keys need no warning').toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('with no key configured, flows still work on the instance and the process warns loudly, once', async () => {
    vi.stubEnv('TESSERA_STATE_KEYS', '');
    try {
      const loggers = [recordingLogger(), recordingLogger()];
      const one = await startHttp(buildServer('solo', undefined, loggers[0]!));
      const two = await startHttp(buildServer('solo', undefined, loggers[1]!));
      extra.push(one, two);
      for (const target of [one, two, one]) {
        const outcome = await runFlow({ url: target.url, params: { name: 'greet' }, capabilities: FORM, answers: { name: accept({ name: 'Flo' }) } });
        expect(toolText(outcome.result)).toBe('Hello, Flo!');
      }
      const warnings = loggers.flatMap((l) => l.warns).filter((w) => /TESSERA_STATE_KEYS|state\.keys/.test(w));
      expect(warnings, loggers.map((l) => l.text()).join('\n')).toHaveLength(1);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
