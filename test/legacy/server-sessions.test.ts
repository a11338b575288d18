/**
 * The dual-era server serving 2025-11-25 clients over real HTTP on 127.0.0.1,
 * driven with raw requests as a 2025 client sends them (spec §16.3, §16.4,
 * §12.6; 2025 notes §1–§3, §8): the initialize handshake and its session,
 * 2025 result shapes, session errors (400 / 404), DELETE, the GET stream,
 * idle timeout and the bound on sessions, 2025 error semantics, the 2026 path
 * on the same URL, a 2026-only server, and server-initiated requests in place
 * of `input_required`. Every 2025-era message is validated against the
 * 2025-11-25 schema (test/helpers/wire-schema-2025.ts).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer, type McpServerOptions } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, startHttp } from '../helpers/http.js';
import {
  LEGACY_VERSION,
  legacyId,
  legacyInitialize,
  legacyPost,
  openLegacy,
  sessionHeaders,
  sessionRequest,
  type Json,
  type LegacyStream,
} from '../helpers/legacy-http.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';
import { quietPeriod } from '../helpers/sse-stream.js';
import { assertClientMessage2025, assertServerMessage2025, assertValid2025, modernFieldsOf } from '../helpers/wire-schema-2025.js';

const SERVER_INFO = { name: 'sessions-test', version: '1.2.3' };
const WATCHED = 'file:///watched/config.json';

function buildServer(options: McpServerOptions = {}): McpServer {
  const server = new McpServer(SERVER_INFO, { logger: quietLogger(), state: { keys: generateStateKey() }, instructions: 'Be kind.', ...options });
  server.tool('echo', { description: 'Returns its text', input: z.object({ text: z.string() }) }, ({ text }) => text);
  server.tool('ask-name', { description: 'Asks for a name' }, async (_args, ctx) => {
    const answer = await ctx.ask(ask.form('What is your name?', z.object({ name: z.string() })));
    return answer.action === 'accept' ? `Hello ${answer.content.name}` : `no name: ${answer.action}`;
  });
  server.tool('ask-model-and-roots', { description: 'Asks the model, then the roots' }, async (_args, ctx) => {
    const sample = await ctx.ask(ask.sampling({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 }));
    const roots = await ctx.ask(ask.roots());
    const said = sample.content && !Array.isArray(sample.content) && sample.content.type === 'text' ? sample.content.text : '?';
    return `model said ${said}; roots ${roots.map((r) => r.uri).join(',')}`;
  });
  server.tool('progress-and-log', { description: 'Reports progress and logs' }, (_args, ctx) => {
    ctx.progress(1, { total: 2 });
    ctx.log('debug', 'debug detail');
    ctx.log('warning', 'watch out');
    ctx.progress(2, { total: 2 });
    return 'done';
  });
  // A hand-written flow: questions, then a state-only round ("retry now"), then the answer.
  server.tool('manual-flow', { description: 'Hand-written input rounds' }, (_args, ctx) => {
    const state = ctx.state as { step: number; name?: string } | undefined;
    if (state === undefined) {
      return ctx.inputRequired({
        inputRequests: {
          who: { method: 'elicitation/create', params: { mode: 'form', message: 'Who are you?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } },
        },
        state: { step: 1 },
      });
    }
    if (state.step === 1) {
      const who = ctx.inputResponses.who as { action: string; content?: { name?: string } } | undefined;
      return ctx.inputRequired({ state: { step: 2, name: who?.content?.name ?? '?' } });
    }
    return `manual flow done for ${state.name}`;
  });
  server.resource({ uri: WATCHED, name: 'watched config', mimeType: 'application/json' }, () => '{"v":1}');
  server.prompt('greeting', { description: 'A greeting' }, () => 'Hello there');
  server.prompt('ask-tone', { description: 'Asks for a tone first' }, async (_args, ctx) => {
    const answer = await ctx.ask(ask.form('Which tone?', z.object({ tone: z.string() })));
    return answer.action === 'accept' ? `Write in a ${answer.content.tone} tone.` : 'Write plainly.';
  });
  return server;
}

const isRequestFromServer = (m: Json): boolean => typeof m.method === 'string' && 'id' in m;
const isResponse = (m: Json): boolean => 'result' in m || 'error' in m;

/** POSTs a client's answer to a server-initiated request; validates it as 2025 wire. */
async function answer(url: string, sessionId: string, request: Json, result: Json): Promise<number> {
  const body = { jsonrpc: '2.0', id: request.id, result };
  assertClientMessage2025(body, String(request.method));
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...sessionHeaders(sessionId) },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

