/**
 * Task limits are per caller as well as per server (issue 18): one principal
 * filling its share gets HTTP 429 with Retry-After and an error naming the
 * limit, while every other caller still gets tasks; a full server is 503.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { rpc, startHttp } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';
import { createTask, taskMeta } from '../helpers/tasks.js';

let running: RunningHttpServer;
let full: RunningHttpServer;

function build(tasks: { maxTasks: number; maxTasksPerPrincipal: number }): McpServer {
  const server = new McpServer({ name: 'task-limits', version: '1.0.0' }, { logger: quietLogger(), tasks: { ...tasks, ttlMs: 60_000 } });
  server.tool('work', { task: 'optional' }, (_args, ctx) => ctx.task(async () => new Promise<string>(() => {})));
  return server;
}

const as = (user: string) => ({ headers: { 'x-user': user } });
const authenticate = (header: (name: string) => string | undefined) => header('x-user');

beforeAll(async () => {
  running = await startHttp(build({ maxTasks: 100, maxTasksPerPrincipal: 3 }), { authenticate });
  full = await startHttp(build({ maxTasks: 2, maxTasksPerPrincipal: 10 }), { authenticate });
});

afterAll(async () => {
  await running.close();
  await full.close();
});

describe('task limits (issue 18)', () => {
  it('a caller at its share gets 429 naming tasks.maxTasksPerPrincipal; another caller still gets a task', async () => {
    for (let i = 0; i < 3; i++) await createTask(running.url, 'work', {}, taskMeta(), as('mallory'));
    const refused = await rpc(running.url, 'tools/call', { name: 'work', _meta: taskMeta() }, as('mallory'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const error = refused.response!.error as { code: number; message: string; data: { limit: string; max: number } };
    expect(error.message).toContain('for this caller');
    expect(error.data).toMatchObject({ limit: 'tasks.maxTasksPerPrincipal', max: 3 });
    const other = await createTask(running.url, 'work', {}, taskMeta(), as('alice'));
    expect(other.resultType).toBe('task');
  });

  it('a full server gets 503 naming tasks.maxTasks, whoever asks', async () => {
    await createTask(full.url, 'work', {}, taskMeta(), as('a'));
    await createTask(full.url, 'work', {}, taskMeta(), as('b'));
    const refused = await rpc(full.url, 'tools/call', { name: 'work', _meta: taskMeta() }, as('c'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect((refused.response!.error as { data: { limit: string; max: number } }).data).toMatchObject({ limit: 'tasks.maxTasks', max: 2 });
  });
});
