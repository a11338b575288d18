/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) over real
 * HTTP on 127.0.0.1: negotiation and advertisement (spec §14.1, §4), the
 * CreateTaskResult and durable creation (§14.2), task outcomes in `tasks/get`
 * (§14.2, §14.3), gating of the tasks/* methods (-32021, §14.1; checklist
 * rule 125), unknown/expired/foreign task ids (-32602, security), the
 * `Mcp-Name` routing header (§14.3, rule 126), 2025-11-25 sessions (§14.1,
 * rule 132) and `subscriptions/listen` with `taskIds`. Every server message is
 * validated by test/helpers/wire-schema.ts, which checks the task result shapes.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, startHttp } from '../helpers/http.js';
import { legacyInitialize, sessionRequest, type Json as LegacyJson } from '../helpers/legacy-http.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';
import { openStream } from '../helpers/sse-stream.js';
import { buildTaskServer, type TaskServer } from '../helpers/task-server.js';
import {
  createTask,
  eventually,
  metaWith,
  plainMeta,
  pollTask,
  pollUntilError,
  settle,
  taskMeta,
  TASKS,
  tasksCancel,
  tasksGet,
  tasksUpdate,
  type Json,
} from '../helpers/tasks.js';

const REQUIRED_TASKS = { requiredCapabilities: { extensions: { [TASKS]: {} } } };
const UNKNOWN_ID = 'task-this-id-was-never-issued';
/** Codes a 2026-07-28 peer must never send (§6): -32002, -32042 and -32020…-32099 beyond the three defined. */
const isReservedCode = (code: number): boolean =>
  code === -32002 || code === -32042 || (code <= -32020 && code >= -32099 && ![-32020, -32021, -32022].includes(code));

let fx: TaskServer;
let running: RunningHttpServer;
let url: string;

beforeAll(async () => {
  fx = buildTaskServer({ tasks: { pollIntervalMs: 100 } });
  // The principal comes from a header: "x-user: alice" → "alice"; none → anonymous.
  running = await startHttp(fx.server, { authenticate: (header) => header('x-user') });
  url = running.url;
});

afterAll(async () => {
  fx.gates.openAll();
  await running.close();
  fx.server.close();
});

function callTool(name: string, args: Json, _meta: Record<string, unknown>, headers?: Record<string, string>) {
  return rpc(url, 'tools/call', { name, arguments: args, _meta }, { headers });
}

/* ------------------------------------------------------------------ */

describe('advertisement in server/discover (§14.1, §4)', () => {
  it('advertises capabilities.extensions["io.modelcontextprotocol/tasks"] = {} when a task tool is registered, never capabilities.tasks', async () => {
    const discover = resultOf(await rpc(url, 'server/discover', {}));
    const capabilities = discover.capabilities as Json;
    expect(capabilities.extensions?.[TASKS]).toEqual({});
    expect(capabilities).not.toHaveProperty('tasks');
  });

  it('does not advertise it when no tool takes part in tasks (a tool merely using ctx.task is not enough), and tasks/get is then -32601 on 404', async () => {
    const server = new McpServer({ name: 'no-tasks', version: '1.0.0' }, { logger: quietLogger() });
    server.tool('inline_only', {}, (_args, ctx) => ctx.task(async () => 'x'));
    const plain = await startHttp(server);
    try {
      const capabilities = resultOf(await rpc(plain.url, 'server/discover', { _meta: taskMeta() })).capabilities as Json;
      expect(capabilities.extensions?.[TASKS]).toBeUndefined();
      expect(capabilities).not.toHaveProperty('tasks');
      const reply = await tasksGet(plain.url, UNKNOWN_ID);
      expect(reply.status).toBe(404);
      expect(errorOf(reply).code).toBe(-32601);
      // ctx.task without a task tool runs inline even for a declaring client.
      const called = resultOf(await rpc(plain.url, 'tools/call', { name: 'inline_only', arguments: {}, _meta: taskMeta() }));
      expect(called.resultType).toBe('complete');
      expect(called).not.toHaveProperty('taskId');
    } finally {
      await plain.close();
    }
  });

  it('follows registration: the extension appears with the first task tool and goes with the last', async () => {
    const server = new McpServer({ name: 'dynamic', version: '1.0.0' }, { logger: quietLogger() });
    server.tool('base', {}, () => 'x');
    const dynamic = await startHttp(server);
    try {
      const extensionOf = async () => ((resultOf(await rpc(dynamic.url, 'server/discover', {})).capabilities as Json).extensions ?? {})[TASKS];
      expect(await extensionOf()).toBeUndefined();
      const remove = server.tool('job', { task: 'optional' }, (_args, ctx) => ctx.task(async () => 'done'));
      expect(await extensionOf()).toEqual({});
      remove();
      expect(await extensionOf()).toBeUndefined();
    } finally {
      await dynamic.close();
    }
  });

  it('the 2025-11-25 initialize result advertises neither the extension nor legacy capabilities.tasks', async () => {
    const session = await legacyInitialize(url, { capabilities: { elicitation: {}, extensions: { [TASKS]: {} }, tasks: { requests: { tools: { call: {} } } } } });
    const capabilities = session.result.capabilities as LegacyJson;
    expect(capabilities.extensions?.[TASKS]).toBeUndefined();
    expect(capabilities).not.toHaveProperty('tasks');
  });
});

