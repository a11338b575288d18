/**
 * What may go on the wire as a result (issue 18): only `complete`,
 * `input_required` on tools/call, resources/read and prompts/get (spec §7.1,
 * MRTR), and `task` made by the Tasks extension for a request that declared it
 * (Tasks §14.2); a task's result is the request's own result type; client
 * input cannot exhaust the server's stack; request ids are echoed exactly
 * (JSON-RPC 2.0 §5).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, startHttp } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';
import { createTask, settle, taskMeta } from '../helpers/tasks.js';

const logger = quietLogger();
let running: RunningHttpServer;

beforeAll(async () => {
  const server = new McpServer({ name: 'rules', version: '1.0.0' }, { logger });
  const created = { taskId: 'task-forged', status: 'working', createdAt: '2026-08-01T10:00:00.000Z', lastUpdatedAt: '2026-08-01T10:00:00.000Z', ttlMs: 1000, content: [] };
  server.tool('fake_task', { task: 'optional' }, () => ({ resultType: 'task', ...created }) as never);
  server.tool('bogus', {}, () => ({ resultType: 'bogus', content: [] }) as never);
  server.tool('asks_in_task', { task: 'optional' }, (_args, ctx) => ctx.task(async () => ctx.inputRequired({ state: 'never answerable' }) as never));
  server.tool('asks', {}, async (_args, ctx) => {
    await ctx.ask(ask.form('Go?', z.object({ go: z.boolean() }), { key: 'go' }));
    return 'went';
  });
  server.prompt('bogus_prompt', {}, () => ({ resultType: 'whatever', messages: [] }) as never);
  running = await startHttp(server);
});

afterAll(async () => {
  await running.close();
});

function errorCode(reply: { response?: Record<string, unknown> }): number | undefined {
  return (reply.response?.error as { code?: number } | undefined)?.code;
}

describe('result types on the wire (issue 18)', () => {
  it('a handler writing resultType "task" by hand gets -32603, with or without the Tasks extension declared', async () => {
    expect(errorCode(await rpc(running.url, 'tools/call', { name: 'fake_task' }))).toBe(-32603);
    expect(errorCode(await rpc(running.url, 'tools/call', { name: 'fake_task', _meta: taskMeta() }))).toBe(-32603);
    expect(logger.errors.some(([message]) => String(message).includes('tools/call failed'))).toBe(true);
  });

  it('an unknown resultType from a handler never reaches the wire (-32603), on any method', async () => {
    const tool = await rpc(running.url, 'tools/call', { name: 'bogus' });
    expect(errorCode(tool)).toBe(-32603);
    expect(JSON.stringify(tool.response)).not.toContain('bogus');
    expect(errorCode(await rpc(running.url, 'prompts/get', { name: 'bogus_prompt' }))).toBe(-32603);
  });

  it("a task's work that ends with an input-required result fails the task; it never completes with one (inline: -32603)", async () => {
    const created = await createTask(running.url, 'asks_in_task');
    const done = await settle(running.url, created.taskId);
    expect(done.status).toBe('failed');
    expect(done.error.code).toBe(-32603);
    expect(errorCode(await rpc(running.url, 'tools/call', { name: 'asks_in_task' }))).toBe(-32603);
  });
});

describe('input the server cannot be made to choke on', () => {
  it('arguments nested 5,000 deep on a tool that asks are -32602, not a stack overflow', async () => {
    // Written as text: the test's own JSON.stringify would overflow on such a value.
    const deep = `${'{"n":'.repeat(5000)}"leaf"${'}'.repeat(5000)}`;
    const _meta = JSON.stringify(meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }));
    const body = `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"asks","arguments":{"deep":${deep}},"_meta":${_meta}}}`;
    const reply = await rpc(running.url, 'tools/call', { name: 'asks' }, { rawBody: body });
    expect(errorCode(reply)).toBe(-32602);
    expect((reply.response!.error as { message: string }).message).toContain('nests deeper');
  });

  it.each([
    ['9007199254740993', 'beyond 2^53: JSON numbers cannot hold it exactly'],
    ['9007199254740992', '2^53 itself'],
    ['-9007199254740993', 'below -(2^53)'],
  ])('a request id of %s is -32600 without an id (%s), never answered as another number', async (id) => {
    const body = `{"jsonrpc":"2.0","id":${id},"method":"server/discover","params":{"_meta":${JSON.stringify(meta())}}}`;
    const reply = await rpc(running.url, 'server/discover', {}, { rawBody: body, skipValidation: true });
    expect(errorCode(reply)).toBe(-32600);
    expect(reply.response).not.toHaveProperty('id');
  });

  it('the largest safe integer id is echoed exactly', async () => {
    const body = `{"jsonrpc":"2.0","id":9007199254740991,"method":"server/discover","params":{"_meta":${JSON.stringify(meta())}}}`;
    const reply = await rpc(running.url, 'server/discover', {}, { rawBody: body });
    expect(reply.response!.id).toBe(9007199254740991);
  });
});
