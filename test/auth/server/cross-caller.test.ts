/**
 * The caller, bound into every flow: with real tokens for two users (alice
 * and bob, through the same app and through another) and two services, one
 * caller's `requestState`, task and 2025-11-25 session are refused to every
 * other — before any handler code runs, and without saying whether the
 * thing exists. Also with the `authenticate` hook alone (an `x-user`
 * header), the case measured in the issue: Bob on Alice's session id.
 */

import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, McpServer } from '../../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../../src/node.js';
import type { IssuedToken } from '../../helpers/authorization-server.js';
import { meta, rpc } from '../../helpers/http.js';
import { legacyId, legacyInitialize, legacyPost, openLegacy, sessionHeaders, type Json, type LegacyStream } from '../../helpers/legacy-http.js';
import { bearer, protectedTools, startProtectedTessera, type ProtectedTessera } from '../../helpers/protected-tessera.js';
import { quietLogger } from '../../helpers/results.js';
import { createTask, pollTask, taskMeta, tasksCancel, tasksGet, tasksUpdate } from '../../helpers/tasks.js';

let t: ProtectedTessera;
let alice: IssuedToken;
let aliceElsewhere: IssuedToken;
let bob: IssuedToken;
/** How often each tool's handler started. */
const starts = new Map<string, number>();
const streams: LegacyStream[] = [];

beforeAll(async () => {
  t = await startProtectedTessera({
    tools: (server) => {
      protectedTools(server);
      server.tool('counted-confirm', { input: z.object({ item: z.string() }) }, async ({ item }, ctx) => {
        starts.set('counted-confirm', (starts.get('counted-confirm') ?? 0) + 1);
        const answer = await ctx.ask(ask.form(`Confirm ${item}?`, z.object({ ok: z.boolean() }), { key: 'ok' }));
        return `${item} ${answer.action} by ${ctx.auth?.subject}`;
      });
    },
  });
  alice = await t.userToken('alice', 'app-1');
  aliceElsewhere = await t.userToken('alice', 'app-2');
  bob = await t.userToken('bob', 'app-1');
});

afterAll(async () => {
  for (const stream of streams) stream.close();
  await t?.close();
});

const formCaps = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } });

function resultOf(reply: { response?: Json | undefined; status: number }): Json {
  if (!reply.response || !('result' in reply.response)) throw new Error(`expected a result, got HTTP ${reply.status} ${JSON.stringify(reply.response)}`);
  return reply.response.result as Json;
}

describe('requestState is bound to the caller who started the flow', () => {
  it("refuses Alice's state retried with Bob's valid token (-32602) before the handler runs; Alice finishes her flow", async () => {
    const first = resultOf(await rpc(t.url, 'tools/call', { name: 'counted-confirm', arguments: { item: 'deploy' }, _meta: formCaps }, { headers: bearer(alice) }));
    expect(first.resultType).toBe('input_required');
    const startsBefore = starts.get('counted-confirm');
    const retry = { name: 'counted-confirm', arguments: { item: 'deploy' }, requestState: first.requestState, inputResponses: { ok: { action: 'accept', content: { ok: true } } }, _meta: formCaps };

    for (const other of [bob, aliceElsewhere]) {
      const stolen = await rpc(t.url, 'tools/call', retry, { headers: bearer(other) });
      expect(stolen.status).toBe(200);
      expect(stolen.response).toMatchObject({ error: { code: -32602, message: 'Invalid params: requestState is invalid or expired' } });
    }
    expect(starts.get('counted-confirm')).toBe(startsBefore);

    const own = resultOf(await rpc(t.url, 'tools/call', retry, { headers: bearer(alice) }));
    expect(own.content).toEqual([{ type: 'text', text: 'deploy accept by alice' }]);
  });

  it('binds state of a service the same way: another client cannot retry it', async () => {
    const a = await t.serviceToken('service-a');
    const b = await t.serviceToken('service-b');
    const first = resultOf(await rpc(t.url, 'tools/call', { name: 'confirm', arguments: { item: 'x' }, _meta: formCaps }, { headers: bearer(a) }));
    const retry = { name: 'confirm', arguments: { item: 'x' }, requestState: first.requestState, inputResponses: { ok: { action: 'accept', content: { ok: true } } }, _meta: formCaps };
    expect((await rpc(t.url, 'tools/call', retry, { headers: bearer(b) })).response).toMatchObject({ error: { code: -32602 } });
    expect(JSON.stringify(resultOf(await rpc(t.url, 'tools/call', retry, { headers: bearer(a) })))).toContain('confirmed by service-a');
  });

  it('keeps binding the same caller across a token refresh (same issuer, subject and client)', async () => {
    const first = resultOf(await rpc(t.url, 'tools/call', { name: 'confirm', arguments: { item: 'y' }, _meta: formCaps }, { headers: bearer(alice) }));
    const fresh = await t.userToken('alice', 'app-1');
    expect(fresh.accessToken).not.toBe(alice.accessToken);
    const retry = { name: 'confirm', arguments: { item: 'y' }, requestState: first.requestState, inputResponses: { ok: { action: 'accept', content: { ok: true } } }, _meta: formCaps };
    expect(JSON.stringify(resultOf(await rpc(t.url, 'tools/call', retry, { headers: bearer(fresh) })))).toContain('confirmed by alice');
  });
});