/* ------------------------------------------------------------------ */

describe('tools/call of a task tool (§14.1, §14.2; rule 114)', () => {
  it('with the extension declared: a flat CreateTaskResult (resultType "task") without requestState/inputRequests, durably created', async () => {
    const reply = await callTool('gated', { id: 'create-1' }, taskMeta());
    expect(reply.status).toBe(200);
    const created = resultOf(reply);
    expect(created.resultType).toBe('task');
    expect(typeof created.taskId).toBe('string');
    expect(created.status).toBe('working');
    expect(created).not.toHaveProperty('requestState');
    expect(created).not.toHaveProperty('inputRequests');
    expect(created).not.toHaveProperty('task');
    expect(created.pollIntervalMs).toBe(100);
    // Durable create: an immediate tasks/get resolves, and describes the same task.
    const got = resultOf(await tasksGet(url, created.taskId as string));
    expect(got.resultType).toBe('complete');
    expect(got.taskId).toBe(created.taskId);
    expect(got.createdAt).toBe(created.createdAt);
    expect(got.ttlMs).toBe(created.ttlMs);
    expect(['working', 'input_required']).toContain(got.status);
    fx.gates.open('create-1');
    const done = await settle(url, created.taskId as string);
    expect(done.status).toBe('completed');
  });

  it('without the extension: the ordinary complete result (the work runs in the request), no taskId', async () => {
    fx.gates.open('plain-1');
    const result = resultOf(await callTool('gated', { id: 'plain-1' }, plainMeta()));
    expect(result.resultType).toBe('complete');
    expect(result).not.toHaveProperty('taskId');
    expect(result.content).toEqual([{ type: 'text', text: 'gated plain-1 done' }]);
  });

  it('an earlier declaring request does not make a later non-declaring one get a task', async () => {
    fx.gates.open('seq-2');
    await createTask(url, 'gated', { id: 'seq-1' });
    const result = resultOf(await callTool('gated', { id: 'seq-2' }, plainMeta()));
    expect(result.resultType).toBe('complete');
    expect(result).not.toHaveProperty('taskId');
    fx.gates.open('seq-1');
  });

  it('declaring only the 2025-era capabilities.tasks (not the extension) is non-declaring: no task, and tasks/get is -32021', async () => {
    fx.gates.open('legacy-caps');
    const legacyCaps = metaWith({ tasks: { requests: { tools: { call: {} } } } });
    const result = resultOf(await callTool('gated', { id: 'legacy-caps' }, legacyCaps));
    expect(result.resultType).toBe('complete');
    expect(result).not.toHaveProperty('taskId');
    const reply = await tasksGet(url, UNKNOWN_ID, legacyCaps);
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32021);
  });

  it('a legacy `task` param on tools/call is ignored (no task without the extension)', async () => {
    fx.gates.open('legacy-param');
    const reply = await rpc(url, 'tools/call', { name: 'gated', arguments: { id: 'legacy-param' }, task: { ttl: 60_000 }, _meta: plainMeta() });
    const result = resultOf(reply);
    expect(result.resultType).toBe('complete');
    expect(result).not.toHaveProperty('taskId');
  });

  it("a 'required' tool without the extension: -32021 on HTTP 400 naming the extension in requiredCapabilities", async () => {
    const reply = await callTool('must_task', {}, plainMeta());
    expect(reply.status).toBe(400);
    const error = errorOf(reply);
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual(REQUIRED_TASKS);
  });

  it("a 'required' tool with the extension: a task that completes", async () => {
    const created = await createTask(url, 'must_task');
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'required work done' }]);
  });

  it('a tool that does not take part in tasks runs ctx.task inline even for a declaring client', async () => {
    const result = resultOf(await callTool('inline_only', {}, taskMeta()));
    expect(result.resultType).toBe('complete');
    expect(result).not.toHaveProperty('taskId');
    expect(result.content).toEqual([{ type: 'text', text: "inline, taskId ''" }]);
  });

  it('an optional task tool may still answer at once (the declaration is not a request for a task)', async () => {
    const result = resultOf(await callTool('outcome', { id: 'direct', kind: 'direct' }, taskMeta()));
    expect(result.resultType).toBe('complete');
    expect(result.content).toEqual([{ type: 'text', text: 'answered without a task' }]);
  });

  it('task ids are distinct per task and not short counters', async () => {
    const a = await createTask(url, 'gated', { id: 'ids-a' });
    const b = await createTask(url, 'gated', { id: 'ids-b' });
    expect(a.taskId).not.toBe(b.taskId);
    // High entropy: at least 128 bits' worth of base64url characters (22) beyond any prefix.
    expect((a.taskId as string).length).toBeGreaterThanOrEqual(22);
    fx.gates.open('ids-a');
    fx.gates.open('ids-b');
  });
});

