/**
 * The client and the Tasks extension (spec §14, ext-tasks client rules)
 * against Tessera's own task server over real HTTP: a task tool called with
 * and without the extension returns what a call without a task would; a task
 * that asks is answered through the app's handlers and `tasks/update`; the
 * caller's signal sends `tasks/cancel`; a failed task throws its JSON-RPC
 * error; an expired one a TaskError; status changes are observed; and the
 * manual API (begin → task, getTask, updateTask, cancelTask, waitForTask)
 * keeps a task across clients.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  McpError,
  TaskError,
  type ClientOptions,
  type InputContext,
  type TaskUpdate,
} from '../../src/client.js';
import { type RunningHttpServer } from '../../src/node.js';
import { startHttp } from '../helpers/http.js';
import { buildTaskServer, type TaskServer } from '../helpers/task-server.js';
import { deferred } from '../helpers/deferred.js';
import { eventually } from '../helpers/tasks.js';

const INFO = { name: 'task-client-tests', version: '1.0.0' };
let fx: TaskServer;
let running: RunningHttpServer;
/** Every request the clients sent, by method, with its headers (recorded by the fetch every client here uses). */
const sent: Array<{ method: string; headers: Headers; body: Record<string, any> }> = [];
const clients: Client[] = [];

const recordingFetch: typeof fetch = async (input, init) => {
  const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, any>) : {};
  sent.push({ method: String(body.method ?? ''), headers: new Headers(init?.headers), body });
  return fetch(input, init);
};

beforeAll(async () => {
  fx = buildTaskServer({ tasks: { pollIntervalMs: 20 } });
  running = await startHttp(fx.server);
});

afterAll(async () => {
  for (const client of clients) await client.close();
  fx.gates.openAll();
  await running.close();
  fx.server.close();
});

async function connect(options: ClientOptions = {}): Promise<Client> {
  const client = new Client(INFO, { tasks: { minPollIntervalMs: 10, ...options.tasks }, ...withoutTasks(options) });
  clients.push(client);
  return client.connect(running.url, { fetch: recordingFetch });
}

function withoutTasks(options: ClientOptions): ClientOptions {
  const { tasks: _tasks, ...rest } = options;
  return rest;
}

const text = (result: { content?: unknown }): string => ((result.content as Array<{ text?: string }>)[0]?.text ?? '');

function requestsFor(taskId: string, method: string): Array<(typeof sent)[number]> {
  return sent.filter((r) => r.method === method && r.body.params?.taskId === taskId);
}

describe('a task tool, with and without the extension', () => {
  it('declares the extension by default and returns the task result as a plain call would', async () => {
    const client = await connect();
    expect(client.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    const call = client.callTool('gated', { id: 'plain-1' });
    await eventually('the task started', () => fx.work.has('plain-1'));
    fx.gates.open('plain-1');
    const result = await call;
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'gated plain-1 done' }] });
    const taskId = fx.work.get('plain-1')!.taskId;
    const polls = requestsFor(taskId, 'tasks/get');
    expect(polls.length).toBeGreaterThan(0);
    // Task requests carry Mcp-Name: <taskId> and declare the extension (spec §14.3, §14.1).
    for (const poll of polls) {
      expect(poll.headers.get('mcp-name')).toBe(taskId);
      expect(poll.headers.get('mcp-method')).toBe('tasks/get');
      expect(poll.body.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    }
  });

  it('without the extension, an optional task tool runs inline and a task-only tool is -32021', async () => {
    const client = await connect({ tasks: { declare: false } });
    expect(client.capabilities.extensions).toBeUndefined();
    fx.gates.open('inline-1');
    expect(text(await client.callTool('gated', { id: 'inline-1' }))).toBe('gated inline-1 done');
    const error = await client.callTool('must_task').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32021);
    expect((error as McpError).data).toEqual({ requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
  });

  it('calls a task-only tool when the extension is declared', async () => {
    const client = await connect();
    expect(text(await client.callTool('must_task'))).toBe('required work done');
  });

  it('returns a tool error (isError) of a completed task as the result, and structured content as given', async () => {
    const client = await connect();
    fx.gates.open('iserr');
    const failed = await client.callTool('outcome', { id: 'iserr', kind: 'isError' });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe('the tool failed on purpose');
    expect((await client.callTool('structured', { n: 21 })).structuredContent).toEqual({ doubled: 42 });
  });

  it('answers input rounds first, then follows the task they lead to (spec §7.9)', async () => {
    const client = await connect({ elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } });
    expect(text(await client.callTool('rounds_then_task'))).toBe('Task finished for Ada');
  });
});

