/**
 * A task whose creating request is cancelled before the CreateTaskResult
 * reaches the client. On HTTP a client cancels by dropping the request, and
 * the server MUST treat the disconnect as cancellation (2026-07-28
 * cancellation, §10.2); had the task run on, nobody would ever learn its id to
 * send `tasks/cancel` (Tasks extension: tasks are cancelled with
 * `tasks/cancel`, never by `notifications/cancelled`). So the server cancels
 * it itself.
 */

import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer, MemoryTaskStore, type TaskCreation, type TaskData } from '../../src/index.js';
import type { RunningHttpServer } from '../../src/node.js';
import { deferred, type Deferred } from '../helpers/deferred.js';
import { rpc, standardHeaders, startHttp } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';
import { taskMeta } from '../helpers/tasks.js';

/** A memory store whose `create` waits for the test: the window between the request and its CreateTaskResult, held open. */
class HeldCreation extends MemoryTaskStore {
  readonly created: string[] = [];
  entered: Deferred<void> = deferred();
  release: Deferred<void> = deferred();

  override async create(task: TaskData, maxPerPrincipal: number): Promise<TaskCreation> {
    this.created.push(task.taskId);
    this.entered.resolve();
    await this.release.promise;
    return super.create(task, maxPerPrincipal);
  }
}

const store = new HeldCreation();
let running: RunningHttpServer;

beforeAll(async () => {
  const server = new McpServer({ name: 'abandoned', version: '1.0.0' }, { logger: quietLogger(), stores: { tasks: store } });
  // Work that never ends by itself: only a cancellation stops it.
  server.tool('work', { task: 'required' }, (_args, ctx) => ctx.task(async (task) => new Promise<string>((_, reject) => task.signal.addEventListener('abort', () => reject(task.signal.reason)))));
  running = await startHttp(server);
});

afterAll(async () => {
  store.release.resolve();
  await running.close();
});

async function statusOf(taskId: string): Promise<string | undefined> {
  return (await store.get(taskId))?.status;
}

describe('a task whose creating request was cancelled', () => {
  it('is cancelled by the server when the client drops the request before the CreateTaskResult', async () => {
    store.entered = deferred();
    store.release = deferred();
    const params = { name: 'work', arguments: {}, _meta: taskMeta() };
    // node:http, so that dropping the request closes its connection at once.
    const sent = request(running.url, { method: 'POST', headers: standardHeaders('tools/call', params) });
    const closed = new Promise<void>((resolve) => sent.on('close', resolve));
    sent.on('error', () => undefined);
    sent.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }));
    await store.entered.promise;
    sent.destroy();
    await closed;
    // The server has seen the disconnect once the connection is gone on its side too.
    await expect.poll(() => new Promise<number>((resolve) => running.server.getConnections((_, n) => resolve(n))), { timeout: 10_000 }).toBe(0);
    store.release.resolve();
    const taskId = store.created.at(-1)!;
    await expect.poll(() => statusOf(taskId), { timeout: 5_000 }).toBe('cancelled');
    expect((await store.get(taskId))?.statusMessage).toContain('before the task id reached the client');
  });

  it('runs on when the client received the CreateTaskResult (the control)', async () => {
    store.entered = deferred();
    store.release = deferred();
    store.release.resolve();
    const reply = await rpc(running.url, 'tools/call', { name: 'work', arguments: {}, _meta: taskMeta() });
    const result = reply.response!.result as { resultType: string; taskId: string };
    expect(result.resultType).toBe('task');
    expect(await statusOf(result.taskId)).toBe('working');
  });
});
