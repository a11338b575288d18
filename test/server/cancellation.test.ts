/** Cancellation on Streamable HTTP (spec §10.2): a client disconnect aborts the handler's ctx.signal. */

import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { deferred, type Deferred } from '../helpers/deferred.js';
import { meta, rpc, standardHeaders, startHttp } from '../helpers/http.js';
import { quietLogger, resultOf } from '../helpers/results.js';
import { openStream } from '../helpers/sse-stream.js';

/** What the test can see of one handler run, by key. */
interface Probe {
  started: Deferred<void>;
  aborted: Deferred<void>;
  release: Deferred<void>;
  signal?: AbortSignal;
}

const probes = new Map<string, Probe>();
function probe(key: string): Probe {
  const p: Probe = { started: deferred(), aborted: deferred(), release: deferred() };
  probes.set(key, p);
  return p;
}

describe('cancellation by closing the HTTP request', () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    const server = new McpServer({ name: 'cancel-test', version: '1.0.0' }, { logger: quietLogger() });
    server.tool('wait', { input: z.object({ key: z.string(), stream: z.boolean().optional() }) }, async ({ key, stream }, ctx) => {
      const p = probes.get(key)!;
      p.signal = ctx.signal;
      // Side channel: the test learns of the abort through this promise, not through the wire.
      if (ctx.signal.aborted) p.aborted.resolve();
      ctx.signal.addEventListener('abort', () => p.aborted.resolve(), { once: true });
      if (stream) ctx.progress(1, { message: 'working' });
      p.started.resolve();
      await Promise.race([p.release.promise, p.aborted.promise]);
      return ctx.signal.aborted ? 'cancelled' : 'finished';
    });
    // Looks at ctx.signal only once released, after the client has gone.
    server.tool('late', { input: z.object({ key: z.string() }) }, async ({ key }, ctx) => {
      const p = probes.get(key)!;
      p.started.resolve();
      await p.release.promise;
      p.signal = ctx.signal;
      p.aborted.resolve();
      return 'too late';
    });
    server.tool('quick', {}, () => 'still here');
    running = await startHttp(server);
  });
  afterAll(() => running.close());

  async function stillServing(): Promise<void> {
    const reply = await rpc(running.url, 'tools/call', { name: 'quick' });
    expect(reply.status).toBe(200);
    expect(resultOf(reply).content).toEqual([{ type: 'text', text: 'still here' }]);
  }

  it('aborts ctx.signal when the client drops the request before any byte of the reply', async () => {
    const p = probe('before-reply');
    const controller = new AbortController();
    const pending = rpc(running.url, 'tools/call', { name: 'wait', arguments: { key: 'before-reply' } }, { signal: controller.signal });
    await p.started.promise;
    expect(p.signal?.aborted).toBe(false);
    controller.abort();
    await expect(pending).rejects.toThrow();
    // Hangs (and the test times out) if the server never notices the disconnect.
    await p.aborted.promise;
    expect(p.signal?.aborted).toBe(true);
    await stillServing();
  });

  it('aborts ctx.signal when the client closes an SSE response stream mid-request', async () => {
    const p = probe('mid-stream');
    const stream = await openStream(running.url, 'tools/call', {
      name: 'wait',
      arguments: { key: 'mid-stream', stream: true },
      _meta: meta({ progressToken: 'cancel-me' }),
    });
    expect(stream.contentType).toContain('text/event-stream');
    const first = await stream.next();
    expect(first.method).toBe('notifications/progress');
    stream.close();
    await p.aborted.promise;
    expect(p.signal?.aborted).toBe(true);
    await stillServing();
  });

  it('gives an aborted ctx.signal to a handler that first looks after the client has gone', async () => {
    const p = probe('late');
    // A connection of its own, so the test can see the server's end of it close.
    const closed = new Promise<void>((resolve) => running.server.once('connection', (socket) => socket.once('close', () => resolve())));
    const fullParams = { name: 'late', arguments: { key: 'late' }, _meta: meta() };
    const request = httpRequest(running.url, { method: 'POST', agent: false, headers: standardHeaders('tools/call', fullParams) });
    request.on('error', () => undefined);
    request.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: fullParams }));
    await p.started.promise;
    request.destroy();
    await closed;
    p.release.resolve();
    await p.aborted.promise;
    expect(p.signal?.aborted).toBe(true);
    await stillServing();
  });

  it('aborts only the request that was cancelled', async () => {
    const cancelled = probe('one');
    const kept = probe('two');
    const controller = new AbortController();
    const doomed = rpc(running.url, 'tools/call', { name: 'wait', arguments: { key: 'one' } }, { signal: controller.signal });
    const survivor = rpc(running.url, 'tools/call', { name: 'wait', arguments: { key: 'two' } });
    await Promise.all([cancelled.started.promise, kept.started.promise]);
    controller.abort();
    await expect(doomed).rejects.toThrow();
    await cancelled.aborted.promise;
    expect(kept.signal?.aborted).toBe(false);
    kept.release.resolve();
    const reply = await survivor;
    expect(resultOf(reply).content).toEqual([{ type: 'text', text: 'finished' }]);
    expect(kept.signal?.aborted).toBe(false);
  });

  it('keeps serving after many cancelled requests', async () => {
    for (let i = 0; i < 5; i++) {
      const p = probe(`many-${i}`);
      const controller = new AbortController();
      const pending = rpc(running.url, 'tools/call', { name: 'wait', arguments: { key: `many-${i}` } }, { signal: controller.signal });
      await p.started.promise;
      controller.abort();
      await expect(pending).rejects.toThrow();
      await p.aborted.promise;
    }
    await stillServing();
  });
});