/* ------------------------------------------------------------------ */

describe('task outcomes in tasks/get (§14.2, §14.3)', () => {
  it('working while the work runs, then completed with the inlined CallToolResult (resultType "complete")', async () => {
    const created = await createTask(url, 'outcome', { id: 'o-text', kind: 'text' });
    const working = resultOf(await tasksGet(url, created.taskId));
    expect(working.status).toBe('working');
    expect(working).not.toHaveProperty('result');
    expect(working).not.toHaveProperty('error');
    fx.gates.open('o-text');
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'outcome text' }] });
    expect(done).not.toHaveProperty('error');
    expect(done).not.toHaveProperty('inputRequests');
    expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
  });

  it('the completed result is the CallToolResult the inline call gives (structuredContent and its text mirror)', async () => {
    const inline = resultOf(await callTool('structured', { n: 21 }, plainMeta()));
    const created = await createTask(url, 'structured', { n: 21 });
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.structuredContent).toEqual({ doubled: 42 });
    expect(done.result.content).toEqual(inline.content);
    expect(done.result.structuredContent).toEqual(inline.structuredContent);
  });

  it('a tool result with isError: true is completed (not failed), carrying that result', async () => {
    const created = await createTask(url, 'outcome', { id: 'o-iserror', kind: 'isError' });
    fx.gates.open('o-iserror');
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.isError).toBe(true);
    expect(done.result.content).toEqual([{ type: 'text', text: 'the tool failed on purpose' }]);
    expect(done).not.toHaveProperty('error');
  });

  it('a thrown McpError is failed with that error object (and a statusMessage), no result', async () => {
    const created = await createTask(url, 'outcome', { id: 'o-mcp', kind: 'mcpError' });
    fx.gates.open('o-mcp');
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('failed');
    expect(done.error).toEqual({ code: -32602, message: 'The job could not run with these parameters' });
    expect(done).not.toHaveProperty('result');
    expect(typeof done.statusMessage).toBe('string');
  });

  it('an application error code and its data survive as the task error', async () => {
    const created = await createTask(url, 'outcome', { id: 'o-app', kind: 'appError' });
    fx.gates.open('o-app');
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('failed');
    expect(done.error).toEqual({ code: 4001, message: 'Quota exceeded', data: { retryAfterMs: 1000 } });
  });

  it('a thrown plain Error is failed with -32603 and no detail of the exception', async () => {
    const created = await createTask(url, 'outcome', { id: 'o-plain', kind: 'plainError' });
    fx.gates.open('o-plain');
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('failed');
    expect(done.error.code).toBe(-32603);
    expect(done.error).not.toHaveProperty('data');
    expect(JSON.stringify(done)).not.toContain('secret-database-password');
    expect(done).not.toHaveProperty('result');
  });

  it('a failed task never carries an error code 2026-07-28 reserves or removed (§6), just as the inline call does not', async () => {
    fx.gates.open('o-reserved-inline');
    const inline = await callTool('outcome', { id: 'o-reserved-inline', kind: 'reservedError' }, plainMeta());
    expect(errorOf(inline).code).toBe(-32603);
    const created = await createTask(url, 'outcome', { id: 'o-reserved', kind: 'reservedError' });
    fx.gates.open('o-reserved');
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('failed');
    expect(isReservedCode(done.error.code), JSON.stringify(done.error)).toBe(false);
    expect(done.error).toEqual(errorOf(inline));
  });
});

