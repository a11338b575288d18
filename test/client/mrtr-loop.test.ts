/**
 * The client's multi round-trip loop (spec §5, §7.5, §10.2; checklist F, G, H)
 * against a scripted raw HTTP server (and, where stdio-style cancellation is
 * observed, a scripted in-memory link) that records every request the client
 * sends: retries get a new id, repeat the method and original params, answer
 * exactly the latest round's keys with bare results, echo `requestState` byte
 * for byte (or leave it out); results are read by `resultType`; invalid
 * input-required results are refused; the loop is bounded, abortable and
 * isolated per flow.
 */

import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  Client,
  InputFlowError,
  McpError,
  ProtocolViolationError,
  type ClientOptions,
} from '../../src/client.js';
import { declaredBy, expectRequestMeta, expectRetry, NOTHING, originalParams, type Declared } from '../helpers/client-rules.js';
import { note, responseTo, startScriptedHttp, type Json, type Responder, type ScriptedHttp, type ScriptReply, type SeenRequest } from '../helpers/scripted-http.js';
import { scriptedLink, type LinkResponder, type ScriptedLink } from '../helpers/scripted-link.js';
import { assertClientRequest } from '../helpers/wire-schema.js';

const INFO = { name: 'loop-tests', version: '1.2.3' };

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const form = (message: string): Json => ({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: NAME_SCHEMA } });
const urlAsk = (url: string): Json => ({ method: 'elicitation/create', params: { mode: 'url', message: 'Please sign in', url } });
const sample = (text: string, extra: Json = {}): Json => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 64, ...extra },
});
const ROOTS = { method: 'roots/list' };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };

function inputRequired(inputRequests?: Json, requestState?: string): Json {
  const result: Json = { resultType: 'input_required' };
  if (inputRequests !== undefined) result.inputRequests = inputRequests;
  if (requestState !== undefined) result.requestState = requestState;
  return result;
}
const done = (text: string): Json => ({ resultType: 'complete', content: [{ type: 'text', text }] });

type Step = Json | ((message: Json, seen: SeenRequest) => ScriptReply | Promise<ScriptReply>);

