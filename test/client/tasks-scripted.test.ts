/**
 * The client's Tasks rules (spec §14; ext-tasks "Capability Negotiation",
 * "Task Polling", "Task Update Requests", "Task Cancellation", "Task Status
 * Notifications") against a scripted raw server that records every request:
 * what the client sends while following a task, and what it refuses to act
 * on — a task it did not ask for, a task for a method the extension does not
 * cover, a malformed task, a question it cannot answer.
 */

import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, InputFlowError, McpError, ProtocolViolationError, TaskError, type ClientOptions } from '../../src/client.js';
import { note, startScriptedHttp, type Json, type ScriptedHttp, type ScriptReply } from '../helpers/scripted-http.js';

const INFO = { name: 'scripted-task-tests', version: '1.0.0' };
const TASKS = 'io.modelcontextprotocol/tasks';
const TASK_ID = 'task-0f9a3c';
const NAME_FORM = { type: 'object', properties: { name: { type: 'string', minLength: 2 } }, required: ['name'] };

function task(status: string, extra: Json = {}): Json {
  return { taskId: TASK_ID, status, createdAt: '2026-08-01T10:00:00Z', lastUpdatedAt: '2026-08-01T10:00:00Z', ttlMs: 60_000, pollIntervalMs: 0, ...extra };
}
const created = (extra: Json = {}): Json => ({ resultType: 'task', ...task('working', extra) });
const polled = (status: string, extra: Json = {}): Json => ({ resultType: 'complete', ...task(status, extra) });
const completed = (text: string): Json => polled('completed', { result: { content: [{ type: 'text', text }] } });
const asking = (inputRequests: Json): Json => polled('input_required', { inputRequests });
const formAsk = (message: string): Json => ({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: NAME_FORM } });

interface TaskScript {
  /** What tools/call (or the method called) answers. */
  call?: Json;
  /** The successive tasks/get results (or `{ reply }` for any other reply); the last one repeats. */
  polls?: Array<Json | { reply: ScriptReply }>;
  /** How subscriptions/listen is answered (default: -32601, as by a server that offers no task notifications). */
  listen?: (message: Json) => ScriptReply;
  /** tasks/get results made per poll (1-based), instead of `polls`. */
  poll?: (n: number) => Json;
}

const servers: ScriptedHttp[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(script: TaskScript, options: ClientOptions = {}): Promise<{ http: ScriptedHttp; client: Client; sent: (method?: string) => Json[] }> {
  let poll = 0;
  const polls = script.polls ?? [completed('done')];
  const http = await startScriptedHttp((message) => {
    switch (message.method) {
      case 'tools/call':
      case 'resources/read':
      case 'prompts/get':
        return { result: script.call ?? created() };
      case 'tasks/get': {
        poll++;
        const reply = script.poll ? script.poll(poll) : polls[Math.min(poll - 1, polls.length - 1)]!;
        return 'reply' in reply ? (reply.reply as ScriptReply) : { result: reply };
      }
      case 'tasks/update':
      case 'tasks/cancel':
        return { result: { resultType: 'complete' } };
      case 'subscriptions/listen':
        return script.listen ? script.listen(message) : { error: { code: -32601, message: 'Method not found' } };
      default:
        return { error: { code: -32601, message: `Method not found: ${String(message.method)}` } };
    }
  });
  servers.push(http);
  const { tasks, ...rest } = options;
  const client = new Client(INFO, { era: 'modern', tasks: { minPollIntervalMs: 5, ...tasks }, ...rest });
  clients.push(client);
  await client.connect(http.url);
  return { http, client, sent: (method) => http.messages().filter((m) => method === undefined || m.method === method) };
}

const capsOf = (message: Json): Json => message.params._meta['io.modelcontextprotocol/clientCapabilities'];

describe('following a task', () => {
  it('polls tasks/get (Mcp-Name = taskId, extension declared) until completed and returns the result as a plain call would', async () => {
    const { http, client, sent } = await setup({ polls: [polled('working'), polled('working', { statusMessage: 'half way' }), completed('all done')] });
    const result = await client.callTool('long_job', { n: 1 });
    expect(result).toEqual({ content: [{ type: 'text', text: 'all done' }] });
    expect(capsOf(sent('tools/call')[0]!).extensions).toEqual({ [TASKS]: {} });
    const polls = http.requests.filter((r) => r.message.method === 'tasks/get');
    expect(polls).toHaveLength(3);
    for (const poll of polls) {
      expect(poll.message.params.taskId).toBe(TASK_ID);
      expect(poll.headers['mcp-name']).toBe(TASK_ID);
      expect(poll.headers['mcp-method']).toBe('tasks/get');
      expect(capsOf(poll.message).extensions).toEqual({ [TASKS]: {} });
    }
    expect(new Set(polls.map((p) => p.message.id)).size).toBe(3);
    expect(sent('tasks/cancel')).toHaveLength(0);
  });

  it('answers a question once although every poll repeats it, through tasks/update with exactly its key', async () => {
    const form = vi.fn(() => ({ action: 'accept' as const, content: { name: 'Ada' } }));
    const { client, sent } = await setup(
      { polls: [asking({ who: formAsk('Your name?') }), asking({ who: formAsk('Your name?') }), polled('working'), completed('hello Ada')] },
      { elicitation: { form } },
    );
    expect((await client.callTool('greet')).content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(form).toHaveBeenCalledTimes(1);
    const updates = sent('tasks/update');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.params).toMatchObject({ taskId: TASK_ID, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } });
    expect(capsOf(updates[0]!).extensions).toEqual({ [TASKS]: {} });
  });

  it('polls again after a busy reply (503), and gives up after three failures in a row', async () => {
    const busy = { reply: { status: 503, body: 'try later' } };
    const { client } = await setup({ polls: [busy, completed('made it')] });
    expect((await client.callTool('t')).content).toEqual([{ type: 'text', text: 'made it' }]);
    const failing = await setup({ polls: [busy] });
    await expect(failing.client.callTool('t')).rejects.toMatchObject({ name: 'TransportError', status: 503 });
    expect(failing.sent('tasks/get')).toHaveLength(3);
    expect(failing.sent('tasks/cancel')).toHaveLength(1);
  });
});

