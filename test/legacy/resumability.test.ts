/**
 * Resumable SSE streams of 2025-11-25 sessions, as that revision's
 * transports section describes them: a stream starts with a priming event (an
 * id, empty data); every event has an id unique in the session; a client whose
 * stream broke GETs with `Last-Event-ID` and receives what that stream would
 * have carried after it — never another stream's events; a disconnect is not
 * a cancellation. 2026-07-28 has no resumability: its streams carry no ids.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer } from '../../src/index.js';
import type { RunningHttpServer } from '../../src/node.js';
import { deferred, type Deferred } from '../helpers/deferred.js';
import { meta, startHttp, VERSION } from '../helpers/http.js';
import { legacyId, legacyInitialize, openLegacy, sessionHeaders, type Json, type LegacyStream } from '../helpers/legacy-http.js';
import { quietLogger } from '../helpers/results.js';

const gates = new Map<string, Deferred<void>>();
const gate = (name: string): Deferred<void> => {
  let g = gates.get(name);
  if (!g) gates.set(name, (g = deferred<void>()));
  return g;
};
const aborted: string[] = [];

function buildServer(): McpServer {
  const server = new McpServer({ name: 'resumable', version: '1.0.0' }, { logger: quietLogger(), state: { keys: generateStateKey() } });
  // Reports progress, waits for the test to open its gate, reports again, then answers.
  server.tool('two-steps', { description: 'Progress, a pause, progress', input: z.object({ gate: z.string() }) }, async ({ gate: name }, ctx) => {
    ctx.signal.addEventListener('abort', () => aborted.push(name));
    ctx.progress(1, { total: 2, message: 'first' });
    await gate(name).promise;
    ctx.progress(2, { total: 2, message: 'second' });
    return `done ${name}`;
  });
  // Reports progress, waits, then asks the user.
  server.tool('pause-then-ask', { description: 'Progress, a pause, a question', input: z.object({ gate: z.string() }) }, async ({ gate: name }, ctx) => {
    ctx.progress(1, { total: 1 });
    await gate(name).promise;
    const answer = await ctx.ask(ask.form('Your name?', z.object({ name: z.string() })));
    return answer.action === 'accept' ? `hello ${answer.content.name}` : answer.action;
  });
  return server;
}

const isResponse = (m: Json): boolean => 'result' in m || 'error' in m;
const isProgress = (m: Json): boolean => m.method === 'notifications/progress';

function call(url: string, sessionId: string, name: string, args: Json, id: string | number = legacyId()): Promise<LegacyStream> {
  return openLegacy(url, { body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: `p-${String(id)}` } } }, headers: sessionHeaders(sessionId) });
}

function resume(url: string, sessionId: string, lastEventId: string): Promise<LegacyStream> {
  return openLegacy(url, { method: 'GET', headers: { ...sessionHeaders(sessionId), 'last-event-id': lastEventId } });
}

/** The id of the SSE event that carried `message`. */
function idOf(stream: LegacyStream, message: Json): string {
  const event = stream.events.find((e) => e.data.trim() !== '' && JSON.stringify(JSON.parse(e.data)) === JSON.stringify(message));
  expect(event?.id, `the event carrying ${JSON.stringify(message)} has an id`).toBeTruthy();
  return event!.id!;
}

