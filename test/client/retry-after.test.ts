/**
 * A server that refuses a request with 503 or 429 and `Retry-After` (RFC
 * 9110 §10.2.3) — what Tessera's server answers while Redis is frozen or
 * failing over — is asked again after the wait it names: a real node:http
 * server on 127.0.0.1 answers 503 + Retry-After once, twice, then the result.
 * The retries are bounded (attempts, total wait, the request's deadline), end
 * at once when the caller aborts, and end in an error that says the status,
 * the attempts and the last Retry-After. Without Retry-After, or with a status
 * after which the request may have run (502), nothing is sent again.
 *
 * Seen failing before the retries: every call here rejected on the first 503
 * (McpError -32603, or TransportError 503), and the server saw one request.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { Client, McpError, ServerBusyError, TransportError, type ClientOptions } from '../../src/client.js';
import { parseHttpDate, retryAfterMs } from '../../src/client/retry-after.js';
import { startScriptedHttp, type Json, type ScriptedHttp, type ScriptReply } from '../helpers/scripted-http.js';

const DONE = { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };
/** What Tessera's server answers while Redis cannot be reached (transport/http/core.ts): a JSON-RPC error on 503, with Retry-After. */
const busy = (retryAfter: string | undefined, status = 503): ScriptReply => ({
  status,
  error: { code: -32603, message: 'Server busy: the shared store (Redis) cannot be reached; try again shortly', data: { retryAfterSeconds: 2 } },
  ...(retryAfter === undefined ? {} : { headers: { 'retry-after': retryAfter } }),
});

const opened: Array<{ http: ScriptedHttp; client: Client }> = [];

/** A server whose nth request (0-based) gets `script[n]`, and the result after the script; the time each arrived. */
async function serve(script: ScriptReply[], options: ClientOptions = {}): Promise<{ http: ScriptedHttp; client: Client; arrivals: number[] }> {
  const arrivals: number[] = [];
  const http = await startScriptedHttp((_message: Json, seen) => {
    arrivals.push(Date.now());
    return script[seen.index] ?? { result: DONE };
  });
  const client = await new Client({ name: 'patient', version: '1' }, { era: 'modern', ...options }).connect(http.url);
  opened.push({ http, client });
  return { http, client, arrivals };
}

afterEach(async () => {
  for (const { http, client } of opened.splice(0)) {
    await client.close();
    await http.close();
  }
});

describe('Retry-After values (RFC 9110 §10.2.3, §5.6.7)', () => {
  it('reads delay-seconds and all three HTTP-date forms; anything else is none', () => {
    const at = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(at);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(2026, 0, 1))).toBe(at);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(at);
    expect(parseHttpDate('Sun, 31 Feb 1994 08:49:37 GMT')).toBeUndefined();
    expect(parseHttpDate('2026-12-02T10:00:00Z')).toBeUndefined();
    const now = Date.UTC(2026, 11, 2, 10, 0, 0);
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Wed, 02 Dec 2026 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(0); // already past: at once
    for (const none of [null, '', '-1', '1.5', 'soon', '5s']) expect(retryAfterMs(none, now), String(none)).toBeUndefined();
  });
});