function openToolCall(url: string, sessionId: string, name: string, args: Json = {}, id: string | number = legacyId()): Promise<LegacyStream> {
  return openLegacy(url, { body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, headers: sessionHeaders(sessionId) });
}

function expectNoInputRequired(messages: Json[]): void {
  for (const m of messages) {
    expect(isResponse(m) && (m.result as Json | undefined)?.resultType === 'input_required', `input_required on a 2025 connection: ${JSON.stringify(m)}`).toBe(false);
  }
}

describe('2025-11-25 sessions on the dual-era server (HTTP)', () => {
  let running: RunningHttpServer;
  let server: McpServer;
  let url: string;
  const streams: LegacyStream[] = [];

  beforeAll(async () => {
    server = buildServer();
    running = await startHttp(server);
    url = running.url;
  });

  afterAll(async () => {
    for (const s of streams) s.close();
    await running.close();
  });

  describe('initialize', () => {
    it('answers the requested 2025 version, serverInfo, legacy capabilities and a visible-ASCII Mcp-Session-Id', async () => {
      const { sessionId, result, reply, initializedStatus } = await legacyInitialize(url, { protocolVersion: LEGACY_VERSION });
      expect(reply.status).toBe(200);
      assertValid2025('InitializeResult', result);
      expect(result.protocolVersion).toBe('2025-11-25');
      expect(result.serverInfo).toEqual(SERVER_INFO);
      expect(result.instructions).toBe('Be kind.');
      expect(result.capabilities).toMatchObject({ tools: {}, resources: { subscribe: true }, prompts: {} });
      // 2026-only features (extensions) are not advertised to a 2025 client; nor are 2026 result fields.
      expect(result.capabilities).not.toHaveProperty('extensions');
      expect(modernFieldsOf(result)).toEqual([]);
      expect(sessionId).toMatch(/^[\x21-\x7E]+$/);
      expect(initializedStatus).toBe(202);
    });

    it('answers an older supported 2025-era version as requested (2025-06-18)', async () => {
      const { result } = await legacyInitialize(url, { protocolVersion: '2025-06-18', initialized: false });
      expect(result.protocolVersion).toBe('2025-06-18');
    });

    it.each([['2026-07-28'], ['2024-01-01'], ['1999-12-31']])('answers 2025-11-25 (never 2026-07-28) when %s is requested', async (requested) => {
      const { result } = await legacyInitialize(url, { protocolVersion: requested, initialized: false });
      expect(result.protocolVersion).toBe('2025-11-25');
    });

    it('mints a new, distinct session for every initialize', async () => {
      const a = await legacyInitialize(url, { initialized: false });
      const b = await legacyInitialize(url, { initialized: false });
      expect(a.sessionId).not.toBe(b.sessionId);
    });
  });

  describe('requests in a session', () => {
    let sessionId: string;
    beforeAll(async () => {
      ({ sessionId } = await legacyInitialize(url));
    });

    it.each([
      ['ping', {}],
      ['logging/setLevel', { level: 'debug' }],
      ['resources/subscribe', { uri: WATCHED }],
      ['resources/unsubscribe', { uri: WATCHED }],
    ])('%s answers exactly {}', async (method, params) => {
      const reply = await sessionRequest(url, sessionId, method, params);
      expect(reply.status).toBe(200);
      expect(resultOf(reply)).toStrictEqual({});
    });

    it.each([
      ['tools/list', {}],
      ['tools/call', { name: 'echo', arguments: { text: 'hi' } }],
      ['resources/list', {}],
      ['resources/read', { uri: WATCHED }],
      ['prompts/list', {}],
      ['prompts/get', { name: 'greeting' }],
    ])('%s gets a 2025 result shape (no resultType, ttlMs, cacheScope or _meta serverInfo)', async (method, params) => {
      const reply = await sessionRequest(url, sessionId, method, params);
      expect(reply.status).toBe(200);
      const result = resultOf(reply);
      expect(modernFieldsOf(result), JSON.stringify(result)).toEqual([]);
    });

    it('tools/call returns the tool output', async () => {
      const result = resultOf(await sessionRequest(url, sessionId, 'tools/call', { name: 'echo', arguments: { text: 'hi ✓' } }));
      expect(result.content).toEqual([{ type: 'text', text: 'hi ✓' }]);
    });

    it('a params._meta.progressToken (2025 progress, not 2026 _meta) gets progress notifications; logs follow the session level', async () => {
      const { sessionId } = await legacyInitialize(url);
      expect(resultOf(await sessionRequest(url, sessionId, 'logging/setLevel', { level: 'info' }))).toStrictEqual({});
      const reply = await sessionRequest(url, sessionId, 'tools/call', { name: 'progress-and-log', arguments: {}, _meta: { progressToken: 'tok-1' } });
      expect(reply.status).toBe(200);
      expect(resultOf(reply)).toEqual({ content: [{ type: 'text', text: 'done' }] });
      const notes = reply.messages.filter((m) => !('id' in m));
      expect(notes.filter((m) => m.method === 'notifications/progress').map((m) => m.params)).toEqual([
        { progressToken: 'tok-1', progress: 1, total: 2 },
        { progressToken: 'tok-1', progress: 2, total: 2 },
      ]);
      expect(notes.filter((m) => m.method === 'notifications/message').map((m) => (m.params as Json).data)).toEqual(['watch out']);
      // Everything before the response.
      expect(reply.messages[reply.messages.length - 1]).toBe(reply.response);
    });

    it('errors travel with HTTP 200 (unknown method -32601, unknown tool, bad log level -32602)', async () => {
      const unknownMethod = await sessionRequest(url, sessionId, 'no/such/method', {});
      expect(unknownMethod.status).toBe(200);
      expect(errorOf(unknownMethod).code).toBe(-32601);

      const unknownTool = await sessionRequest(url, sessionId, 'tools/call', { name: 'no-such-tool', arguments: {} });
      expect(unknownTool.status).toBe(200);
      expect(unknownTool.response).toHaveProperty('error');

      const badLevel = await sessionRequest(url, sessionId, 'logging/setLevel', { level: 'loud' });
      expect(badLevel.status).toBe(200);
      expect(errorOf(badLevel).code).toBe(-32602);
    });

    it('a second initialize inside the session is an error, with HTTP 200', async () => {
      const reply = await legacyPost(
        url,
        { jsonrpc: '2.0', id: legacyId(), method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
        sessionHeaders(sessionId),
      );
      expect(reply.status).toBe(200);
      expect(reply.response).toHaveProperty('error');
    });

    it('resources/read of an unknown URI is -32002 in a session (2025) but -32602 on a 2026 request', async () => {
      const legacy = await sessionRequest(url, sessionId, 'resources/read', { uri: 'file:///nope.txt' });
      expect(legacy.status).toBe(200);
      expect(errorOf(legacy).code).toBe(-32002);

      const modern = await rpc(url, 'resources/read', { uri: 'file:///nope.txt' });
      expect(errorOf(modern).code).toBe(-32602);
    });

    it('server/discover and subscriptions/listen (2026-only) are unknown methods in a session', async () => {
      for (const method of ['server/discover', 'subscriptions/listen']) {
        const reply = await sessionRequest(url, sessionId, method, {});
        expect(reply.status).toBe(200);
        expect(errorOf(reply).code).toBe(-32601);
      }
    });
  });

  describe('session errors', () => {
    it('a 2025 request without a session id gets 400', async () => {
      const reply = await legacyPost(url, { jsonrpc: '2.0', id: legacyId(), method: 'tools/list', params: {} }, { 'mcp-protocol-version': LEGACY_VERSION });
      expect(reply.status).toBe(400);
    });

    it('an unknown session id gets 404 with a JSON-RPC error saying this instance does not know the session', async () => {
      const reply = await legacyPost(url, { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }, sessionHeaders('no-such-session-4f1c'));
      expect(reply.status).toBe(404);
      const error = errorOf(reply);
      expect(error.message).toMatch(/session/i);
      expect(error.message).toMatch(/instance/i);
      expect(error.message).toContain('no-such-session-4f1c');
    });

    it('an unknown session id gets 404 on GET too', async () => {
      const get = await openLegacy(url, { method: 'GET', headers: sessionHeaders('no-such-session-4f1c') });
      await get.ended.catch(() => undefined);
      expect(get.status).toBe(404);
    });

    it('DELETE ends the session: later POSTs, GETs and DELETEs get 404', async () => {
      const { sessionId } = await legacyInitialize(url);
      expect(resultOf(await sessionRequest(url, sessionId, 'ping'))).toStrictEqual({});

      const del = await fetch(url, { method: 'DELETE', headers: sessionHeaders(sessionId) });
      await del.arrayBuffer();
      expect(del.status).toBeGreaterThanOrEqual(200);
      expect(del.status).toBeLessThan(300);

      const after = await sessionRequest(url, sessionId, 'ping');
      expect(after.status).toBe(404);
      expect(after.response).toHaveProperty('error');

      const get = await openLegacy(url, { method: 'GET', headers: sessionHeaders(sessionId) });
      await get.ended.catch(() => undefined);
      expect(get.status).toBe(404);

      const again = await fetch(url, { method: 'DELETE', headers: sessionHeaders(sessionId) });
      await again.arrayBuffer();
      expect(again.status).toBe(404);
    });

    it('DELETE ends an open GET stream of the session', async () => {
      const { sessionId } = await legacyInitialize(url);
      const get = await openLegacy(url, { method: 'GET', headers: sessionHeaders(sessionId) });
      streams.push(get);
      expect(get.status).toBe(200);
      const del = await fetch(url, { method: 'DELETE', headers: sessionHeaders(sessionId) });
      await del.arrayBuffer();
      expect(del.ok).toBe(true);
      await get.ended; // resolves only when the server ends the stream
    });
  });

  describe('the GET stream', () => {
    it('opens an SSE stream that receives notifications/tools/list_changed when a tool is added', async () => {
      const { sessionId } = await legacyInitialize(url);
      const get = await openLegacy(url, { method: 'GET', headers: sessionHeaders(sessionId) });
      streams.push(get);
      expect(get.status).toBe(200);
      expect(get.contentType).toContain('text/event-stream');

      const remove = server.tool('added-later', { description: 'Added while the stream is open' }, () => 'late');
      try {
        const note = await get.nextMatching('tools/list_changed', (m) => m.method === 'notifications/tools/list_changed');
        expect(note).not.toHaveProperty('id');
        get.assertValid();
      } finally {
        remove();
      }
      get.close();
    });

    it('receives notifications/resources/updated for a subscribed URI, and not for others', async () => {
      const { sessionId } = await legacyInitialize(url);
      const get = await openLegacy(url, { method: 'GET', headers: sessionHeaders(sessionId) });
      streams.push(get);
      expect(get.status).toBe(200);
      expect(resultOf(await sessionRequest(url, sessionId, 'resources/subscribe', { uri: WATCHED }))).toStrictEqual({});

      server.resourceUpdated('file:///some/other/file.txt');
      server.resourceUpdated(WATCHED);
      const note = await get.nextMatching('resources/updated', (m) => m.method === 'notifications/resources/updated');
      expect(note.params).toEqual({ uri: WATCHED });
      get.assertValid();
      // The unrelated URI came first; the first update on the stream must be the subscribed one.
      expect(get.messages.filter((m) => m.method === 'notifications/resources/updated').map((m) => (m.params as Json).uri)).toEqual([WATCHED]);
      get.close();
    });

    it('a second GET while one is open gets 405 (2025-11-25 transports: an SSE stream or 405)', async () => {
      const { sessionId } = await legacyInitialize(url);
      const first = await openLegacy(url, { method: 'GET', headers: sessionHeaders(sessionId) });
      streams.push(first);
      expect(first.status).toBe(200);
      const second = await openLegacy(url, { method: 'GET', headers: sessionHeaders(sessionId) });
      streams.push(second);
      expect(second.status).toBe(405);
      first.close();
    });

    it('GET without a session id gets 405 (2026-07-28 has no GET stream)', async () => {
      const get = await openLegacy(url, { method: 'GET' });
      await get.ended.catch(() => undefined);
      expect(get.status).toBe(405);
    });
  });

  describe('the 2026-07-28 path on the same URL', () => {
    it('serves a 2026 request statelessly even when it carries a stray (unknown) Mcp-Session-Id', async () => {
      const reply = await rpc(url, 'tools/list', {}, { headers: { 'mcp-session-id': 'stray-session-id' } });
      expect(reply.status).toBe(200);
      expect(resultOf(reply).resultType).toBe('complete');
      expect(reply.headers.get('mcp-session-id')).toBeNull();
    });

    it('serves a 2026 request statelessly when it carries the id of a live 2025 session: an ask is input_required, not a server request', async () => {
      const { sessionId } = await legacyInitialize(url);
      const reply = await rpc(
        url,
        'tools/call',
        { name: 'ask-name', arguments: {}, _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }) },
        { headers: { 'mcp-session-id': sessionId } },
      );
      expect(reply.status).toBe(200);
      expect(reply.messages.filter(isRequestFromServer)).toEqual([]);
      const result = resultOf(reply);
      expect(result.resultType).toBe('input_required');
      expect(Object.values(result.inputRequests as Json)[0]).toMatchObject({ method: 'elicitation/create' });
    });

    it('a 2026-style notification (2026 headers and _meta) is answered the same with or without a stray Mcp-Session-Id (§12.6: ignore it)', async () => {
      const post = async (extra: Record<string, string>): Promise<number> => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'notifications/cancelled', ...extra },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: meta() } }),
        });
        await res.arrayBuffer();
        return res.status;
      };
      const without = await post({});
      const withStray = await post({ 'mcp-session-id': 'stray-session-id' });
      expect(withStray).toBe(without);
    });

    it('answers a 2026 initialize probe (2026 header and _meta) with -32601 on 404, not the handshake', async () => {
      const reply = await rpc(url, 'initialize', {}, { skipValidation: true });
      expect(reply.status).toBe(404);
      expect(errorOf(reply).code).toBe(-32601);
      expect(reply.headers.get('mcp-session-id')).toBeNull();
    });
  });

  describe('server-initiated requests instead of input_required', () => {
    it('a tool that asks sends elicitation/create on the call stream; the answer POST gets 202; the result follows it', async () => {
      const { sessionId } = await legacyInitialize(url, { capabilities: { elicitation: {} } });
      const call = await openToolCall(url, sessionId, 'ask-name', {}, 'call-1');
      streams.push(call);
      expect(call.status).toBe(200);
      expect(call.contentType).toContain('text/event-stream');

      const request = await call.nextMatching('elicitation/create', isRequestFromServer);
      expect(request.method).toBe('elicitation/create');
      expect(typeof request.id === 'string' || Number.isInteger(request.id)).toBe(true);
      expect(request.params).toMatchObject({ message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      assertServerMessage2025(request);
      const before = call.messages.length;

      expect(await answer(url, sessionId, request, { action: 'accept', content: { name: 'Ada' } })).toBe(202);

      const response = await call.nextMatching('the tools/call response', isResponse);
      expect(call.messages.indexOf(response)).toBeGreaterThanOrEqual(before);
      expect(response.id).toBe('call-1');
      expect(response.result).toEqual({ content: [{ type: 'text', text: 'Hello Ada' }] });
      await call.ended;
      expectNoInputRequired(call.messages);
      call.assertValid();
    });

    it('sampling/createMessage and roots/list become real requests too, when the session declared them', async () => {
      const { sessionId } = await legacyInitialize(url, { capabilities: { sampling: {}, roots: {} } });
      const call = await openToolCall(url, sessionId, 'ask-model-and-roots');
      streams.push(call);

      const sampling = await call.nextMatching('sampling/createMessage', isRequestFromServer);
      expect(sampling.method).toBe('sampling/createMessage');
      expect(sampling.params).toMatchObject({ maxTokens: 20 });
      expect(await answer(url, sessionId, sampling, { role: 'assistant', content: { type: 'text', text: 'hi!' }, model: 'test-model' })).toBe(202);

      const roots = await call.nextMatching('roots/list', isRequestFromServer);
      expect(roots.method).toBe('roots/list');
      expect(roots.id).not.toBe(sampling.id);
      expect(await answer(url, sessionId, roots, { roots: [{ uri: 'file:///home/ada', name: 'home' }] })).toBe(202);

      const response = await call.nextMatching('the tools/call response', isResponse);
      expect(response.result).toEqual({ content: [{ type: 'text', text: 'model said hi!; roots file:///home/ada' }] });
      await call.ended;
      expectNoInputRequired(call.messages);
      call.assertValid();
    });

    it('a tool that asks what the session did not declare is a tool error naming the capability (2025-11-25 has no -32021), and sends no request', async () => {
      const { sessionId } = await legacyInitialize(url, { capabilities: {} });
      const call = await openToolCall(url, sessionId, 'ask-name');
      streams.push(call);
      const response = await call.nextMatching('the tools/call response', isResponse);
      expect(call.status).toBe(200);
      expect(call.messages.filter(isRequestFromServer)).toEqual([]);
      expect(response.error).toBeUndefined();
      const result = response.result as Json;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('elicitation');
      expect(JSON.stringify(response)).not.toContain('-32021');
      call.assertValid();
    });

    it('a prompt that asks what the session did not declare is -32603 naming the capability (2025-11-25 has no -32021)', async () => {
      const { sessionId } = await legacyInitialize(url, { capabilities: {} });
      const reply = await sessionRequest(url, sessionId, 'prompts/get', { name: 'ask-tone' });
      const error = reply.response!.error as Json;
      expect(error.code).toBe(-32603);
      expect(error.message).toContain('elicitation');
    });

    it('a hand-written input-required flow (questions, then state only) is fulfilled with real requests and run again in process', async () => {
      const { sessionId } = await legacyInitialize(url, { capabilities: { elicitation: {} } });
      const call = await openToolCall(url, sessionId, 'manual-flow');
      streams.push(call);
      const request = await call.nextMatching('elicitation/create', isRequestFromServer);
      expect(request.params).toMatchObject({ message: 'Who are you?' });
      expect(await answer(url, sessionId, request, { action: 'accept', content: { name: 'Grace' } })).toBe(202);
      const response = await call.nextMatching('the tools/call response', isResponse);
      expect(response.result).toEqual({ content: [{ type: 'text', text: 'manual flow done for Grace' }] });
      expect(call.messages.filter(isRequestFromServer)).toHaveLength(1);
      expectNoInputRequired(call.messages);
      call.assertValid();
    });

    it('an answer POST for no pending request is refused (not 202)', async () => {
      const { sessionId } = await legacyInitialize(url);
      const status = await answer(url, sessionId, { id: 987654, method: 'elicitation/create' }, { action: 'cancel' });
      expect(status).toBeGreaterThanOrEqual(400);
    });

    it('an answer POST with an unknown session id gets 404', async () => {
      const status = await answer(url, 'no-such-session-77', { id: 1, method: 'elicitation/create' }, { action: 'cancel' });
      expect(status).toBe(404);
    });
  });
});

