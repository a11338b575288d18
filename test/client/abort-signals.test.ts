/**
 * A caller's AbortSignal given to many calls (one per user session, say) is
 * not left holding a listener per call: the client's signals follow it
 * without registering on it, across 1,000 calls and across task calls.
 * Aborting it still cancels the call in flight.
 */

import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/index.js';
import { Client } from '../../src/client.js';
import { type RunningHttpServer } from '../../src/node.js';
import { deferred } from '../helpers/deferred.js';
import { startHttp } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';

let running: RunningHttpServer;
const started = deferred();

beforeAll(async () => {
  const server = new McpServer({ name: 'signals', version: '1.0.0' }, { logger: quietLogger() });
  server.tool('echo', {}, () => 'hi');
  server.tool('task_echo', { task: 'optional' }, (_args, ctx) => ctx.task(async () => 'task hi', { pollIntervalMs: 1 }));
  server.tool('hang', {}, async (_args, ctx) => {
    started.resolve();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return 'never seen';
  });
  running = await startHttp(server);
});

afterAll(async () => {
  await running.close();
});

describe('a caller signal shared by many calls', () => {
  it('holds no abort listener after 1,000 calls with it (the count stays flat, no MaxListenersExceededWarning)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    const client = await new Client({ name: 'c', version: '1' }).connect(running.url);
    const shared = new AbortController();
    const counts: number[] = [];
    try {
      for (let i = 0; i < 1000; i++) {
        expect((await client.callTool('echo', {}, { signal: shared.signal })).content).toEqual([{ type: 'text', text: 'hi' }]);
        if (i % 100 === 99) counts.push(getEventListeners(shared.signal, 'abort').length);
      }
    } finally {
      process.off('warning', onWarning);
      await client.close();
    }
    expect(counts).toEqual(Array(10).fill(0));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('holds none after 50 task calls with it either (polls, the task listen stream, the waits)', async () => {
    const client = await new Client({ name: 'c', version: '1' }, { tasks: { minPollIntervalMs: 1 } }).connect(running.url);
    const shared = new AbortController();
    for (let i = 0; i < 50; i++) expect((await client.callTool('task_echo', {}, { signal: shared.signal })).content).toEqual([{ type: 'text', text: 'task hi' }]);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    await client.close();
  });

  it('still cancels the call in flight when aborted', async () => {
    const client = await new Client({ name: 'c', version: '1' }).connect(running.url);
    const shared = new AbortController();
    const call = client.callTool('hang', {}, { signal: shared.signal });
    await started.promise;
    shared.abort(new Error('the user went away'));
    await expect(call).rejects.toThrow();
    await client.close();
  });
});