/* ------------------------------------------------------------------ */

describe('tasks/* without the extension: -32021 before any task lookup (§14.1; rule 125)', () => {
  it.each(['tasks/get', 'tasks/update', 'tasks/cancel'])('%s of an unknown id from a non-declaring request is -32021 (HTTP 400), not -32602', async (method) => {
    const params: Json = { taskId: UNKNOWN_ID, _meta: plainMeta() };
    if (method === 'tasks/update') params.inputResponses = {};
    const reply = await rpc(url, method, params);
    expect(reply.status).toBe(400);
    const error = errorOf(reply);
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual(REQUIRED_TASKS);
  });

  it('a real task id does not help: -32021, and a non-declaring tasks/cancel leaves the task running', async () => {
    const created = await createTask(url, 'gated', { id: 'nodecl' });
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const reply = await rpc(url, method, { taskId: created.taskId, _meta: metaWith({}) });
      expect(errorOf(reply).code).toBe(-32021);
    }
    expect(resultOf(await tasksGet(url, created.taskId)).status).toBe('working');
    fx.gates.open('nodecl');
  });

  it('subscriptions/listen with notifications.taskIds from a non-declaring request is -32021 (HTTP 400)', async () => {
    const created = await createTask(url, 'gated', { id: 'listen-nodecl' });
    const reply = await rpc(url, 'subscriptions/listen', { notifications: { taskIds: [created.taskId] }, _meta: plainMeta() });
    expect(reply.status).toBe(400);
    const error = errorOf(reply);
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual(REQUIRED_TASKS);
    fx.gates.open('listen-nodecl');
  });

  it('subscriptions/listen with taskIds from a declaring request is acknowledged', async () => {
    const created = await createTask(url, 'gated', { id: 'listen-decl' });
    const stream = await openStream(url, 'subscriptions/listen', { notifications: { taskIds: [created.taskId], toolsListChanged: true }, _meta: taskMeta() });
    try {
      expect(stream.status).toBe(200);
      const ack = await stream.next();
      expect(ack.method).toBe('notifications/subscriptions/acknowledged');
      stream.assertValid();
    } finally {
      stream.close();
      fx.gates.open('listen-decl');
    }
  });

  it('tasks/result (the superseded flow) is -32601 on 404 even for a declaring client', async () => {
    const created = await createTask(url, 'gated', { id: 'result-method' });
    const reply = await rpc(url, 'tasks/result', { taskId: created.taskId, _meta: taskMeta() }, { headers: { 'mcp-name': created.taskId } });
    expect(reply.status).toBe(404);
    expect(errorOf(reply).code).toBe(-32601);
    fx.gates.open('result-method');
  });
});