describe('answers that never come (legacy.answerTimeoutMs)', () => {
  let running: RunningHttpServer;
  let url: string;
  const streams: LegacyStream[] = [];
  beforeAll(async () => {
    running = await startHttp(buildServer({ legacy: { answerTimeoutMs: 300 } }));
    url = running.url;
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await running.close();
  });

  async function unanswered(): Promise<{ call: LegacyStream; request: Json; response: Json }> {
    const { sessionId } = await legacyInitialize(url);
    const call = await openToolCall(url, sessionId, 'ask-name');
    streams.push(call);
    const request = await call.nextMatching('elicitation/create', isRequestFromServer);
    // Never answered: the call must end on its own with an error, not hang.
    const response = await call.nextMatching('the tools/call response', isResponse);
    await call.ended;
    return { call, request, response };
  }

  it('the tool call fails with a clear timeout error after answerTimeoutMs, never input_required', async () => {
    const { call, request, response } = await unanswered();
    expect(request.method).toBe('elicitation/create');
    expectNoInputRequired(call.messages);
    call.assertValid();
    const error = response.error as Json | undefined;
    const result = response.result as Json | undefined;
    const text = error ? String(error.message) : JSON.stringify(result?.content);
    expect(error !== undefined || result?.isError === true, `the call must fail: ${JSON.stringify(response)}`).toBe(true);
    expect(text).toMatch(/elicitation\/create/);
    expect(text).toMatch(/did not answer|timed? ?out/i);
  });

  it('the timeout error uses no code from -32000…-32019 (spec §6: implementations SHOULD NOT use that range)', async () => {
    const { response } = await unanswered();
    const code = (response.error as Json | undefined)?.code as number | undefined;
    if (code !== undefined) expect(code > -32000 || code < -32019, `code ${code}`).toBe(true);
  });
});

