/**
 * Streamable HTTP through the fetch-style handler, in process with web
 * Request/Response (spec §10.1, §10.2, §12.1, §12.2): one JSON body, or an SSE
 * stream whose last event is the response; oversized bodies refused; a client
 * that goes away cancels the handler.
 */

import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { McpServer, protectedResource } from '../../src/index.js';
import { createFetchHandler } from '../../src/fetch.js';
import { deferred, type Deferred } from '../helpers/deferred.js';
import { meta, standardHeaders } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';
import { assertServerMessage } from '../helpers/wire-schema.js';

const ENDPOINT = 'http://127.0.0.1/mcp';

/** Hooks the tests use to see inside the `wait` tool. */
const waitStarted = new Map<string, Deferred<void>>();
const waitAborted = new Map<string, Deferred<string>>();
const hook = <T>(map: Map<string, Deferred<T>>, tag: string): Deferred<T> => {
  let d = map.get(tag);
  if (!d) map.set(tag, (d = deferred<T>()));
  return d;
};

function buildServer(): McpServer {
  const server = new McpServer({ name: 'fetch-handler', version: '1.0.0' }, { logger: quietLogger() });
  server.tool('echo', { description: 'Says ok' }, () => 'ok');
  server.tool('count', { description: 'Reports progress 1..3 of 3' }, (_args, ctx) => {
    for (const step of [1, 2, 3]) ctx.progress(step, { total: 3, message: `step ${step}` });
    return 'counted';
  });
  server.tool(
    'wait',
    { description: 'Waits until cancelled', input: { type: 'object', properties: { tag: { type: 'string' }, progress: { type: 'boolean' } }, required: ['tag'] } },
    (args, ctx) =>
      new Promise<string>((resolve) => {
        const tag = String(args.tag);
        const onAbort = (): void => {
          hook(waitAborted, tag).resolve(String(ctx.signal.reason ?? 'aborted'));
          resolve('cancelled');
        };
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
        // Starting the stream first lets a client cancel by dropping the SSE body.
        if (args.progress === true) ctx.progress(1, { message: 'started' });
        hook(waitStarted, tag).resolve();
      }),
  );
  return server;
}

function mcpRequest(method: string, params: Record<string, unknown>, init: { id?: string | number; accept?: string; signal?: AbortSignal } = {}): Request {
  const full = { ...params, _meta: (params._meta as Record<string, unknown> | undefined) ?? meta() };
  const headers = standardHeaders(method, full);
  if (init.accept !== undefined) headers.accept = init.accept;
  return new Request(ENDPOINT, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: init.id ?? 1, method, params: full }),
    signal: init.signal,
  });
}

