/**
 * Steps (`task.once`) outside resumption (docs/tasks.md, "Tasks that outlive
 * their instance"): in a task on the default store, and inline for a client
 * without the Tasks extension. Each step runs once per name, is given its
 * idempotency key, and must return JSON. A resumable tool on a store that is
 * not shared runs as a plain task.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '../../src/index.js';
import { call } from '../helpers/in-process.js';
import { metaWith, taskMeta, type Json } from '../helpers/tasks.js';
import { quietLogger } from '../helpers/results.js';

function stepServer(): { server: McpServer; runs: string[]; logger: ReturnType<typeof quietLogger> } {
  const runs: string[] = [];
  const logger = quietLogger();
  const server = new McpServer({ name: 'steps', version: '1.0.0' }, { logger });
  server.tool('twice_named', { task: { resume: true } }, (_args, ctx) =>
    ctx.task(async (task) => {
      const first = await task.once('charge', ({ idempotencyKey }) => (runs.push(idempotencyKey), 'charged'));
      // The same name again, even concurrently: the first result, without running again.
      const [again, concurrent] = await Promise.all([
        task.once('charge', ({ idempotencyKey }) => (runs.push(`again ${idempotencyKey}`), 'charged twice')),
        task.once('ship', async ({ idempotencyKey }) => (runs.push(idempotencyKey), { parcels: 2 })),
      ]);
      return `${first}, ${again}, ${concurrent.parcels} parcels, task ${task.taskId}`;
    }),
  );
  server.tool('not_json', { task: 'optional', input: z.object({}) }, (_args, ctx) => ctx.task(async (task) => String(await task.once('loop', () => 10n))));
  return { server, runs, logger };
}

const textOf = (result: Json | undefined): string => ((result?.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

async function settled(server: McpServer, taskId: string): Promise<Json> {
  for (let i = 0; i < 1000; i++) {
    const task = (await call(server, 'tasks/get', { taskId, _meta: taskMeta() })).response.result as Json;
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`task ${taskId} never ended`);
}

describe('task.once', () => {
  it('in a task (a resumable tool on the default store runs as a plain one): each name once, keyed <task id>:<name>', async () => {
    const { server, runs } = stepServer();
    const created = (await call(server, 'tools/call', { name: 'twice_named', arguments: {}, _meta: taskMeta() })).response.result as Json;
    expect(created.resultType).toBe('task');
    const done = await settled(server, created.taskId);
    expect(done.status).toBe('completed');
    expect(textOf(done.result)).toBe(`charged, charged, 2 parcels, task ${created.taskId}`);
    expect(runs).toEqual([`${created.taskId}:charge`, `${created.taskId}:ship`]);
    server.close();
  });

  it('inline, for a client without the Tasks extension: the request’s own step, each name once, with a key of its own', async () => {
    const { server, runs } = stepServer();
    const reply = await call(server, 'tools/call', { name: 'twice_named', arguments: {}, _meta: metaWith({}) });
    const result = reply.response.result as Json;
    expect(result.resultType).toBe('complete');
    expect(textOf(result)).toBe("charged, charged, 2 parcels, task ");
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatch(/^inline-[\w-]+:charge$/);
    expect(runs[1]).toMatch(/^inline-[\w-]+:ship$/);
    server.close();
  });

  it('fails the task when a step returns what JSON cannot hold (the detail in the log)', async () => {
    const { server, logger } = stepServer();
    const created = (await call(server, 'tools/call', { name: 'not_json', arguments: {}, _meta: taskMeta() })).response.result as Json;
    const done = await settled(server, created.taskId);
    expect(done).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(String((logger.errors[0]?.[1] as Error | undefined)?.message)).toMatch(/task\.once\("loop"\) must return a JSON value/);
    server.close();
  });
});