/* ------------------------------------------------------------------ */

describe('unknown, expired and foreign task ids (§14.3 error summary, security)', () => {
  it.each(['tasks/get', 'tasks/update', 'tasks/cancel'])('%s of an unknown id is -32602', async (method) => {
    const params: Json = { taskId: UNKNOWN_ID, _meta: taskMeta() };
    if (method === 'tasks/update') params.inputResponses = {};
    expect(errorOf(await rpc(url, method, params)).code).toBe(-32602);
  });

  it('expires after the server-wide tasks.ttlMs: tasks/get|update|cancel are then -32602, and the work is stopped', async () => {
    const short = buildTaskServer({ tasks: { ttlMs: 150, pollIntervalMs: 10 } });
    const shortRunning = await startHttp(short.server);
    try {
      const created = await createTask(shortRunning.url, 'gated', { id: 'exp-1' });
      expect(created.ttlMs).toBe(150);
      expect(created.pollIntervalMs).toBe(10);
      const error = await pollUntilError(shortRunning.url, created.taskId);
      expect(error.code).toBe(-32602);
      expect(errorOf(await tasksUpdate(shortRunning.url, created.taskId, {})).code).toBe(-32602);
      expect(errorOf(await tasksCancel(shortRunning.url, created.taskId)).code).toBe(-32602);
      expect(short.work.get('exp-1')?.signal.aborted).toBe(true);
    } finally {
      short.gates.openAll();
      await shortRunning.close();
      short.server.close();
    }
  });

  it('a per-task ttl (ctx.task options) overrides the server default and is honoured', async () => {
    const created = await createTask(url, 'short_ttl', { id: 'ttl-opt' });
    expect(created.ttlMs).toBe(200);
    expect(created.pollIntervalMs).toBe(50);
    expect((await pollUntilError(url, created.taskId)).code).toBe(-32602);
  });

  describe('at the ttl boundary (clock pinned with a fake Date)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('is still gettable 1 ms before createdAt + ttlMs and gone at it', async () => {
      const t0 = Date.parse('2026-08-01T10:00:00.000Z');
      vi.useFakeTimers({ toFake: ['Date'], now: t0 });
      const created = await createTask(url, 'long_ttl', { id: 'boundary' });
      expect(created.ttlMs).toBe(1000);
      expect(created.createdAt).toBe('2026-08-01T10:00:00.000Z');
      vi.setSystemTime(t0 + 999);
      const before = resultOf(await tasksGet(url, created.taskId));
      expect(before.status).toBe('working');
      vi.setSystemTime(t0 + 1000);
      expect(errorOf(await tasksGet(url, created.taskId)).code).toBe(-32602);
    });
  });

  it("another principal's task is -32602 for tasks/get|update|cancel, and their cancel does not touch it", async () => {
    const alice = { 'x-user': 'alice' };
    const created = await createTask(url, 'gated', { id: 'alice-1' }, taskMeta(), { headers: alice });
    for (const who of [{ 'x-user': 'bob' }, {}]) {
      expect(errorOf(await tasksGet(url, created.taskId, taskMeta(), { headers: who })).code).toBe(-32602);
      expect(errorOf(await tasksUpdate(url, created.taskId, {}, taskMeta(), { headers: who })).code).toBe(-32602);
      expect(errorOf(await tasksCancel(url, created.taskId, taskMeta(), { headers: who })).code).toBe(-32602);
    }
    const own = resultOf(await tasksGet(url, created.taskId, taskMeta(), { headers: alice }));
    expect(own.status).toBe('working');
    fx.gates.open('alice-1');
    const done = await settle(url, created.taskId, { rpc: { headers: alice } });
    expect(done.status).toBe('completed');
  });

  it('an anonymous task is not visible to an authenticated caller either', async () => {
    const created = await createTask(url, 'gated', { id: 'anon-1' });
    expect(errorOf(await tasksGet(url, created.taskId, taskMeta(), { headers: { 'x-user': 'mallory' } })).code).toBe(-32602);
    fx.gates.open('anon-1');
  });
});

