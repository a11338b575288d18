/**
 * 2025-11-25 sessions served by two instances sharing Redis (a real
 * redis-server), each on its own HTTP port, as a round-robin proxy would
 * spread one client's requests: the handshake on one and its
 * notifications/initialized on the other; a tool's question on one
 * instance's stream answered by a POST to the other (2025 transports: the
 * answer is a POST in the session, to whichever instance); a cancellation
 * posted to the instance not running the request; a resource subscribed on
 * one, updated on the other, heard on a GET stream held by the first; DELETE
 * on one closing the GET stream held by the other; a request stream broken
 * on one resumed on the other (the events are in Redis); and one instance
 * shutting down without ending the sessions the other still serves.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer } from '../../src/index.js';
import type { RunningHttpServer } from '../../src/node.js';
import { redisStores, type RedisStores } from '../../src/stores/redis/index.js';
import { deferred } from '../helpers/deferred.js';
import { startHttp } from '../helpers/http.js';
import { legacyId, legacyInitialize, legacyPost, openLegacy, sessionHeaders, sessionRequest, type Json } from '../helpers/legacy-http.js';
import { quietLogger, resultOf } from '../helpers/results.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const WATCHED = 'file:///shared/config.json';
const keys = generateStateKey();

let redis: RedisServer;
const opened: RedisStores[] = [];
const running: RunningHttpServer[] = [];
const startedOn: string[] = [];
const cancelledOn: string[] = [];
const released = deferred<void>();

function instance(name: string): McpServer {
  const stores = redisStores({ url: redis.url, prefix: 'sessions:' });
  opened.push(stores);
  const server = new McpServer({ name: `instance-${name}`, version: '1.0.0' }, { logger: quietLogger(), state: { keys }, stores });
  server.tool('ask-name', { description: 'Asks for a name' }, async (_args, ctx) => {
    const answer = await ctx.ask(ask.form('What is your name?', z.object({ name: z.string() })));
    return answer.action === 'accept' ? `${name} greets ${answer.content.name}` : `no name: ${answer.action}`;
  });
  server.tool('wait-for-cancel', { description: 'Runs until cancelled' }, async (_args, ctx) => {
    startedOn.push(name);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        cancelledOn.push(name);
        resolve();
      });
    });
    return 'not cancelled';
  });
  server.tool('pause', { description: 'Progress, a pause, progress' }, async (_args, ctx) => {
    ctx.progress(1, { total: 2 });
    await released.promise;
    ctx.progress(2, { total: 2 });
    return `${name} finished`;
  });
  server.resource({ uri: WATCHED, name: 'shared config', mimeType: 'application/json' }, () => '{"v":1}');
  return server;
}

const isRequestFromServer = (m: Json): boolean => typeof m.method === 'string' && 'id' in m;
const isResponse = (m: Json): boolean => 'result' in m || 'error' in m;

/** A client message on the session (a notification or an answer): the HTTP status it got. */
async function post(url: string, sessionId: string, body: Json): Promise<number> {
  return (await legacyPost(url, body, sessionHeaders(sessionId))).status;
}

let a: { server: McpServer; url: string };
let b: { server: McpServer; url: string };

beforeAll(async () => {
  redis = await startRedis();
  const start = async (name: string) => {
    const server = instance(name);
    const http = await startHttp(server);
    running.push(http);
    return { server, url: http.url };
  };
  a = await start('a');
  b = await start('b');
});

afterAll(async () => {
  await Promise.all(running.map((r) => r.close().catch(() => undefined)));
  await Promise.all(opened.map((s) => s.close()));
  await redis.stop();
});