describe('a task that asks during its work', () => {
  it('sends the question to the form handler (with the task id) and the answer with tasks/update', async () => {
    const asked: InputContext[] = [];
    const client = await connect({
      elicitation: {
        form: (params, context) => {
          asked.push(context);
          expect(params.message).toBe('Proceed?');
          return { action: 'accept', content: { confirm: true } };
        },
      },
    });
    expect(text(await client.callTool('confirm', { id: 'ask-1' }))).toBe('Confirmed: yes');
    const taskId = fx.work.get('ask-1')!.taskId;
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ taskId, method: 'tools/call', era: 'modern', round: 1, params: { name: 'confirm', arguments: { id: 'ask-1' } } });
    const updates = requestsFor(taskId, 'tasks/update');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.body.params.inputResponses).toEqual({ [asked[0]!.key]: { action: 'accept', content: { confirm: true } } });
    expect(updates[0]!.headers.get('mcp-name')).toBe(taskId);
  });

  it('answers two questions asked at once in one tasks/update, and a question asked again under a new key', async () => {
    const keys: string[] = [];
    const client = await connect({
      elicitation: {
        form: (params, context) => {
          keys.push(context.key);
          return { action: 'accept', content: { name: params.message.startsWith('First') ? 'Ada' : 'Grace' } };
        },
      },
    });
    expect(text(await client.callTool('two_questions', { id: 'two-1' }))).toBe('Got Ada and Grace');
    const taskId = fx.work.get('two-1')!.taskId;
    expect(Object.keys(requestsFor(taskId, 'tasks/update')[0]!.body.params.inputResponses).sort()).toEqual([...keys].sort());
    keys.length = 0;
    expect(text(await client.callTool('ask_twice', { id: 'twice-1' }))).toBe('steps Grace, Grace');
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
  });
});