/* ------------------------------------------------------------------ */

describe('Mcp-Name on tasks/get|update|cancel (§14.3 HTTP routing; rule 126)', () => {
  let taskId: string;
  beforeAll(async () => {
    taskId = (await createTask(url, 'gated', { id: 'routing' })).taskId;
  });
  afterAll(() => fx.gates.open('routing'));

  it.each(['tasks/get', 'tasks/update', 'tasks/cancel'])('%s with Mcp-Name ≠ taskId is -32020 on 400', async (method) => {
    const params: Json = { taskId, _meta: taskMeta() };
    if (method === 'tasks/update') params.inputResponses = {};
    const reply = await rpc(url, method, params, { headers: { 'mcp-name': 'task-someone-else' } });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32020);
  });

  it.each(['tasks/get', 'tasks/update', 'tasks/cancel'])('%s without Mcp-Name is -32020 on 400', async (method) => {
    const params: Json = { taskId, _meta: taskMeta() };
    if (method === 'tasks/update') params.inputResponses = {};
    const reply = await rpc(url, method, params, { headers: { 'mcp-name': undefined } });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32020);
  });

  it('the refused cancel did not cancel the task', async () => {
    expect(resultOf(await tasksGet(url, taskId)).status).toBe('working');
  });
});

/* ------------------------------------------------------------------ */

describe('2025-11-25 sessions never get tasks (§14.1; rule 132)', () => {
  it('the same optional task tool runs inline in a session that declared the extension, and tasks/get is -32601', async () => {
    const session = await legacyInitialize(url, { capabilities: { elicitation: {}, extensions: { [TASKS]: {} }, tasks: { requests: { tools: { call: {} } } } } });
    fx.gates.open('legacy-session');
    const call = await sessionRequest(url, session.sessionId, 'tools/call', { name: 'gated', arguments: { id: 'legacy-session' } });
    const result = call.response?.result as LegacyJson;
    expect(result, JSON.stringify(call.response)).toBeDefined();
    expect(result).not.toHaveProperty('taskId');
    expect(result.resultType === undefined || result.resultType === 'complete').toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'gated legacy-session done' }]);
    // No record was made for a 2025 request: the only record of the run has no task id.
    expect(fx.work.get('legacy-session')?.taskId).toBe('');

    for (const method of ['tasks/get', 'tasks/cancel']) {
      const reply = await sessionRequest(url, session.sessionId, method, { taskId: UNKNOWN_ID });
      expect((reply.response?.error as LegacyJson | undefined)?.code, JSON.stringify(reply.response)).toBe(-32601);
    }
  });
});

/* ------------------------------------------------------------------ */

describe('existing behaviour next to tasks', () => {
  it('a non-task tool on a task server answers as before for declaring and non-declaring clients', async () => {
    for (const m of [taskMeta(), plainMeta(), meta()]) {
      const result = resultOf(await callTool('plain', {}, m));
      expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'plain result' }] });
    }
  });

  it('tools/list is unchanged by the task option (no task fields on tool descriptors required)', async () => {
    const tools = resultOf(await rpc(url, 'tools/list', {})).tools as Json[];
    expect(tools.map((t) => t.name)).toContain('gated');
  });

  it('work recorded for a task carries the task id the client got', async () => {
    const created = await createTask(url, 'gated', { id: 'record-id' });
    await eventually('the work started', () => fx.work.has('record-id'));
    expect(fx.work.get('record-id')!.taskId).toBe(created.taskId);
    fx.gates.open('record-id');
    await pollTask(url, created.taskId, (t) => t.status === 'completed');
  });
});