describe('one 2025 session across two instances sharing Redis', () => {
  it('a question asked on instance A is answered by a POST to instance B; the result arrives on A', async () => {
    // The handshake on A, notifications/initialized on B: A must still know the client is ready to be asked.
    const init = await legacyInitialize(a.url, { initialized: false });
    expect(await post(b.url, init.sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(202);

    const call = await openLegacy(a.url, { body: { jsonrpc: '2.0', id: 'call-a', method: 'tools/call', params: { name: 'ask-name', arguments: {} } }, headers: sessionHeaders(init.sessionId) });
    const request = await call.nextMatching('elicitation/create', isRequestFromServer);
    expect(request.method).toBe('elicitation/create');

    expect(await post(b.url, init.sessionId, { jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name: 'Ada' } } })).toBe(202);
    const response = await call.nextMatching('the tools/call response', isResponse);
    expect(response).toMatchObject({ id: 'call-a', result: { content: [{ type: 'text', text: 'a greets Ada' }] } });
    call.assertValid();
  });

  it('notifications/cancelled posted to B aborts the request running on A, which then sends no response', async () => {
    const { sessionId } = await legacyInitialize(a.url);
    const id = legacyId();
    const opening = openLegacy(a.url, { body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait-for-cancel', arguments: {} } }, headers: sessionHeaders(sessionId) });
    await expect.poll(() => startedOn, { timeout: 5_000 }).toContain('a');
    expect(await post(b.url, sessionId, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'changed my mind' } })).toBe(202);
    await expect.poll(() => cancelledOn, { timeout: 5_000 }).toContain('a');
    const call = await opening;
    await call.ended.catch(() => undefined);
    expect(call.messages.filter(isResponse)).toEqual([]);
  });

  it('a resource subscribed through B and updated on B reaches the GET stream held by A', async () => {
    const { sessionId } = await legacyInitialize(b.url);
    const get = await openLegacy(a.url, { method: 'GET', headers: sessionHeaders(sessionId) });
    expect(get.status).toBe(200);
    expect(resultOf(await sessionRequest(b.url, sessionId, 'resources/subscribe', { uri: WATCHED }))).toStrictEqual({});
    b.server.resourceUpdated(WATCHED);
    const note = await get.nextMatching('resources/updated', (m) => m.method === 'notifications/resources/updated');
    expect(note.params).toEqual({ uri: WATCHED });
    get.assertValid();
    get.close();
  });

  it('DELETE on B ends the session everywhere: the GET stream held by A closes, and A answers 404', async () => {
    const { sessionId } = await legacyInitialize(a.url);
    const get = await openLegacy(a.url, { method: 'GET', headers: sessionHeaders(sessionId) });
    expect(get.status).toBe(200);
    const res = await fetch(b.url, { method: 'DELETE', headers: sessionHeaders(sessionId) });
    expect(res.status).toBe(200);
    await get.ended;
    expect((await sessionRequest(a.url, sessionId, 'ping')).status).toBe(404);
  });

  it('a request stream broken on A is resumed on B with Last-Event-ID: the rest of it, up to the response', async () => {
    const { sessionId } = await legacyInitialize(a.url);
    const call = await openLegacy(a.url, { body: { jsonrpc: '2.0', id: 'call-pause', method: 'tools/call', params: { name: 'pause', arguments: {}, _meta: { progressToken: 'pt' } } }, headers: sessionHeaders(sessionId) });
    await call.nextMatching('progress 1', (m) => m.method === 'notifications/progress');
    const lastSeen = call.events.findLast((e) => e.data.includes('notifications/progress'))!.id!;
    call.close();
    released.resolve();
    const resumed = await openLegacy(b.url, { method: 'GET', headers: { ...sessionHeaders(sessionId), 'last-event-id': lastSeen } });
    expect(resumed.status).toBe(200);
    const response = await resumed.nextMatching('the response', isResponse);
    expect(response).toMatchObject({ id: 'call-pause', result: { content: [{ type: 'text', text: 'a finished' }] } });
    await resumed.ended;
    expect(resumed.messages.map((m) => (m.params as Json | undefined)?.progress ?? m.id)).toEqual([2, 'call-pause']);
  });

  it('an instance shutting down leaves the shared sessions to the others', async () => {
    const server = instance('c');
    const http = await startHttp(server);
    const { sessionId } = await legacyInitialize(http.url);
    const get = await openLegacy(http.url, { method: 'GET', headers: sessionHeaders(sessionId) });
    expect(get.status).toBe(200);
    // A graceful shutdown: the server ends what it holds (the GET stream), then the listener closes.
    server.close();
    await get.ended.catch(() => undefined);
    await http.close();
    const ping = await sessionRequest(a.url, sessionId, 'ping');
    expect(ping.status).toBe(200);
    expect(resultOf(ping)).toStrictEqual({});
  });
});