describe('ending a task', () => {
  it("cancels the task with tasks/cancel when the caller's signal aborts", async () => {
    const client = await connect();
    const controller = new AbortController();
    const created = deferred<void>();
    // Aborted once the client holds the task (before that, aborting drops the tools/call itself).
    const call = client.callTool('gated', { id: 'cancel-1' }, { signal: controller.signal, onTask: () => created.resolve() });
    await created.promise;
    const reason = new Error('the user closed the window');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    const work = fx.work.get('cancel-1')!;
    expect(requestsFor(work.taskId, 'tasks/cancel')).toHaveLength(1);
    expect(work.signal.aborted).toBe(true);
    expect((await client.getTask(work.taskId)).status).toBe('cancelled');
  });

  it('throws the JSON-RPC error of a failed task, code, message and data as sent', async () => {
    const client = await connect();
    fx.gates.open('fail-1');
    fx.gates.open('fail-2');
    const invalid = await client.callTool('outcome', { id: 'fail-1', kind: 'mcpError' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(McpError);
    expect(invalid).toMatchObject({ code: -32602, message: 'The job could not run with these parameters' });
    const quota = await client.callTool('outcome', { id: 'fail-2', kind: 'appError' }).catch((e: unknown) => e);
    expect(quota).toMatchObject({ code: 4001, message: 'Quota exceeded', data: { retryAfterMs: 1000 } });
  });

  it('throws a TaskError (expired) for a task the server forgets when its ttl runs out, and sends no cancel', async () => {
    const client = await connect();
    const error = await client.callTool('short_ttl', { id: 'expire-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskError);
    const taskId = fx.work.get('expire-1')!.taskId;
    expect(error).toMatchObject({ reason: 'expired', taskId });
    expect(requestsFor(taskId, 'tasks/cancel')).toHaveLength(0);
  });

  it('reports status changes to onTask, and stops (cancelling) when it returns false', async () => {
    const seen: TaskUpdate[] = [];
    const client = await connect({
      onTask: (update) => {
        seen.push(update);
      },
      elicitation: { form: () => ({ action: 'accept', content: { confirm: false } }) },
    });
    expect(text(await client.callTool('confirm', { id: 'watch-1' }))).toBe('Confirmed: no');
    const statuses = seen.map((u) => u.task.status);
    expect(statuses[0]).toBe('working');
    expect(statuses).toContain('input_required');
    expect(statuses.at(-1)).toBe('completed');
    // Only changes are reported, not every poll.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.task.status === seen[i - 1]!.task.status && seen[i]!.task.statusMessage === seen[i - 1]!.task.statusMessage).toBe(false);
    expect(seen[0]).toMatchObject({ method: 'tools/call', params: { name: 'confirm', arguments: { id: 'watch-1' } } });

    const stopper = await connect();
    const stopped = await stopper.callTool('gated', { id: 'watch-2' }, { onTask: () => false }).catch((e: unknown) => e);
    expect(stopped).toMatchObject({ name: 'TaskError', reason: 'stopped' });
    const taskId = (stopped as TaskError).taskId;
    expect(requestsFor(taskId, 'tasks/cancel')).toHaveLength(1);
  });
});

describe('the manual API: a task kept across clients', () => {
  it('begin returns the task; another client gets, answers and finishes it by id', async () => {
    // It declares form elicitation (so the task may ask) but answers nothing itself.
    const first = await connect({ capabilities: { elicitation: { form: {} } } });
    const step = await first.begin('tools/call', { name: 'confirm', arguments: { id: 'manual-1' } });
    if (step.status !== 'task') throw new Error(`expected a task, got ${step.status}`);
    const taskId = step.task.taskId;
    expect(step.task).toMatchObject({ resultType: 'task', status: 'working' });
    await first.close();

    // Later, elsewhere: only the id was kept.
    const second = await connect({ capabilities: { elicitation: { form: {} } } });
    let task = await second.getTask(taskId);
    for (let polls = 0; task.status === 'working' && polls < 1000; polls++) task = await second.getTask(taskId);
    expect(task.status).toBe('input_required');
    const [key] = Object.keys(task.inputRequests!);
    await second.updateTask(taskId, { [key!]: { action: 'accept', content: { confirm: true } } });
    const result = await second.waitForTask(taskId);
    expect(text(result)).toBe('Confirmed: yes');
  });

  it('waitForTask answers questions through the handlers; cancelTask stops a task', async () => {
    const client = await connect({ elicitation: { form: () => ({ action: 'decline' }) } });
    const step = await client.begin('tools/call', { name: 'confirm', arguments: { id: 'manual-2' } });
    if (step.status !== 'task') throw new Error('expected a task');
    expect(text(await client.waitForTask(step.task))).toBe('Confirmed: decline');

    const other = await client.begin('tools/call', { name: 'gated', arguments: { id: 'manual-3' } });
    if (other.status !== 'task') throw new Error('expected a task');
    await client.cancelTask(other.task.taskId);
    expect((await client.getTask(other.task.taskId)).status).toBe('cancelled');
    await expect(client.waitForTask(other.task.taskId)).rejects.toMatchObject({ name: 'TaskError', reason: 'cancelled' });
  });

  it("getTask of an id the server never made throws the server's -32602", async () => {
    const client = await connect();
    await expect(client.getTask('task-never-made')).rejects.toMatchObject({ name: 'McpError', code: -32602 });
  });
});