/** Reads an SSE body to its end, returning every JSON-RPC message in order. */
async function readSse(response: Response): Promise<Record<string, unknown>[]> {
  const messages: Record<string, unknown>[] = [];
  const parser = createParser({ onEvent: (event) => messages.push(JSON.parse(event.data) as Record<string, unknown>) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  return messages;
}

describe('createFetchHandler', () => {
  const handle = createFetchHandler(buildServer(), { dnsRebindingProtection: false });

  it('answers a plain request with one JSON response', async () => {
    const response = await handle(mcpRequest('tools/list', {}, { id: 'j-1' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const message = (await response.json()) as Record<string, unknown>;
    assertServerMessage(message, 'tools/list');
    expect(message.id).toBe('j-1');
    expect(message).toHaveProperty('result.tools');
  });

  it('streams progress as SSE and ends the stream with the response', async () => {
    const response = await handle(mcpRequest('tools/call', { name: 'count', _meta: meta({ progressToken: 'p-7' }) }, { id: 's-1' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    // SHOULD: proxies must not buffer the stream.
    expect(response.headers.get('x-accel-buffering')).toBe('no');

    const messages = await readSse(response);
    for (const m of messages) assertServerMessage(m, 'tools/call');
    const last = messages[messages.length - 1]!;
    expect(last.id).toBe('s-1');
    expect(last).toHaveProperty('result.content');

    const notes = messages.slice(0, -1);
    expect(notes.length).toBeGreaterThan(0);
    for (const note of notes) {
      expect(note.method).toBe('notifications/progress');
      expect(note).not.toHaveProperty('id');
      expect((note.params as { progressToken: unknown }).progressToken).toBe('p-7');
    }
    const progress = notes.map((n) => (n.params as { progress: number }).progress);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThan(progress[i - 1]!);
  });

  it('sends no progress without a progressToken', async () => {
    const response = await handle(mcpRequest('tools/call', { name: 'count' }));
    expect(response.headers.get('content-type')).toContain('application/json');
    const message = (await response.json()) as Record<string, unknown>;
    assertServerMessage(message, 'tools/call');
    expect(message).toHaveProperty('result');
  });

  it('answers with JSON when the client accepts only JSON, even if progress was asked for', async () => {
    const response = await handle(
      mcpRequest('tools/call', { name: 'count', _meta: meta({ progressToken: 'p-8' }) }, { accept: 'application/json' }),
    );
    expect(response.headers.get('content-type')).toContain('application/json');
    const message = (await response.json()) as Record<string, unknown>;
    assertServerMessage(message, 'tools/call');
    expect(message).toHaveProperty('result');
  });

  it('refuses a streamed body over maxBodyBytes with 413, without reading it all', async () => {
    const small = createFetchHandler(buildServer(), { dnsRebindingProtection: false, maxBodyBytes: 1024 });
    let pulled = 0;
    // An endless body: only a handler that stops reading can answer at all.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode('x'.repeat(256)));
      },
    });
    const request = new Request(ENDPOINT, {
      method: 'POST',
      headers: standardHeaders('tools/list', undefined),
      body,
      duplex: 'half',
    } as RequestInit & { duplex: 'half' });
    expect(request.headers.get('content-length')).toBeNull();
    const response = await small(request);
    expect(response.status).toBe(413);
    expect(pulled).toBeGreaterThan(0);
  });

  it('refuses a body whose Content-Length is over maxBodyBytes with 413', async () => {
    const small = createFetchHandler(buildServer(), { dnsRebindingProtection: false, maxBodyBytes: 1024 });
    const request = new Request(ENDPOINT, {
      method: 'POST',
      headers: standardHeaders('tools/list', undefined),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta({ 'com.example/pad': 'x'.repeat(2048) }) } }),
    });
    expect((await small(request)).status).toBe(413);
  });

  it('with auth, refuses two Authorization lines (Headers joins them with ", ") with 400 invalid_request', async () => {
    const guarded = createFetchHandler(buildServer(), {
      dnsRebindingProtection: false,
      // Port 1: nothing listens, so a token that got as far as the verifier would be a 503, not a 400.
      auth: protectedResource({ issuer: 'http://127.0.0.1:1', resource: ENDPOINT }),
    });
    for (const second of ['Bearer junk', 'Bearer abc', '']) {
      const request = mcpRequest('tools/list', {});
      const headers = new Headers(request.headers);
      headers.append('authorization', 'Bearer abc');
      headers.append('authorization', second);
      const response = await guarded(new Request(request, { headers }));
      expect(response.status, second).toBe(400);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_request"');
    }
  });

  it('aborts the handler signal when the request signal aborts', async () => {
    const controller = new AbortController();
    void handle(mcpRequest('tools/call', { name: 'wait', arguments: { tag: 'req-abort' } }, { signal: controller.signal }));
    await hook(waitStarted, 'req-abort').promise;
    controller.abort();
    await expect(hook(waitAborted, 'req-abort').promise).resolves.toBeTypeOf('string');
  });

  it("given Deno's handler info, cancels when `completed` rejects and never reads request.signal (Deno warns when it is read)", async () => {
    const request = mcpRequest('tools/call', { name: 'wait', arguments: { tag: 'deno-undelivered' } });
    let signalRead = 0;
    const signal = request.signal;
    Object.defineProperty(request, 'signal', { get: () => (signalRead++, signal) });
    let undelivered!: (reason: Error) => void;
    const completed = new Promise<void>((_, reject) => (undelivered = reject));
    void handle(request, { completed });
    await hook(waitStarted, 'deno-undelivered').promise;
    undelivered(new Error('HTTP response was not sent successfully'));
    await expect(hook(waitAborted, 'deno-undelivered').promise).resolves.toBeTypeOf('string');
    expect(signalRead).toBe(0);
  });

  it('with a second argument that is no Deno info (a Worker env, a Bun server), still follows request.signal', async () => {
    const controller = new AbortController();
    void handle(mcpRequest('tools/call', { name: 'wait', arguments: { tag: 'env-arg' } }, { signal: controller.signal }), { MY_BINDING: 'x', completed: 'not a promise' });
    await hook(waitStarted, 'env-arg').promise;
    controller.abort();
    await expect(hook(waitAborted, 'env-arg').promise).resolves.toBeTypeOf('string');
  });

  it('aborts the handler signal when the client stops reading the SSE stream', async () => {
    const response = await handle(
      mcpRequest('tools/call', { name: 'wait', arguments: { tag: 'sse-cancel', progress: true }, _meta: meta({ progressToken: 'w' }) }),
    );
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    await hook(waitStarted, 'sse-cancel').promise;
    await response.body!.cancel();
    await expect(hook(waitAborted, 'sse-cancel').promise).resolves.toBeTypeOf('string');
  });
});