describe('what the client does not accept', () => {
  it('a task for a request that did not declare the extension is an invalid response (nothing polled)', async () => {
    const { client, sent } = await setup({}, { tasks: { declare: false } });
    await expect(client.callTool('t')).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(capsOf(sent('tools/call')[0]!).extensions).toBeUndefined();
    expect(sent('tasks/get')).toHaveLength(0);
  });

  it.each([
    ['resources/read', (c: Client) => c.readResource('file:///report.csv')],
    ['prompts/get', (c: Client) => c.getPrompt('summary')],
  ])('a task answering %s (the extension covers tools/call only) is an invalid response', async (_method, call) => {
    const { client, sent } = await setup({});
    await expect(call(client)).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(sent('tasks/get')).toHaveLength(0);
  });

  it.each([
    ['answers about another task', polled('working', { taskId: 'task-other' }), 1],
    ['has an unknown status', polled('paused'), 1],
    ['is completed without a result', polled('completed'), 1],
    ['failed without a JSON-RPC error', polled('failed', { error: 'boom' }), 1],
    ['has resultType task', { ...polled('working'), resultType: 'task' }, 1],
    ['asks for sampling, which the client did not declare', asking({ s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } }), 1],
    // Finished (however wrongly): nothing is left to cancel.
    ['completed with an input_required result', polled('completed', { result: { resultType: 'input_required', requestState: 's' } }), 0],
  ])('a tasks/get that %s is a ProtocolViolationError', async (_label, reply, cancels) => {
    const { client, sent } = await setup({ polls: [reply] }, { elicitation: { form: () => ({ action: 'cancel' }) } });
    await expect(client.callTool('t')).rejects.toBeInstanceOf(ProtocolViolationError);
    expect(sent('tasks/cancel')).toHaveLength(cancels);
    if (cancels) expect(sent('tasks/cancel')[0]!.params.taskId).toBe(TASK_ID);
  });

  it('a CreateTaskResult without a taskId is a ProtocolViolationError', async () => {
    const { client } = await setup({ call: { resultType: 'task', status: 'working', createdAt: 'x', lastUpdatedAt: 'x', ttlMs: null } });
    await expect(client.callTool('t')).rejects.toThrow(/no taskId/);
  });

  it('an answer that does not fit the form is an InputFlowError naming the field; nothing is sent; the task is cancelled', async () => {
    const { client, sent } = await setup({ polls: [asking({ who: formAsk('Your name?') })] }, { elicitation: { form: () => ({ action: 'accept', content: { name: 'A' } }) } });
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputFlowError);
    expect(error).toMatchObject({ reason: 'invalid-answer', key: 'who', field: 'name' });
    expect(sent('tasks/update')).toHaveLength(0);
    expect(sent('tasks/cancel')).toHaveLength(1);
  });

  it('a task that keeps asking new questions ends after tasks.maxInputRounds (InputFlowError, cancelled)', async () => {
    // Every poll asks under a fresh key.
    const { client, sent } = await setup({ poll: (n) => asking({ [`q${n}`]: formAsk('Again?') }) }, { elicitation: { form: () => ({ action: 'decline' }) }, tasks: { maxInputRounds: 3 } });
    await expect(client.callTool('t')).rejects.toMatchObject({ name: 'InputFlowError', reason: 'rounds' });
    expect(sent('tasks/update')).toHaveLength(3);
    expect(sent('tasks/cancel')).toHaveLength(1);
  });
});