/** Answers the n-th request with the n-th step (a result object, or a function returning a reply). */
function script(...steps: Step[]): Responder {
  let n = 0;
  return (message, seen) => {
    const step = steps[n++];
    if (step === undefined) return { error: { code: -32603, message: `script exhausted at request ${n}` } };
    return typeof step === 'function' ? step(message, seen) : { result: step };
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

async function setup(responder: Responder, options: ClientOptions = {}): Promise<{ http: ScriptedHttp; client: Client; sent: () => Json[] }> {
  const http = await startScriptedHttp(responder);
  servers.push(http);
  const client = new Client(INFO, { era: 'modern', ...options });
  clients.push(client);
  await client.connect(http.url);
  return { http, client, sent: () => http.messages() };
}

async function setupLink(responder: LinkResponder, options: ClientOptions = {}): Promise<{ link: ScriptedLink; client: Client }> {
  const link = scriptedLink(responder);
  links.push(link);
  const client = new Client(INFO, { era: 'modern', ...options });
  clients.push(client);
  await client.connect(link.transport);
  return { link, client };
}

const accept = (name: string): { action: 'accept'; content: { name: string } } => ({ action: 'accept', content: { name } });

/* ------------------------------------------------------------------ */

describe('retry construction (checklist G)', () => {
  it('retries with a new id, the same method and params, bare answers keyed like the inputRequests, and the exact requestState', async () => {
    const requests = { who: form('Your name?'), model: sample('Capital of France?'), ws: ROOTS };
    const { client, sent } = await setup(script(inputRequired(requests, 'state-1'), done('finished')), {
      elicitation: { form: (params) => accept(`answer to ${params.message}`) },
      sampling: () => SAMPLED as never,
      roots: [{ uri: 'file:///work/project', name: 'project' }],
    });
    const args = { city: 'Zürich', n: 3, nested: { list: [1, 'two', null], flag: false } };
    const result = await client.callTool('plan', args);
    expect(result.content).toEqual([{ type: 'text', text: 'finished' }]);

    const [first, retry] = sent();
    expect(sent()).toHaveLength(2);
    expect(first!.method).toBe('tools/call');
    expect(first!.params.name).toBe('plan');
    expect(first!.params.arguments).toEqual(args);
    expect(Object.keys(first!.params)).not.toContain('requestState');
    expect(Object.keys(first!.params)).not.toContain('inputResponses');
    expectRetry(first!, retry!, {
      answers: {
        who: { action: 'accept', content: { name: 'answer to Your name?' } },
        model: SAMPLED,
        ws: { roots: [{ uri: 'file:///work/project', name: 'project' }] },
      },
      requestState: 'state-1',
      inputRequests: requests,
      earlierIds: [first!.id],
    });
  });

  it.each([
    ['tools/call', (c: Client) => c.callTool('t', { a: 1 })],
    ['prompts/get', (c: Client) => c.getPrompt('p', { topic: 'cats' })],
    ['resources/read', (c: Client) => c.readResource('file:///a%20b.txt?x=1#frag')],
  ] as const)('repeats the original params of %s on the retry', async (method, call) => {
    const final =
      method === 'tools/call'
        ? done('ok')
        : method === 'prompts/get'
          ? { resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: 'ok' } }] }
          : { resultType: 'complete', contents: [{ uri: 'file:///a%20b.txt?x=1#frag', text: 'ok' }], ttlMs: 0, cacheScope: 'private' };
    const { client, sent } = await setup(script(inputRequired({ q: form('Name?') }, 'opaque'), final), {
      elicitation: { form: () => accept('x') },
    });
    await call(client);
    const [first, retry] = sent();
    expect(first!.method).toBe(method);
    expectRetry(first!, retry!, { answers: { q: accept('x') }, requestState: 'opaque', inputRequests: { q: form('Name?') }, earlierIds: [first!.id] });
  });

  const TRICKY: Array<[string, string]> = [
    ['the empty string', ''],
    ['unicode (accents, CJK, astral, combining, RTL)', 'naïve ☃ 中文 𝄞 😀 e\u0301 \u202eabc'],
    ['quotes and backslashes', `"'\\"\\\\ {"json":"inside"} \\u0041`],
    ['control characters and NUL', '\u0000\u0001\u001f\u007f\n\r\t end'],
    ['a lone surrogate', 'x\ud800y'],
    ['whitespace only', '   '],
    ['padded Base64 look-alike', 'AAAA//++==  '],
    ['a very long string', `${'abc\u00e9'.repeat(60_000)}|end`],
  ];

  it.each(TRICKY)('echoes %s as requestState exactly', async (_label, state) => {
    const { client, sent } = await setup(script(inputRequired(undefined, state), done('ok')));
    await client.callTool('t', {});
    const [first, retry] = sent();
    expect(sent()).toHaveLength(2);
    expect(Object.keys(retry!.params)).toContain('requestState');
    expect(retry!.params.requestState).toBe(state);
    expect(retry!.params.requestState.length).toBe(state.length);
    expect(retry!.id).not.toBe(first!.id);
  });

  it('echoes an empty-string requestState alongside answers', async () => {
    const { client, sent } = await setup(script(inputRequired({ q: form('Name?') }, ''), done('ok')), {
      elicitation: { form: () => accept('Ada') },
    });
    await client.callTool('t', {});
    const [first, retry] = sent();
    expectRetry(first!, retry!, { answers: { q: accept('Ada') }, requestState: '', inputRequests: { q: form('Name?') }, earlierIds: [first!.id] });
  });

  it('sends no requestState key when the round had none', async () => {
    const { client, sent } = await setup(script(inputRequired({ q: form('Name?') }), done('ok')), {
      elicitation: { form: () => accept('Ada') },
    });
    await client.callTool('t', { x: 1 });
    const [first, retry] = sent();
    expectRetry(first!, retry!, { answers: { q: accept('Ada') }, requestState: undefined, inputRequests: { q: form('Name?') }, earlierIds: [first!.id] });
  });

  it('in round N answers only the keys of round N, and never asks a key twice', async () => {
    const rounds = [{ a: form('A?') }, { b: form('B?') }, { c: form('C?'), d: ROOTS }];
    const { client, sent } = await setup(
      script(inputRequired(rounds[0], 'r1'), inputRequired(rounds[1], 'r2'), inputRequired(rounds[2]), done('ok')),
      { elicitation: { form: vi.fn((params: { message: string }) => accept(params.message)) }, roots: vi.fn(() => [{ uri: 'file:///r' }]) },
    );
    await client.callTool('t', {});
    const messages = sent();
    expect(messages).toHaveLength(4);
    const ids: unknown[] = [messages[0]!.id];
    expectRetry(messages[0]!, messages[1]!, { answers: { a: accept('A?') }, requestState: 'r1', inputRequests: rounds[0], earlierIds: [...ids] });
    ids.push(messages[1]!.id);
    expectRetry(messages[0]!, messages[2]!, { answers: { b: accept('B?') }, requestState: 'r2', inputRequests: rounds[1], earlierIds: [...ids] });
    ids.push(messages[2]!.id);
    expectRetry(messages[0]!, messages[3]!, {
      answers: { c: accept('C?'), d: { roots: [{ uri: 'file:///r' }] } },
      requestState: undefined,
      inputRequests: rounds[2],
      earlierIds: [...ids],
    });
  });

  it('retries a state-only round at once, without asking any handler', async () => {
    const formHandler = vi.fn(() => accept('never'));
    const samplingHandler = vi.fn(() => SAMPLED as never);
    const rootsHandler = vi.fn(() => []);
    const { client, sent } = await setup(script(inputRequired(undefined, 'shed-1'), inputRequired(undefined, 'shed-2'), done('ok')), {
      elicitation: { form: formHandler },
      sampling: samplingHandler,
      roots: rootsHandler,
    });
    await client.callTool('t', {});
    const messages = sent();
    expect(messages).toHaveLength(3);
    expect(messages[1]!.params.requestState).toBe('shed-1');
    expect(messages[2]!.params.requestState).toBe('shed-2');
    for (const retry of messages.slice(1)) {
      expect(retry.params.inputResponses ?? {}).toEqual({});
      expect(originalParams(retry.params)).toEqual(originalParams(messages[0]!.params));
    }
    expect(new Set(messages.map((m) => m.id)).size).toBe(3);
    expect(formHandler).not.toHaveBeenCalled();
    expect(samplingHandler).not.toHaveBeenCalled();
    expect(rootsHandler).not.toHaveBeenCalled();
  });

  const CONFIGS: Array<[string, ClientOptions, Partial<Declared>]> = [
    ['no handlers', {}, {}],
    ['a form handler', { elicitation: { form: () => accept('x') } }, { form: true }],
    ['a URL handler only', { elicitation: { url: () => ({ action: 'accept' }) } }, { url: true }],
    ['form and URL handlers', { elicitation: { form: () => accept('x'), url: () => ({ action: 'accept' }) } }, { form: true, url: true }],
    ['a sampling handler', { sampling: () => SAMPLED as never }, { sampling: true }],
    ['a sampling handler with tools', { sampling: { handler: () => SAMPLED as never, tools: true } }, { sampling: true, samplingTools: true }],
    ['roots', { roots: [{ uri: 'file:///x' }] }, { roots: true }],
  ];

  it.each(CONFIGS)('every request, retries included, carries _meta with clientInfo and the capabilities of %s', async (_label, options, declared) => {
    const { client, sent } = await setup(script(inputRequired(undefined, 's1'), inputRequired(undefined, 's2'), done('ok')), options);
    await client.callTool('t', { k: 'v' });
    expect(sent()).toHaveLength(3);
    for (const message of sent()) expectRequestMeta(message, INFO, declared);
  });

  it('declares nothing it has no handler for', async () => {
    const { client, sent } = await setup(script(done('ok')));
    await client.callTool('t', {});
    expect(declaredBy(sent()[0]!.params._meta['io.modelcontextprotocol/clientCapabilities'])).toEqual(NOTHING);
  });

  it('keeps two concurrent flows apart: no answers or states cross over, and no id is reused', async () => {
    let arrived = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The server derives each round from the request's own arguments and state.
    const { client, sent } = await setup((message) => {
      const who = String(message.params.arguments.who);
      const state = message.params.requestState as string | undefined;
      if (state === undefined) return { result: inputRequired({ q: form(`Question 1 for ${who}`) }, `S1:${who}`) };
      if (state.startsWith('S1:')) return { result: inputRequired({ q: form(`Question 2 for ${who}`) }, `S2:${who}`) };
      return { result: done(`done ${who}`) };
    }, {
      elicitation: {
        form: async (params, context) => {
          // Both flows must be waiting for an answer at the same time before either gets one.
          if (context.round === 1) {
            arrived += 1;
            if (arrived === 2) release();
            await Promise.race([gate, new Promise((_, reject) => setTimeout(() => reject(new Error('flows did not overlap')), 10_000))]);
          }
          return accept(`answer to ${params.message}`);
        },
      },
    });

    const [a, b] = await Promise.all([client.callTool('flow', { who: 'A' }), client.callTool('flow', { who: 'B' })]);
    expect(a.content).toEqual([{ type: 'text', text: 'done A' }]);
    expect(b.content).toEqual([{ type: 'text', text: 'done B' }]);

    const messages = sent();
    expect(messages).toHaveLength(6);
    expect(new Set(messages.map((m) => m.id)).size).toBe(6);
    for (const message of messages) {
      const who = message.params.arguments.who;
      if (!('requestState' in message.params)) {
        expect(message.params.inputResponses).toBeUndefined();
        continue;
      }
      expect(message.params.requestState).toMatch(new RegExp(`^S[12]:${who}$`));
      const round = message.params.requestState.startsWith('S1:') ? 1 : 2;
      expect(message.params.inputResponses).toEqual({ q: accept(`answer to Question ${round} for ${who}`) });
    }
  });
});