describe('a request answered 503 or 429 with Retry-After', () => {
  it('is sent again after the wait, once: the call completes, the same request both times', async () => {
    const { http, client, arrivals } = await serve([busy('1')]);
    expect(await client.callTool('pay', { amount: 5 })).toMatchObject(DONE);
    expect(http.requests).toHaveLength(2);
    expect(http.requests[1]!.message).toEqual(http.requests[0]!.message);
    // Not before the second the server asked for (a timer may round down by a millisecond).
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(999);
  });

  it('twice (503, then 429), then completes', async () => {
    const { http, client } = await serve([busy('0'), busy('1', 429)]);
    expect(await client.callTool('pay', {})).toMatchObject(DONE);
    expect(http.requests.map((r) => r.message.method)).toEqual(['tools/call', 'tools/call', 'tools/call']);
  });

  it('waits until an HTTP-date', async () => {
    const until = new Date(Date.now() + 2000).toUTCString(); // IMF-fixdate: whole seconds
    const { http, client, arrivals } = await serve([{ status: 503, body: 'maintenance', headers: { 'retry-after': until } }]);
    expect(await client.callTool('pay', {})).toMatchObject(DONE);
    expect(http.requests).toHaveLength(2);
    expect(arrivals[1]!).toBeGreaterThanOrEqual(Date.parse(until) - 1);
  });

  it('gives up after maxAttempts with an error naming the status, the attempts and the last Retry-After', async () => {
    const { http, client } = await serve(Array(10).fill(busy('0')), { busyRetry: { maxAttempts: 3 } });
    const error = await client.callTool('pay', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerBusyError);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ status: 503, attempts: 3, retryAfter: '0', retryAfterMs: 0 });
    const message = (error as Error).message;
    expect(message).toContain(`HTTP 503 from ${http.url} after 3 attempts (the last with Retry-After: 0)`);
    expect(message).toContain('busyRetry.maxAttempts (3)');
    expect(message).toContain('The server said: Server busy: the shared store (Redis) cannot be reached');
    expect(http.requests).toHaveLength(3);
  });

  it('does not wait past maxTotalWaitMs: a wait that would pass it ends the call at once', async () => {
    const { http, client } = await serve([busy('1'), busy('60', 429)], { busyRetry: { maxTotalWaitMs: 10_000 } });
    const error = await client.callTool('pay', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ServerBusyError', status: 429, attempts: 2, retryAfter: '60', retryAfterMs: 60_000 });
    expect((error as Error).message).toContain('would pass busyRetry.maxTotalWaitMs (10000 ms; 1000 ms waited so far)');
    expect(http.requests).toHaveLength(2);
  });

  it("does not wait past the request's own time limit", async () => {
    const { http, client } = await serve([busy('30')]);
    const error = await client.callTool('pay', {}, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ServerBusyError', attempts: 1, retryAfter: '30' });
    expect((error as Error).message).toMatch(/would pass the request's time limit \(\d+ ms left of 5000 ms\)/);
    expect(http.requests).toHaveLength(1);
  });

  it("stops waiting the moment the caller's signal aborts, with its reason, and sends nothing more", async () => {
    const { http, client } = await serve([busy('30')], { busyRetry: { maxTotalWaitMs: 60_000 } });
    const controller = new AbortController();
    const call = client.callTool('pay', {}, { signal: controller.signal, timeoutMs: 120_000 }).catch((e: unknown) => e);
    for (let n = 0; n < 2000 && http.requests.length === 0; n++) await new Promise((resolve) => setTimeout(resolve, 5));
    // The refusal is read, the 30 s wait begun; the abort must end it (this test's 10 s limit is the guard).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reason = new Error('the user gave up');
    controller.abort(reason);
    expect(await call).toBe(reason);
    expect(http.requests).toHaveLength(1);
  }, 10_000);

  it('stops waiting when the client is closed', async () => {
    const { http, client } = await serve([busy('30')]);
    const call = client.callTool('pay', {}).catch((e: unknown) => e);
    for (let n = 0; n < 2000 && http.requests.length === 0; n++) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.close();
    const error = await call;
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toContain('while a request waited to be sent again');
  }, 10_000);
});

describe('what is not sent again', () => {
  it('a 503 without Retry-After: the error as before (the JSON-RPC error it carries), one request', async () => {
    const { http, client } = await serve([busy(undefined)]);
    const error = await client.callTool('pay', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32603 });
    expect(http.requests).toHaveLength(1);
  });

  it('a 503 whose Retry-After is neither seconds nor a date, and a bare 503 page', async () => {
    for (const reply of [busy('soon'), { status: 503, body: 'Service Unavailable' }] as ScriptReply[]) {
      const { http, client } = await serve([reply]);
      const error = await client.callTool('pay', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ServerBusyError);
      expect(http.requests).toHaveLength(1);
    }
  });

  it('a 502 with Retry-After (behind a proxy the request may have run)', async () => {
    const { http, client } = await serve([{ status: 502, body: 'Bad Gateway', headers: { 'retry-after': '0' } }]);
    await expect(client.callTool('pay', {})).rejects.toMatchObject({ name: 'TransportError', status: 502 });
    expect(http.requests).toHaveLength(1);
  });

  it('anything, with busyRetry: false', async () => {
    const { http, client } = await serve([busy('0')], { busyRetry: false });
    await expect(client.callTool('pay', {})).rejects.toBeInstanceOf(McpError);
    expect(http.requests).toHaveLength(1);
  });
});
