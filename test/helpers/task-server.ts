/**
 * A server with task-capable tools for the Tasks extension tests, built with
 * the public API only. Task work waits on gates the test opens, so every
 * status can be observed without timing assumptions; what the work saw (its
 * task id, its signal, whether it finished) is recorded for the test to read.
 */

import { z } from 'zod';
import { ask, McpError, McpServer, toolError, type McpServerOptions, type TaskContext } from '../../src/index.js';
import { quietLogger } from './results.js';
import { Gates, untilOpenOrAborted } from './tasks.js';

export interface WorkRecord {
  taskId: string;
  signal: AbortSignal;
  finished: boolean;
}

export interface TaskServer {
  server: McpServer;
  gates: Gates;
  /** What each run of task work saw, by the `id` argument it was called with. */
  work: Map<string, WorkRecord>;
  logger: ReturnType<typeof quietLogger>;
}

const confirmForm = z.object({ confirm: z.boolean() });
const nameForm = z.object({ name: z.string() });

export function buildTaskServer(options: McpServerOptions = {}): TaskServer {
  const logger = quietLogger();
  const server = new McpServer({ name: 'tasks-test', version: '1.0.0' }, { logger, ...options });
  const gates = new Gates();
  const work = new Map<string, WorkRecord>();
  const record = (id: string, task: TaskContext): WorkRecord => {
    const entry: WorkRecord = { taskId: task.taskId, signal: task.signal, finished: false };
    work.set(id, entry);
    return entry;
  };

  server.tool('plain', { description: 'Not a task tool' }, () => 'plain result');

  // Waits for its gate (or the task's cancellation), then answers.
  server.tool('gated', { input: z.object({ id: z.string() }), task: 'optional' }, ({ id }, ctx) =>
    ctx.task(async (task) => {
      const entry = record(id, task);
      await untilOpenOrAborted(gates.get(id), task.signal);
      entry.finished = true;
      return `gated ${id} done`;
    }),
  );

  // Ignores cancellation: finishes when its gate opens, whatever happened meanwhile.
  server.tool('stubborn', { input: z.object({ id: z.string() }), task: 'optional' }, ({ id }, ctx) =>
    ctx.task(async (task) => {
      const entry = record(id, task);
      await gates.get(id).promise;
      entry.finished = true;
      return `stubborn ${id} done`;
    }),
  );

  // Ends in the requested way, once its gate opens.
  server.tool(
    'outcome',
    {
      input: z.object({ id: z.string(), kind: z.enum(['text', 'isError', 'mcpError', 'appError', 'plainError', 'reservedError', 'direct']) }),
      task: 'optional',
    },
    ({ id, kind }, ctx) => {
      if (kind === 'direct') return 'answered without a task';
      return ctx.task(async (task) => {
        const entry = record(id, task);
        await untilOpenOrAborted(gates.get(id), task.signal);
        entry.finished = true;
        switch (kind) {
          case 'text':
            return 'outcome text';
          case 'isError':
            return toolError('the tool failed on purpose');
          case 'mcpError':
            throw McpError.invalidParams('The job could not run with these parameters');
          case 'appError':
            throw new McpError(4001, 'Quota exceeded', { retryAfterMs: 1000 });
          case 'plainError':
            throw new Error('secret-database-password leaked in a stack');
          default:
            // -32042 was removed in 2026-07-28 (§6): a server must never send it.
            throw new McpError(-32042, 'URL elicitation required', { elicitations: [] });
        }
      });
    },
  );

  server.tool(
    'structured',
    { input: z.object({ n: z.number() }), output: z.object({ doubled: z.number() }), task: 'optional' },
    ({ n }, ctx) => ctx.task(async () => ({ structuredContent: { doubled: n * 2 } })),
  );

  server.tool('must_task', { task: 'required' }, (_args, ctx) => ctx.task(async () => 'required work done'));

  // Uses ctx.task but does not take part in the extension: always inline.
  server.tool('inline_only', {}, (_args, ctx) => ctx.task(async (task) => `inline, taskId '${task.taskId}'`));

  // Two lifetimes, to see each task keep its own ttlMs.
  for (const [name, ttlMs, text] of [
    ['short_ttl', 200, 'short'],
    ['long_ttl', 1000, 'long'],
  ] as const) {
    server.tool(name, { input: z.object({ id: z.string() }), task: 'optional' }, ({ id }, ctx) =>
      ctx.task(
        async (task) => {
          record(id, task);
          await untilOpenOrAborted(gates.get(id), task.signal);
          return text;
        },
        { ttlMs, pollIntervalMs: 50 },
      ),
    );
  }

  // Asks during the task (inline: an ordinary input round).
  server.tool('confirm', { input: z.object({ id: z.string() }), task: 'optional' }, ({ id }, ctx) =>
    ctx.task(async (task) => {
      const entry = record(id, task);
      const answer = await task.ask(ask.form('Proceed?', confirmForm, { key: 'confirm' }));
      entry.finished = true;
      if (answer.action !== 'accept') return `Confirmed: ${answer.action}`;
      return `Confirmed: ${answer.content.confirm ? 'yes' : 'no'}`;
    }),
  );

  // Two questions at once.
  server.tool('two_questions', { input: z.object({ id: z.string() }), task: 'optional' }, ({ id }, ctx) =>
    ctx.task(async (task) => {
      record(id, task);
      const answers = await task.ask({
        first: ask.form('First name?', nameForm, { key: 'first' }),
        second: ask.form('Second name?', nameForm, { key: 'second' }),
      });
      const name = (a: (typeof answers)['first']): string => (a.action === 'accept' ? a.content.name : a.action);
      return `Got ${name(answers.first)} and ${name(answers.second)}`;
    }),
  );

  // The same question (same key option) asked twice in a row.
  server.tool('ask_twice', { input: z.object({ id: z.string() }), task: 'optional' }, ({ id }, ctx) =>
    ctx.task(async (task) => {
      record(id, task);
      const a = await task.ask(ask.form('Step?', nameForm, { key: 'step' }));
      const b = await task.ask(ask.form('Step?', nameForm, { key: 'step' }));
      const read = (x: typeof a): string => (x.action === 'accept' ? x.content.name : x.action);
      return `steps ${read(a)}, ${read(b)}`;
    }),
  );

  // Input rounds first (MRTR), then a task.
  server.tool('rounds_then_task', { task: 'optional' }, async (_args, ctx) => {
    const answer = await ctx.ask(ask.form('What is your name?', nameForm, { key: 'user_name' }));
    const who = answer.action === 'accept' ? answer.content.name : 'stranger';
    return ctx.task(async () => `Task finished for ${who}`);
  });

  return { server, gates, work, logger };
}