/* ------------------------------------------------------------------ */

describe('reading results (checklist F)', () => {
  it('treats a result without resultType as complete', async () => {
    const { client, sent } = await setup(script({ content: [{ type: 'text', text: 'legacy' }] }));
    const result = await client.callTool('t', {});
    expect(result.content).toEqual([{ type: 'text', text: 'legacy' }]);
    expect(sent()).toHaveLength(1);
  });

  it.each([
    ['tools/call', (c: Client) => c.callTool('t', {})],
    ['prompts/get', (c: Client) => c.getPrompt('p')],
    ['resources/read', (c: Client) => c.readResource('file:///x')],
  ] as const)('refuses an unknown resultType on %s as an invalid response, without retrying', async (_m, call) => {
    const { client, sent } = await setup(script({ resultType: 'partial', requestState: 's', content: [] }));
    await expect(call(client)).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(sent()).toHaveLength(1);
  });

  it('refuses an unknown resultType on tools/list', async () => {
    const { client } = await setup(script({ resultType: 'mystery', tools: [] }));
    await expect(client.listTools()).rejects.toBeInstanceOf(ProtocolViolationError);
  });

  it('refuses input_required on tools/list sent with client.request', async () => {
    const { client, sent } = await setup(script(inputRequired({ q: form('Name?') }, 's')), { elicitation: { form: () => accept('x') } });
    await expect(client.request('tools/list', {})).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(sent()).toHaveLength(1);
  });

  it('refuses input_required on listTools()', async () => {
    const formHandler = vi.fn(() => accept('x'));
    const { client, sent } = await setup(script(inputRequired({ q: form('Name?') }, 's')), { elicitation: { form: formHandler } });
    await expect(client.listTools()).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(sent()).toHaveLength(1);
    expect(formHandler).not.toHaveBeenCalled();
  });

  it('refuses input_required as the result of subscriptions/listen', async () => {
    const { client } = await setup((message) => {
      const subscription = { 'io.modelcontextprotocol/subscriptionId': message.id };
      return {
        sse: [
          note('notifications/subscriptions/acknowledged', { _meta: subscription, notifications: { toolsListChanged: true } }),
          responseTo(message, { ...inputRequired(undefined, 'state'), _meta: subscription }),
        ],
      };
    });
    const subscription = client.listen({ toolsListChanged: true }, () => undefined);
    await subscription.acknowledged;
    await expect(subscription.closed).rejects.toBeInstanceOf(ProtocolViolationError);
  });

  it('refuses an input_required result with neither inputRequests nor requestState', async () => {
    const { client, sent } = await setup(script({ resultType: 'input_required' }), { elicitation: { form: () => accept('x') } });
    await expect(client.callTool('t', {})).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(sent()).toHaveLength(1);
  });

  it.each([
    ['a requestState that is not a string', { resultType: 'input_required', requestState: 42 }],
    ['inputRequests that is not an object', { resultType: 'input_required', inputRequests: [form('Name?')] }],
    ['an elicitation entry without params', { resultType: 'input_required', inputRequests: { q: { method: 'elicitation/create' } } }],
  ])('refuses an input_required result with %s', async (_label, result) => {
    const formHandler = vi.fn(() => accept('x'));
    const { client, sent } = await setup(script(result), { elicitation: { form: formHandler } });
    await expect(client.callTool('t', {})).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(sent()).toHaveLength(1);
    expect(formHandler).not.toHaveBeenCalled();
  });

  it('refuses an inputRequests entry with an unknown method: no handler runs, no retry', async () => {
    const formHandler = vi.fn(() => accept('x'));
    const { client, sent } = await setup(
      script(inputRequired({ ok: form('Name?'), odd: { method: 'tools/call', params: { name: 'x' } } }, 's')),
      { elicitation: { form: formHandler } },
    );
    await expect(client.callTool('t', {})).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(sent()).toHaveLength(1);
    expect(formHandler).not.toHaveBeenCalled();
  });

  const UNDECLARED: Array<[string, ClientOptions, Json, string]> = [
    ['URL elicitation from a form-only client', { elicitation: { form: vi.fn(() => accept('x')) } }, urlAsk('https://example.com/login'), 'form'],
    ['form elicitation from a URL-only client', { elicitation: { url: vi.fn(() => ({ action: 'accept' as const })) } }, form('Name?'), 'url'],
    ['sampling with tools from a client without sampling.tools', { sampling: vi.fn(() => SAMPLED as never) }, sample('hi', { tools: [{ name: 'x', inputSchema: { type: 'object' } }] }), 'sampling'],
    ['sampling with toolChoice from a client without sampling.tools', { sampling: vi.fn(() => SAMPLED as never) }, sample('hi', { toolChoice: { mode: 'auto' } }), 'sampling'],
    ['roots from a client without roots', { elicitation: { form: vi.fn(() => accept('x')) } }, ROOTS, 'form'],
    ['sampling from a client without sampling', { elicitation: { form: vi.fn(() => accept('x')) } }, sample('hi'), 'form'],
    ['elicitation from a client without elicitation', { sampling: vi.fn(() => SAMPLED as never) }, form('Name?'), 'sampling'],
  ];

  it.each(UNDECLARED)('does not fulfil %s', async (_label, options, entry, handlerName) => {
    const { client, sent } = await setup(script(inputRequired({ q: entry }, 's'), done('should not get here')), options);
    await expect(client.callTool('t', {})).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(sent()).toHaveLength(1);
    const handler =
      handlerName === 'form' ? options.elicitation!.form : handlerName === 'url' ? options.elicitation!.url : (options.sampling as unknown);
    expect(handler).not.toHaveBeenCalled();
  });

  it('fulfils sampling with tools when it declared sampling.tools', async () => {
    const handler = vi.fn(() => SAMPLED as never);
    const entry = sample('hi', { tools: [{ name: 'lookup', inputSchema: { type: 'object' } }], toolChoice: { mode: 'auto' } });
    const { client, sent } = await setup(script(inputRequired({ s: entry }), done('ok')), { sampling: { handler, tools: true } });
    await client.callTool('t', {});
    expect(handler).toHaveBeenCalledTimes(1);
    expect((handler.mock.calls[0] as unknown[])[0]).toEqual(entry.params);
    const [first, retry] = sent();
    expectRetry(first!, retry!, { answers: { s: SAMPLED }, requestState: undefined, inputRequests: { s: entry }, earlierIds: [first!.id] });
  });
});

