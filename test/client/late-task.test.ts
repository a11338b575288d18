/**
 * A task the server made for a call the client had already cancelled
 * (stdio or in memory: `notifications/cancelled` crossed the
 * CreateTaskResult). The client ignores the late response as a result
 * (2026-07-28 cancellation: SHOULD ignore responses after cancelling), but a
 * task runs on until `tasks/cancel` — never `notifications/cancelled` (Tasks
 * extension, "Task Cancellation") — and only this client could know its id,
 * so it sends `tasks/cancel` for it.
 */

import { describe, expect, it } from 'vitest';
import { Client } from '../../src/client.js';
import type { Json } from '../helpers/scripted-http.js';
import { scriptedLink, type LinkPeer } from '../helpers/scripted-link.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const created = (taskId: string) => ({ resultType: 'task', taskId, status: 'working', createdAt: '2026-08-01T10:00:00Z', lastUpdatedAt: '2026-08-01T10:00:00Z', ttlMs: 60_000, pollIntervalMs: 0 });
const complete = { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };

/** A server that holds tools/call until the test answers it. */
function heldServer() {
  const held: Array<{ message: Json; peer: LinkPeer }> = [];
  const link = scriptedLink((message, peer) => {
    if (message.method === 'server/discover') return peer.result(message, { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {}, extensions: { [TASKS]: {} } }, ttlMs: 0, cacheScope: 'public' });
    if (message.method === 'tasks/cancel') return peer.result(message, { resultType: 'complete' });
    if (message.method === 'tools/list') return peer.result(message, { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'public' });
    if (message.method === 'tools/call') held.push({ message, peer });
  });
  return { link, held };
}

async function cancelledCall(late: (taskId: string) => Json) {
  const { link, held } = heldServer();
  const client = await new Client({ name: 'late', version: '1' }, { era: 'modern' }).connect(link.transport);
  const controller = new AbortController();
  const call = client.callTool('work', {}, { signal: controller.signal });
  const sent = await link.waitFor('the call', (m) => m.method === 'tools/call');
  controller.abort(new Error('the user gave up'));
  await expect(call).rejects.toThrow('the user gave up');
  await link.waitFor('the cancellation', (m) => m.method === 'notifications/cancelled' && (m.params as Json).requestId === sent.id);
  // The server had already answered; its response arrives anyway.
  held[0]!.peer.result(held[0]!.message, late('task-late-1'));
  return { link, client, sent };
}

describe('a response after the call was cancelled', () => {
  it('a CreateTaskResult is answered with tasks/cancel for that task, declaring the extension', async () => {
    const { link, client } = await cancelledCall(created);
    const cancel = await link.waitFor('tasks/cancel', (m) => m.method === 'tasks/cancel');
    expect((cancel.params as Json).taskId).toBe('task-late-1');
    expect((cancel.params as Json)._meta['io.modelcontextprotocol/clientCapabilities'].extensions).toHaveProperty([TASKS]);
    await client.close();
    link.close();
  });

  it('any other late result is ignored: nothing more is sent', async () => {
    const { link, client } = await cancelledCall(() => complete);
    // A request after the late result: once its answer is back, the late result has been handled.
    await client.listTools();
    expect(link.requests().map((m) => m.method)).not.toContain('tasks/cancel');
    await client.close();
    link.close();
  });
});