describe('a task is its creator’s', () => {
  it("lets Bob neither see, answer nor cancel Alice's task; Alice answers it and it completes", async () => {
    const created = await createTask(t.url, 'slow-job', {}, taskMeta(), { headers: bearer(alice) });
    const taskId = String(created.taskId);
    const waiting = await pollTask(t.url, taskId, (task) => task.status === 'input_required', { rpc: { headers: bearer(alice) } });
    const [key] = Object.keys(waiting.inputRequests as Json);
    const answers = { [key!]: { action: 'accept', content: { ok: true } } };

    for (const attempt of [
      () => tasksGet(t.url, taskId, taskMeta(), { headers: bearer(bob) }),
      () => tasksUpdate(t.url, taskId, answers, taskMeta(), { headers: bearer(bob) }),
      () => tasksCancel(t.url, taskId, taskMeta(), { headers: bearer(bob) }),
      () => tasksGet(t.url, taskId, taskMeta(), { headers: bearer(aliceElsewhere) }),
    ]) {
      const reply = await attempt();
      expect(reply.response).toMatchObject({ error: { code: -32602, message: expect.stringContaining('unknown or expired task') } });
    }
    expect(resultOf(await tasksGet(t.url, taskId, taskMeta(), { headers: bearer(alice) })).status).toBe('input_required');

    resultOf(await tasksUpdate(t.url, taskId, answers, taskMeta(), { headers: bearer(alice) }));
    const done = await pollTask(t.url, taskId, (task) => task.status === 'completed', { rpc: { headers: bearer(alice) } });
    expect(JSON.stringify(done.result)).toContain('job done for alice: accept');
  });
});

/* ---------------- 2025-11-25 sessions ---------------- */

const isServerRequest = (m: Json): boolean => typeof m.method === 'string' && 'id' in m;
const isResponse = (m: Json): boolean => 'result' in m || 'error' in m;

async function post(url: string, sessionId: string, body: Json, headers: Record<string, string>): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...sessionHeaders(sessionId), ...headers },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Every way Bob could use Alice's session, each refused as an unknown
 * session (404), and her session none the worse: her tool call still waits
 * for her own answer, which it then gets.
 */
async function attackSession(url: string, aliceHeaders: Record<string, string>, otherCallers: Array<Record<string, string>>): Promise<void> {
  const { sessionId } = await legacyInitialize(url, { capabilities: { elicitation: {} }, headers: aliceHeaders });
  const call = await openLegacy(url, {
    body: { jsonrpc: '2.0', id: 'alice-call', method: 'tools/call', params: { name: 'confirm', arguments: { item: 'payroll' } } },
    headers: { ...sessionHeaders(sessionId), ...aliceHeaders },
  });
  streams.push(call);
  const question = await call.nextMatching('elicitation/create', isServerRequest);

  for (const other of otherCallers) {
    const list = await legacyPost(url, { jsonrpc: '2.0', id: legacyId(), method: 'tools/list', params: {} }, { ...sessionHeaders(sessionId), ...other }, { skipValidation: true });
    expect(list.status).toBe(404);
    const tool = await legacyPost(url, { jsonrpc: '2.0', id: legacyId(), method: 'tools/call', params: { name: 'whoami', arguments: {} } }, { ...sessionHeaders(sessionId), ...other }, { skipValidation: true });
    expect(tool.status).toBe(404);
    // Bob answers the question the server sent Alice.
    expect(await post(url, sessionId, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: false } } }, other)).toBe(404);
    expect(await post(url, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'alice-call' } }, other)).toBe(404);
    const stream = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', ...sessionHeaders(sessionId), ...other } });
    await stream.body?.cancel();
    expect(stream.status).toBe(404);
    const ended = await fetch(url, { method: 'DELETE', headers: { ...sessionHeaders(sessionId), ...other } });
    expect(ended.status).toBe(404);
  }

  // Still Alice's, still waiting for her answer.
  expect(await post(url, sessionId, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } }, aliceHeaders)).toBe(202);
  const response = await call.nextMatching('the tools/call response', isResponse);
  expect(JSON.stringify(response.result)).toMatch(/payroll: confirmed/);
  const listed = await legacyPost(url, { jsonrpc: '2.0', id: legacyId(), method: 'tools/list', params: {} }, { ...sessionHeaders(sessionId), ...aliceHeaders });
  expect(listed.status).toBe(200);
  const ended = await fetch(url, { method: 'DELETE', headers: { ...sessionHeaders(sessionId), ...aliceHeaders } });
  expect(ended.status).toBe(200);
}

describe('a 2025-11-25 session is bound to the caller who made it', () => {
  it("refuses Bob's valid token on Alice's session for every method, her answers, notifications, GET and DELETE", async () => {
    await attackSession(t.url, bearer(alice), [bearer(bob), bearer(aliceElsewhere)]);
  });

  it('refuses a request on it without a token (401) before the session is even looked at', async () => {
    const { sessionId } = await legacyInitialize(t.url, { headers: bearer(alice) });
    const bare = await legacyPost(t.url, { jsonrpc: '2.0', id: legacyId(), method: 'tools/list', params: {} }, sessionHeaders(sessionId), { skipValidation: true });
    expect(bare.status).toBe(401);
  });

  it('with the authenticate hook alone (x-user), Bob on Alice’s session id gets nothing of hers, and neither does a caller without the header', async () => {
    const server = new McpServer({ name: 'hook-only', version: '1.0.0' }, { logger: quietLogger() });
    protectedTools(server);
    const http: RunningHttpServer = await serveHttp(server, { port: 0, authenticate: (header) => header('x-user') });
    try {
      await attackSession(http.url, { 'x-user': 'alice' }, [{ 'x-user': 'bob' }, {}]);
    } finally {
      server.close();
      await http.close();
    }
  });
});