/* ------------------------------------------------------------------ */

describe('bounds, cancellation and control', () => {
  it('gives up with InputFlowError after maxRounds input rounds', async () => {
    const formHandler = vi.fn(() => accept('again'));
    let n = 0;
    const { client, sent } = await setup(() => ({ result: inputRequired({ [`q${++n}`]: form('Again?') }, `s${n}`) }), {
      elicitation: { form: formHandler },
      maxRounds: 3,
    });
    await expect(client.callTool('t', {})).rejects.toBeInstanceOf(InputFlowError);
    expect(formHandler).toHaveBeenCalledTimes(3);
    expect(sent()).toHaveLength(4);
  });

  it('bounds the loop by default', async () => {
    const { client, sent } = await setup(() => ({ result: inputRequired(undefined, 'forever') }));
    await expect(client.callTool('t', {})).rejects.toBeInstanceOf(InputFlowError);
    expect(sent().length).toBeGreaterThan(1);
    expect(sent().length).toBeLessThanOrEqual(11);
  });

  it('ends with InputFlowError (timeout) when flowTimeoutMs runs out during a retry, and drops that request', async () => {
    const { http, client } = await setup(script(inputRequired({ q: form('Name?') }, 's'), () => ({ hang: true })), {
      elicitation: { form: () => accept('x') },
      flowTimeoutMs: 400,
    });
    await expect(client.callTool('t', {})).rejects.toMatchObject({ name: 'InputFlowError', reason: 'timeout' });
    expect(http.requests).toHaveLength(2);
    await http.requests[1]!.whenDisconnected;
  });

  it('ends with InputFlowError (timeout) when flowTimeoutMs runs out while a handler waits, and sends no retry', async () => {
    const { client, sent } = await setup(script(inputRequired({ q: form('Name?') }, 's')), {
      elicitation: {
        form: (_params, context) =>
          new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true })),
      },
      flowTimeoutMs: 400,
    });
    await expect(client.callTool('t', {})).rejects.toMatchObject({ name: 'InputFlowError', reason: 'timeout' });
    expect(sent()).toHaveLength(1);
  });

  it('ends the flow at flowTimeoutMs even when a handler never returns (its signal aborted, no retry sent)', async () => {
    let seen: AbortSignal | undefined;
    const { client, sent } = await setup(script(inputRequired({ q: form('Name?') }, 's')), {
      elicitation: {
        form: (_params, context) => {
          seen = context.signal;
          return new Promise(() => undefined); // ignores its signal and never settles
        },
      },
      flowTimeoutMs: 300,
    });
    const error = await client.callTool('t', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputFlowError);
    expect(error).toMatchObject({ reason: 'timeout', rounds: 1 });
    expect(seen?.aborted).toBe(true);
    expect(sent()).toHaveLength(1);
  });

  it('stops between rounds when the signal is aborted, without sending the retry (HTTP)', async () => {
    const controller = new AbortController();
    const { client, sent } = await setup(script(inputRequired({ q: form('Name?') }, 's'), done('should not get here')), {
      elicitation: {
        form: () => {
          controller.abort(new Error('user closed the dialog'));
          return accept('x');
        },
      },
    });
    await expect(client.callTool('t', {}, { signal: controller.signal })).rejects.toThrow();
    expect(sent()).toHaveLength(1);
  });

  it('stops between rounds without sending the retry or a cancellation for a request never sent (link)', async () => {
    const controller = new AbortController();
    const { link, client } = await setupLink(
      (message, peer) => peer.result(message, message.params.requestState === undefined ? inputRequired({ q: form('Name?') }, 's') : done('no')),
      {
        elicitation: {
          form: () => {
            controller.abort(new Error('user closed the dialog'));
            return accept('x');
          },
        },
      },
    );
    await expect(client.callTool('t', {}, { signal: controller.signal })).rejects.toThrow();
    // Let anything the client queued (microtasks) reach the peer.
    await new Promise((resolve) => setImmediate(resolve));
    expect(link.requests()).toHaveLength(1);
    const sentIds = link.requests().map((m) => m.id);
    for (const cancel of link.notifications().filter((m) => m.method === 'notifications/cancelled')) {
      expect(sentIds).toContain(cancel.params.requestId);
    }
  });

  it('aborts a retry in flight: the HTTP request is dropped', async () => {
    const controller = new AbortController();
    const { http, client } = await setup(script(inputRequired({ q: form('Name?') }, 's'), () => {
      setImmediate(() => controller.abort(new Error('stop')));
      return { hang: true };
    }), { elicitation: { form: () => accept('x') } });
    await expect(client.callTool('t', {}, { signal: controller.signal })).rejects.toThrow();
    expect(http.requests).toHaveLength(2);
    await http.requests[1]!.whenDisconnected;
    expect(http.requests[1]!.disconnected).toBe(true);
  });

  it('aborts a retry in flight: notifications/cancelled names the retry id (link)', async () => {
    const controller = new AbortController();
    const { link, client } = await setupLink(
      (message, peer) => {
        if (message.params.requestState === undefined) peer.result(message, inputRequired({ q: form('Name?') }, 's'));
        else controller.abort(new Error('stop')); // never answered
      },
      { elicitation: { form: () => accept('x') } },
    );
    await expect(client.callTool('t', {}, { signal: controller.signal })).rejects.toThrow();
    const retry = link.requests()[1]!;
    const cancel = await link.waitFor('notifications/cancelled', (m) => m.method === 'notifications/cancelled');
    expect(cancel.params.requestId).toBe(retry.id);
    expect(link.requests()).toHaveLength(2);
    assertClientRequest(retry);
  });

  it('shows each round to onRound; returning false stops the flow before the retry', async () => {
    const seen: Array<{ round: number; keys: string[]; state: string | undefined; method: string; params: unknown }> = [];
    const { client, sent } = await setup(script(inputRequired({ a: form('A?') }, 'r1'), inputRequired({ b: form('B?') }, 'r2'), done('no')), {
      elicitation: { form: () => accept('x') },
      onRound: (info) => {
        seen.push({
          round: info.round,
          keys: Object.keys(info.pending.inputRequests),
          state: info.pending.requestState,
          method: info.method,
          params: info.params,
        });
        return info.round < 2;
      },
    });
    await expect(client.callTool('t', { x: 1 })).rejects.toBeInstanceOf(InputFlowError);
    expect(seen).toEqual([
      { round: 1, keys: ['a'], state: 'r1', method: 'tools/call', params: { name: 't', arguments: { x: 1 } } },
      { round: 2, keys: ['b'], state: 'r2', method: 'tools/call', params: { name: 't', arguments: { x: 1 } } },
    ]);
    expect(sent()).toHaveLength(2);
  });

  it('sends decline and cancel as answers', async () => {
    const requests = { a: form('A?'), b: form('B?') };
    const { client, sent } = await setup(script(inputRequired(requests, 's'), done('ok')), {
      elicitation: { form: (params) => (params.message === 'A?' ? { action: 'decline' } : { action: 'cancel' }) },
    });
    await client.callTool('t', {});
    const [first, retry] = sent();
    expectRetry(first!, retry!, { answers: { a: { action: 'decline' }, b: { action: 'cancel' } }, requestState: 's', inputRequests: requests, earlierIds: [first!.id] });
  });

  it('gives URL-mode elicitation to the URL handler, never the form handler', async () => {
    const formHandler = vi.fn(() => accept('x'));
    const urlHandler = vi.fn(() => ({ action: 'accept' as const }));
    const entry = urlAsk('https://auth.example.com/consent?x=1');
    const { client, sent } = await setup(script(inputRequired({ login: entry }, 's'), done('ok')), {
      elicitation: { form: formHandler, url: urlHandler },
    });
    await client.callTool('t', {});
    expect(formHandler).not.toHaveBeenCalled();
    expect(urlHandler).toHaveBeenCalledTimes(1);
    expect((urlHandler.mock.calls[0] as unknown[])[0]).toMatchObject({ mode: 'url', url: 'https://auth.example.com/consent?x=1' });
    const [first, retry] = sent();
    expectRetry(first!, retry!, { answers: { login: { action: 'accept' } }, requestState: 's', inputRequests: { login: entry }, earlierIds: [first!.id] });
  });

  it('handles an elicitation without mode as a form', async () => {
    const formHandler = vi.fn(() => accept('Ada'));
    const urlHandler = vi.fn(() => ({ action: 'accept' as const }));
    const entry = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: NAME_SCHEMA } };
    const { client, sent } = await setup(script(inputRequired({ q: entry }), done('ok')), { elicitation: { form: formHandler, url: urlHandler } });
    await client.callTool('t', {});
    expect(formHandler).toHaveBeenCalledTimes(1);
    expect(urlHandler).not.toHaveBeenCalled();
    expect(sent()[1]!.params.inputResponses).toEqual({ q: accept('Ada') });
  });

  it('stops without a retry when a handler fails', async () => {
    const { client, sent } = await setup(script(inputRequired({ q: form('Name?'), r: ROOTS }, 's'), done('no')), {
      elicitation: {
        form: () => {
          throw new Error('the dialog crashed');
        },
      },
      roots: () => [{ uri: 'file:///r' }],
    });
    await expect(client.callTool('t', {})).rejects.toThrow('the dialog crashed');
    expect(sent()).toHaveLength(1);
  });

  it('surfaces a JSON-RPC error on a retry as McpError and stops', async () => {
    const { client, sent } = await setup(
      script(inputRequired({ q: form('Name?') }, 's'), () => ({ error: { code: -32602, message: 'requestState is invalid or expired' } })),
      { elicitation: { form: () => accept('x') } },
    );
    const error = await client.callTool('t', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect(sent()).toHaveLength(2);
  });
});
