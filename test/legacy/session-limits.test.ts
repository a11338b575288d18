/**
 * Limits on 2025-11-25 sessions under abuse (issue 18): one caller cannot end
 * another's session or take every slot. Sessions are counted per principal
 * (an authenticated caller) and in total; a refusal names the limit it hit
 * (HTTP 429 for the caller's own share, 503 when the server is full, both
 * with Retry-After). Room for a newcomer is only ever made from its own idle
 * sessions — for an anonymous caller, from half-open handshakes (initialize
 * without notifications/initialized, which every real client sends:
 * 2025-11-25 lifecycle, "Initialization").
 */

import { afterEach, describe, expect, it } from 'vitest';
import { McpServer, type McpServerOptions } from '../../src/index.js';
import { serveHttp, type RunningHttpServer } from '../../src/node.js';
import { legacyId, legacyInitialize, legacyPost, openLegacy, sessionHeaders, LEGACY_VERSION, type Json, type LegacyStream } from '../helpers/legacy-http.js';
import { quietLogger } from '../helpers/results.js';

let running: RunningHttpServer | undefined;
const streams: LegacyStream[] = [];

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await running?.close();
  running = undefined;
});

/** A server that takes the caller from an `x-user` header (none: anonymous). */
async function start(legacy: McpServerOptions['legacy']): Promise<string> {
  const server = new McpServer({ name: 'limits', version: '1.0.0' }, { legacy, logger: quietLogger() });
  running = await serveHttp(server, { port: 0, authenticate: (header) => header('x-user') });
  return running.url;
}

const as = (user: string) => ({ 'x-user': user });

function ping(url: string, sessionId: string, headers: Record<string, string> = {}) {
  return legacyPost(url, { jsonrpc: '2.0', id: legacyId(), method: 'ping' }, { ...sessionHeaders(sessionId), ...headers });
}

/** An initialize that never sends notifications/initialized, as a flood would. */
function halfOpen(url: string, headers: Record<string, string> = {}) {
  return legacyPost(
    url,
    { jsonrpc: '2.0', id: legacyId(), method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'flood', version: '0' } } },
    headers,
  );
}

/** A GET stream keeps the session busy (not idle), so nothing may end it to make room. */
async function keepBusy(url: string, sessionId: string, headers: Record<string, string>): Promise<void> {
  const stream = await openLegacy(url, { method: 'GET', headers: { ...sessionHeaders(sessionId), ...headers } });
  expect(stream.status).toBe(200);
  streams.push(stream);
}

function errorOf(reply: { response?: Json | undefined }): Json {
  expect(reply.response).toHaveProperty('error');
  return reply.response!.error as Json;
}

describe('2025-11-25 session limits', () => {
  it('1,100 anonymous initialize calls (the default 1,000 sessions) do not end an idle, initialized session', async () => {
    const url = await start({});
    const legit = await legacyInitialize(url);
    for (let i = 0; i < 1100; i++) {
      const reply = await halfOpen(url);
      expect(reply.status).toBe(200); // the flood makes room from its own half-open sessions
    }
    expect((await ping(url, legit.sessionId)).status).toBe(200);
  });

  it('when every slot holds an initialized session, a newcomer is refused with 503, Retry-After and the limit named', async () => {
    const url = await start({ maxSessions: 3 });
    const sessions = [await legacyInitialize(url), await legacyInitialize(url), await legacyInitialize(url)];
    const refused = await halfOpen(url);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(errorOf(refused).message).toContain('legacy.maxSessions');
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    for (const session of sessions) expect((await ping(url, session.sessionId)).status).toBe(200);
  });

  it("a caller beyond its share ends its own least recently used idle session, never another caller's", async () => {
    const url = await start({ maxSessionsPerPrincipal: 2 });
    const alice = await legacyInitialize(url, { headers: as('alice') });
    const first = await legacyInitialize(url, { headers: as('mallory') });
    const second = await legacyInitialize(url, { headers: as('mallory') });
    expect((await ping(url, second.sessionId, as('mallory'))).status).toBe(200); // first is now the least recently used
    const third = await legacyInitialize(url, { headers: as('mallory') });
    expect((await ping(url, first.sessionId, as('mallory'))).status).toBe(404);
    expect((await ping(url, second.sessionId, as('mallory'))).status).toBe(200);
    expect((await ping(url, third.sessionId, as('mallory'))).status).toBe(200);
    expect((await ping(url, alice.sessionId, as('alice'))).status).toBe(200);
  });

  it('a caller whose sessions are all busy is refused with 429, Retry-After and the limit named; others still get sessions', async () => {
    const url = await start({ maxSessionsPerPrincipal: 2 });
    for (let i = 0; i < 2; i++) {
      const session = await legacyInitialize(url, { headers: as('mallory') });
      await keepBusy(url, session.sessionId, as('mallory'));
    }
    const refused = await legacyPost(
      url,
      { jsonrpc: '2.0', id: legacyId(), method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'm', version: '0' } } },
      as('mallory'),
    );
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(errorOf(refused).message).toContain('legacy.maxSessionsPerPrincipal');
    const alice = await legacyInitialize(url, { headers: as('alice') });
    expect((await ping(url, alice.sessionId, as('alice'))).status).toBe(200);
  });

  it("a full server makes room for a caller from that caller's idle sessions only", async () => {
    const url = await start({ maxSessions: 3 });
    const alice = await legacyInitialize(url, { headers: as('alice') });
    const bob = await legacyInitialize(url, { headers: as('bob') });
    const carol = await legacyInitialize(url, { headers: as('carol') });
    expect((await halfOpen(url, as('dave'))).status).toBe(503); // nothing of dave's to end
    const aliceAgain = await legacyInitialize(url, { headers: as('alice') });
    expect((await ping(url, alice.sessionId, as('alice'))).status).toBe(404);
    expect((await ping(url, aliceAgain.sessionId, as('alice'))).status).toBe(200);
    expect((await ping(url, bob.sessionId, as('bob'))).status).toBe(200);
    expect((await ping(url, carol.sessionId, as('carol'))).status).toBe(200);
  });
});