describe('how a task ends', () => {
  it('a failed task throws its JSON-RPC error (code, message, data); nothing is cancelled', async () => {
    const { client, sent } = await setup({ polls: [polled('failed', { statusMessage: 'upstream said no', error: { code: -32603, message: 'API rate limit exceeded', data: { retryAfter: 30 } } })] });
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32603, message: 'API rate limit exceeded', data: { retryAfter: 30 } });
    expect(sent('tasks/cancel')).toHaveLength(0);
  });

  it('a task the server cancelled is a TaskError (cancelled) with its status message', async () => {
    const { client, sent } = await setup({ polls: [polled('cancelled', { statusMessage: 'the operator stopped it' })] });
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskError);
    expect(error).toMatchObject({ reason: 'cancelled', taskId: TASK_ID, status: 'cancelled' });
    expect((error as Error).message).toContain('the operator stopped it');
    expect(sent('tasks/cancel')).toHaveLength(0);
  });

  it('a task the server no longer knows (-32602, expired) is a TaskError (expired); nothing is cancelled', async () => {
    const { client, sent } = await setup({ polls: [polled('working'), { reply: { error: { code: -32602, message: 'Failed to retrieve task: Task has expired' } } }] });
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TaskError', reason: 'expired', status: 'working' });
    expect((error as TaskError).cause).toBeInstanceOf(McpError);
    expect(sent('tasks/cancel')).toHaveLength(0);
  });

  it('a task still working long after its ttlMs is considered unusable (TaskError, expired)', async () => {
    const { client, sent } = await setup({ call: created({ ttlMs: 30 }), polls: [polled('working', { ttlMs: 30 })] });
    await expect(client.callTool('t')).rejects.toMatchObject({ name: 'TaskError', reason: 'expired' });
    expect(sent('tasks/get').length).toBeGreaterThan(0);
  });

  it("the caller's signal sends tasks/cancel (with Mcp-Name) and the call rejects with its reason; polling stops", async () => {
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const { http, client } = await setup({
      poll: (n) => {
        if (n === 3) controller.abort(reason);
        return polled('working');
      },
    });
    await expect(client.callTool('t', {}, { signal: controller.signal })).rejects.toBe(reason);
    const cancels = http.requests.filter((r) => r.message.method === 'tasks/cancel');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]!.message.params.taskId).toBe(TASK_ID);
    expect(cancels[0]!.headers['mcp-name']).toBe(TASK_ID);
    // Nothing after the cancellation.
    expect(http.messages().at(-1)!.method).toBe('tasks/cancel');
  });

  it('tasks.timeoutMs ends a task that never finishes: TaskError (timeout), cancelled', async () => {
    const { client, sent } = await setup({ polls: [polled('working', { pollIntervalMs: 10 })] }, { tasks: { timeoutMs: 150 } });
    await expect(client.callTool('t')).rejects.toMatchObject({ name: 'TaskError', reason: 'timeout' });
    expect(sent('tasks/cancel')).toHaveLength(1);
  });
});

describe('task notifications on a listen stream', () => {
  it('asks for the task id; a pushed completion ends the call without another poll', async () => {
    const { client, sent } = await setup({
      call: created({ pollIntervalMs: 60_000 }),
      listen: (message) => ({
        sse: [
          note('notifications/subscriptions/acknowledged', { _meta: { 'io.modelcontextprotocol/subscriptionId': message.id }, notifications: { taskIds: [TASK_ID] } }),
          note('notifications/tasks', { _meta: { 'io.modelcontextprotocol/subscriptionId': message.id }, ...task('completed', { result: { content: [{ type: 'text', text: 'pushed' }] } }) }),
        ],
      }),
    });
    expect((await client.callTool('t')).content).toEqual([{ type: 'text', text: 'pushed' }]);
    const listen = sent('subscriptions/listen');
    expect(listen).toHaveLength(1);
    expect(listen[0]!.params.notifications).toEqual({ taskIds: [TASK_ID] });
    expect(capsOf(listen[0]!).extensions).toEqual({ [TASKS]: {} });
    expect(sent('tasks/get')).toHaveLength(0);
  });

  it('closes the stream when the acknowledgement leaves the task out, and keeps polling', async () => {
    const { http, client } = await setup({
      polls: [polled('working'), completed('polled')],
      listen: (message) => ({ sse: [note('notifications/subscriptions/acknowledged', { _meta: { 'io.modelcontextprotocol/subscriptionId': message.id }, notifications: {} }), ': keep-alive\n\n'] }),
    });
    expect((await client.callTool('t')).content).toEqual([{ type: 'text', text: 'polled' }]);
    expect(http.requests.find((r) => r.message.method === 'subscriptions/listen')).toBeDefined();
    expect(http.messages().filter((m) => m.method === 'tasks/get').length).toBeGreaterThan(0);
  });

  it('ignores a pushed notification that is malformed or about another task', async () => {
    const { client } = await setup({
      polls: [polled('working'), completed('polled anyway')],
      listen: (message) => ({
        sse: [
          note('notifications/subscriptions/acknowledged', { _meta: { 'io.modelcontextprotocol/subscriptionId': message.id }, notifications: { taskIds: [TASK_ID] } }),
          note('notifications/tasks', { ...task('completed'), taskId: 'task-other', result: { content: [] } }),
          note('notifications/tasks', { ...task('completed') }),
        ],
      }),
    });
    expect((await client.callTool('t')).content).toEqual([{ type: 'text', text: 'polled anyway' }]);
  });

  it('with tasks.notifications false, opens no listen stream', async () => {
    const { client, sent } = await setup({}, { tasks: { notifications: false } });
    await client.callTool('t');
    expect(sent('subscriptions/listen')).toHaveLength(0);
  });
});
