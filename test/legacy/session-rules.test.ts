/**
 * 2025-11-25 session rules the conformance suite does not check (issue 18),
 * each from the 2025-11-25 text: an unsupported MCP-Protocol-Version is 400
 * on every request of a session (transports §"Protocol Version Header"); the
 * server offers only revisions it fully serves (2025-03-26 needs batches);
 * after notifications/cancelled no response is sent and nothing is logged as
 * an error (utilities/cancellation); the server sends no request before the
 * client's notifications/initialized (lifecycle, initialization).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { deferred } from '../helpers/deferred.js';
import { startHttp } from '../helpers/http.js';
import { LEGACY_VERSION, legacyId, legacyInitialize, legacyPost, openLegacy, sessionHeaders, type Json } from '../helpers/legacy-http.js';
import { quietLogger } from '../helpers/results.js';

const logger = quietLogger();
const started = { waiting: deferred(), asking: deferred() };
let running: RunningHttpServer;

beforeAll(async () => {
  const server = new McpServer({ name: 'session-rules', version: '1.0.0' }, { logger, state: { keys: generateStateKey() } });
  server.tool('echo', { input: z.object({ text: z.string() }) }, ({ text }) => text);
  server.tool('wait_for_cancel', {}, async (_args, ctx) => {
    started.waiting.resolve();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    throw new Error('stopped by the signal');
  });
  server.tool('ask_name', {}, async (_args, ctx) => {
    started.asking.resolve();
    const answer = await ctx.ask(ask.form('Name?', z.object({ name: z.string() }), { key: 'name' }));
    return answer.action === 'accept' ? `hi ${answer.content.name}` : answer.action;
  });
  running = await startHttp(server);
});

afterAll(async () => {
  await running.close();
});

function call(sessionId: string, name: string, args: Json = {}, version = LEGACY_VERSION, id: string | number = legacyId()) {
  return legacyPost(running.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, sessionHeaders(sessionId, version));
}

describe('MCP-Protocol-Version on a session (2025-11-25 transports)', () => {
  it.each(['1999-01-01', '2025-03-26'])('%s is 400 on POST, GET and DELETE, and the session goes on', async (version) => {
    const { sessionId } = await legacyInitialize(running.url);
    const post = await call(sessionId, 'echo', { text: 'x' }, version);
    expect(post.status).toBe(400);
    expect(post.response?.error?.code).toBe(-32600);
    const get = await openLegacy(running.url, { method: 'GET', headers: sessionHeaders(sessionId, version) });
    expect(get.status).toBe(400);
    get.close();
    const del = await openLegacy(running.url, { method: 'DELETE', headers: sessionHeaders(sessionId, version) });
    expect(del.status).toBe(400);
    const fine = await call(sessionId, 'echo', { text: 'still here' });
    expect(fine.response?.result?.content).toEqual([{ type: 'text', text: 'still here' }]);
  });

  it('2025-03-26 is not offered: a client asking for it is answered 2025-11-25 (that revision requires batches)', async () => {
    const { result } = await legacyInitialize(running.url, { protocolVersion: '2025-03-26' });
    expect(result.protocolVersion).toBe('2025-11-25');
  });
});

describe('cancellation (2025-11-25 utilities/cancellation)', () => {
  it('after notifications/cancelled the request gets no response, and nothing is logged as an error', async () => {
    const { sessionId } = await legacyInitialize(running.url);
    const errorsBefore = logger.errors.length;
    const id = legacyId();
    // The reply's headers come only when it is answered (or streams): open it, and cancel meanwhile.
    const opening = openLegacy(running.url, { body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait_for_cancel', arguments: {} } }, headers: sessionHeaders(sessionId) });
    await started.waiting.promise;
    const note = await legacyPost(running.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'user left' } }, sessionHeaders(sessionId));
    expect(note.status).toBe(202);
    const stream = await opening;
    await stream.ended;
    expect(stream.messages.filter((m) => 'result' in m || 'error' in m)).toEqual([]);
    expect(logger.errors.length).toBe(errorsBefore);
  });
});

describe('initialization (2025-11-25 lifecycle)', () => {
  it('no request goes to the client before its notifications/initialized; then the question goes out', async () => {
    const { sessionId } = await legacyInitialize(running.url, { initialized: false });
    // Nothing is sent on the call's reply until the question is: its headers come with the first message.
    let replied = false;
    const opening = openLegacy(running.url, { body: { jsonrpc: '2.0', id: legacyId(), method: 'tools/call', params: { name: 'ask_name', arguments: {} } }, headers: sessionHeaders(sessionId) });
    void opening.then(() => (replied = true));
    await started.asking.promise;
    // The handler has asked; the server holds the question: a round of echo calls later, still nothing.
    for (let i = 0; i < 3; i++) await legacyPost(running.url, { jsonrpc: '2.0', id: legacyId(), method: 'ping' }, sessionHeaders(sessionId));
    expect(replied).toBe(false);
    const initialized = await legacyPost(running.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders(sessionId));
    expect(initialized.status).toBe(202);
    const stream = await opening;
    const question = await stream.nextMatching('the elicitation', (m) => m.method === 'elicitation/create');
    expect(question.params.message).toBe('Name?');
    stream.close();
  });
});