describe('session limits', () => {
  it('idleTimeoutMs ends an idle session (later requests get 404)', async () => {
    const running = await startHttp(buildServer({ legacy: { idleTimeoutMs: 200 } }));
    try {
      const { sessionId } = await legacyInitialize(running.url);
      expect(resultOf(await sessionRequest(running.url, sessionId, 'ping'))).toStrictEqual({});
      // Any request would count as activity, so wait once, generously, then look.
      await quietPeriod(3_000);
      const after = await sessionRequest(running.url, sessionId, 'ping');
      expect(after.status).toBe(404);
    } finally {
      await running.close();
    }
  });
  // How many sessions a caller and the server hold, and which may end to make room: session-limits.test.ts.
});

describe('a 2026-only server (legacy: false)', () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    running = await startHttp(buildServer({ legacy: false }));
  });
  afterAll(async () => {
    await running.close();
  });

  it('refuses a 2025 initialize (400), names the versions it supports, and mints no session', async () => {
    const reply = await legacyPost(
      running.url,
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'old', version: '1' } } },
      {},
      { skipValidation: true },
    );
    expect(reply.status).toBe(400);
    expect(reply.headers.get('mcp-session-id')).toBeNull();
    const error = errorOf(reply);
    expect(JSON.stringify(error.data ?? error.message)).toContain('2026-07-28');
  });

  it('answers GET and DELETE with 405', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await fetch(running.url, { method, headers: { accept: 'text/event-stream', ...sessionHeaders('anything') } });
      await res.arrayBuffer();
      expect(res.status, method).toBe(405);
    }
  });

  it('still serves 2026 requests', async () => {
    const reply = await rpc(running.url, 'tools/call', { name: 'echo', arguments: { text: 'modern' } });
    expect(resultOf(reply)).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'modern' }] });
  });
});