describe('resumable streams in a 2025-11-25 session', () => {
  let running: RunningHttpServer;
  let url: string;

  beforeAll(async () => {
    running = await startHttp(buildServer());
    url = running.url;
  });

  afterAll(async () => {
    for (const g of gates.values()) g.resolve();
    await running.close();
  });

  it('a request stream starts with a priming event, and every event has an id unique in the session', async () => {
    const { sessionId } = await legacyInitialize(url);
    const first = await call(url, sessionId, 'two-steps', { gate: 'ids-1' });
    const second = await call(url, sessionId, 'two-steps', { gate: 'ids-2' });
    await first.nextMatching('progress 1', isProgress);
    await second.nextMatching('progress 1', isProgress);
    gate('ids-1').resolve();
    gate('ids-2').resolve();
    await first.nextMatching('the response', isResponse);
    await second.nextMatching('the response', isResponse);
    for (const stream of [first, second]) {
      expect(stream.events[0]).toMatchObject({ data: '' });
      expect(stream.events[0]!.id).toBeTruthy();
      expect(stream.events.every((e) => typeof e.id === 'string' && e.id !== '')).toBe(true);
    }
    const ids = [...first.events, ...second.events].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('after a broken stream, GET with Last-Event-ID gets the rest of that stream up to the response; the request was not cancelled', async () => {
    const { sessionId } = await legacyInitialize(url);
    const stream = await call(url, sessionId, 'two-steps', { gate: 'broken' }, 'call-broken');
    const progress = await stream.nextMatching('progress 1', isProgress);
    const lastSeen = idOf(stream, progress);
    stream.close();
    // The client is gone; the work goes on.
    await new Promise((resolve) => setTimeout(resolve, 50));
    gate('broken').resolve();

    const resumed = await resume(url, sessionId, lastSeen);
    expect(resumed.status).toBe(200);
    expect(resumed.contentType).toContain('text/event-stream');
    const response = await resumed.nextMatching('the response', isResponse);
    expect(response).toMatchObject({ id: 'call-broken', result: { content: [{ type: 'text', text: 'done broken' }] } });
    await resumed.ended;
    // What came after the last event seen, and nothing before it.
    expect(resumed.messages.filter(isProgress).map((m) => (m.params as Json).progress)).toEqual([2]);
    expect(resumed.messages).toHaveLength(2);
    expect(aborted).not.toContain('broken');
    resumed.assertValid();
  });

  it('a question asked after the disconnect comes on the resumed stream; its answer completes the call', async () => {
    const { sessionId } = await legacyInitialize(url, { capabilities: { elicitation: {} } });
    const stream = await call(url, sessionId, 'pause-then-ask', { gate: 'ask' }, 'call-ask');
    const progress = await stream.nextMatching('progress', isProgress);
    const lastSeen = idOf(stream, progress);
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gate('ask').resolve();

    const resumed = await resume(url, sessionId, lastSeen);
    const question = await resumed.nextMatching('elicitation/create', (m) => m.method === 'elicitation/create');
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...sessionHeaders(sessionId) },
      body: JSON.stringify({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Grace' } } }),
    });
    expect(answer.status).toBe(202);
    const response = await resumed.nextMatching('the response', isResponse);
    expect(response).toMatchObject({ id: 'call-ask', result: { content: [{ type: 'text', text: 'hello Grace' }] } });
  });

  it('a resumed stream carries only its own stream: not the events of another request of the session', async () => {
    const { sessionId } = await legacyInitialize(url);
    const mine = await call(url, sessionId, 'two-steps', { gate: 'mine' }, 'call-mine');
    const other = await call(url, sessionId, 'two-steps', { gate: 'other' }, 'call-other');
    const lastSeen = idOf(mine, await mine.nextMatching('progress', isProgress));
    await other.nextMatching('progress', isProgress);
    mine.close();
    gate('other').resolve();
    await other.nextMatching('the other response', isResponse);
    gate('mine').resolve();
    const resumed = await resume(url, sessionId, lastSeen);
    await resumed.nextMatching('the response', isResponse);
    await resumed.ended;
    expect(resumed.messages.map((m) => m.id ?? (m.params as Json).progressToken)).toEqual(['p-call-mine', 'call-mine']);
  });

  it('an event id the server never gave, or one of another session, gets 400 with a JSON-RPC error', async () => {
    const { sessionId } = await legacyInitialize(url);
    const other = await legacyInitialize(url);
    const stream = await call(url, other.sessionId, 'two-steps', { gate: 'foreign' });
    const foreignId = idOf(stream, await stream.nextMatching('progress', isProgress));
    gate('foreign').resolve();
    await stream.nextMatching('the response', isResponse);

    for (const lastEventId of ['not-an-event-id', 'r.AAAAAAAAAAAA:3', foreignId]) {
      const res = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', ...sessionHeaders(sessionId), 'last-event-id': lastEventId } });
      expect(res.status, lastEventId).toBe(400);
      const body = (await res.json()) as Json;
      expect(body.error.code).toBe(-32600);
      expect(body.error.message).toMatch(/Last-Event-ID|no longer held/);
    }
  });

  it('the GET stream has a priming event and ids too; resumed from an id, it replays what followed and goes on', async () => {
    const server = buildServer();
    const local = await startHttp(server);
    try {
      const session = await legacyInitialize(local.url);
      const get = await openLegacy(local.url, { method: 'GET', headers: sessionHeaders(session.sessionId) });
      expect(get.status).toBe(200);
      await expect.poll(() => get.events.length).toBeGreaterThan(0);
      const priming = get.events[0]!;
      expect(priming.data).toBe('');
      expect(priming.id).toBeTruthy();
      const removeA = server.tool('added-a', { description: 'a' }, () => 'a');
      await get.nextMatching('list_changed 1', (m) => m.method === 'notifications/tools/list_changed');
      const removeB = server.tool('added-b', { description: 'b' }, () => 'b');
      await expect.poll(() => get.messages.length).toBe(2);
      expect(get.events.slice(1).every((e) => e.id && e.id !== priming.id)).toBe(true);
      get.close();

      // Resumed from the priming event: both notifications again, then live ones.
      const resumed = await resume(local.url, session.sessionId, priming.id!);
      expect(resumed.status).toBe(200);
      await expect.poll(() => resumed.messages.length).toBe(2);
      removeA();
      await expect.poll(() => resumed.messages.length).toBe(3);
      expect(resumed.messages.every((m) => m.method === 'notifications/tools/list_changed')).toBe(true);
      resumed.close();
      removeB();
    } finally {
      await local.close();
    }
  });
});

describe('2026-07-28 streams are not resumable', () => {
  it('an SSE response carries no event ids and no priming event', async () => {
    const running = await startHttp(buildServer());
    try {
      const stream = await openLegacy(running.url, {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'two-steps', arguments: { gate: 'modern' }, _meta: { ...meta(), progressToken: 'm' } } },
        headers: { 'mcp-protocol-version': VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'two-steps' },
        skipValidation: true,
      });
      await stream.nextMatching('progress', isProgress);
      gate('modern').resolve();
      await stream.nextMatching('the response', isResponse);
      expect(stream.events.length).toBeGreaterThan(1);
      expect(stream.events.every((e) => e.id === undefined && e.data !== '')).toBe(true);
    } finally {
      await running.close();
    }
  });
});
