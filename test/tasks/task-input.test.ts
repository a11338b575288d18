/**
 * Input and cancellation in the Tasks extension over real HTTP on 127.0.0.1:
 * task-time questions surfaced by `tasks/get` (status `input_required` +
 * `inputRequests`) and answered with `tasks/update` (spec §14.3, §7.9;
 * checklist rules 116–121), `tasks/cancel` (§14.3), MRTR rounds first and
 * then a task (§7.9; rules 113–115), and the inline fallback where a task
 * tool's `task.ask` becomes an ordinary input round for a non-declaring client.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpServer } from '../../src/node.js';
import { rpc, startHttp } from '../helpers/http.js';
import { call } from '../helpers/in-process.js';
import { errorOf, resultOf } from '../helpers/results.js';
import { buildTaskServer, type TaskServer } from '../helpers/task-server.js';
import {
  createTask,
  eventually,
  metaWith,
  plainMeta,
  pollTask,
  settle,
  taskMeta,
  tasksCancel,
  tasksGet,
  tasksUpdate,
  type Json,
} from '../helpers/tasks.js';

let fx: TaskServer;
let running: RunningHttpServer;
let url: string;

beforeAll(async () => {
  fx = buildTaskServer();
  running = await startHttp(fx.server);
  url = running.url;
});

afterAll(async () => {
  fx.gates.openAll();
  await running.close();
  fx.server.close();
});

const accept = (content: Json): Json => ({ action: 'accept', content });

/** An ack of tasks/update or tasks/cancel: exactly `{ resultType: "complete" }` besides `_meta`. */
function expectAck(result: Json): void {
  const { _meta, ...rest } = result;
  expect(rest).toEqual({ resultType: 'complete' });
}

const keysOf = (task: Json): string[] => Object.keys(task.inputRequests ?? {});

/* ------------------------------------------------------------------ */

describe('task-time input (§14.3 tasks/get + tasks/update; rules 116–121)', () => {
  it('shows input_required with the question in inputRequests (not in the CreateTaskResult), and an answer resumes the task', async () => {
    const created = await createTask(url, 'confirm', { id: 'in-1' });
    expect(created).not.toHaveProperty('inputRequests');
    expect(created).not.toHaveProperty('requestState');
    const waiting = await pollTask(url, created.taskId, (t) => t.status === 'input_required');
    expect(waiting).not.toHaveProperty('requestState');
    const keys = keysOf(waiting);
    expect(keys).toHaveLength(1);
    const request = waiting.inputRequests[keys[0]!];
    expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: 'Proceed?' } });

    const ack = resultOf(await tasksUpdate(url, created.taskId, { [keys[0]!]: accept({ confirm: true }) }));
    expectAck(ack);
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'Confirmed: yes' }]);
    expect(done).not.toHaveProperty('inputRequests');
  });

  it('a decline is a valid answer too', async () => {
    const created = await createTask(url, 'confirm', { id: 'in-decline' });
    const waiting = await pollTask(url, created.taskId, (t) => t.status === 'input_required');
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [keysOf(waiting)[0]!]: { action: 'decline' } })));
    const done = await settle(url, created.taskId);
    expect(done.result.content).toEqual([{ type: 'text', text: 'Confirmed: decline' }]);
  });

  it('lists all outstanding questions, under distinct keys (rule 116)', async () => {
    const created = await createTask(url, 'two_questions', { id: 'in-two' });
    const waiting = await pollTask(url, created.taskId, (t) => t.status === 'input_required' && keysOf(t).length === 2);
    const keys = keysOf(waiting);
    expect(new Set(keys).size).toBe(2);
    const messages = keys.map((k) => waiting.inputRequests[k].params.message).sort();
    expect(messages).toEqual(['First name?', 'Second name?']);
    const answers = Object.fromEntries(keys.map((k) => [k, accept({ name: waiting.inputRequests[k].params.message === 'First name?' ? 'Ada' : 'Grace' })]));
    expectAck(resultOf(await tasksUpdate(url, created.taskId, answers)));
    const done = await settle(url, created.taskId);
    expect(done.result.content).toEqual([{ type: 'text', text: 'Got Ada and Grace' }]);
  });

  it('accepts a partial answer: the task stays input_required with only the unanswered key (rule 120)', async () => {
    const created = await createTask(url, 'two_questions', { id: 'in-partial' });
    const waiting = await pollTask(url, created.taskId, (t) => t.status === 'input_required' && keysOf(t).length === 2);
    const [firstKey, secondKey] = keysOf(waiting).sort((a, b) =>
      waiting.inputRequests[a].params.message === 'First name?' ? -1 : waiting.inputRequests[b].params.message === 'First name?' ? 1 : 0,
    ) as [string, string];
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [firstKey]: accept({ name: 'Ada' }) })));
    const still = resultOf(await tasksGet(url, created.taskId));
    expect(still.status).toBe('input_required');
    expect(keysOf(still)).toEqual([secondKey]);
    expect((still.inputRequests as Json)[secondKey]).toEqual(waiting.inputRequests[secondKey]);
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [secondKey]: accept({ name: 'Grace' }) })));
    const done = await settle(url, created.taskId);
    expect(done.result.content).toEqual([{ type: 'text', text: 'Got Ada and Grace' }]);
  });

  it('acks and ignores responses under keys that are not outstanding (rule 119)', async () => {
    const created = await createTask(url, 'confirm', { id: 'in-unknown-key' });
    const waiting = await pollTask(url, created.taskId, (t) => t.status === 'input_required');
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { 'never-issued': accept({ confirm: true }) })));
    const still = resultOf(await tasksGet(url, created.taskId));
    expect(still.status).toBe('input_required');
    expect(still.inputRequests).toEqual(waiting.inputRequests);
    expect(fx.work.get('in-unknown-key')?.finished).toBe(false);
    // An empty update is a no-op ack as well.
    expectAck(resultOf(await tasksUpdate(url, created.taskId, {})));
    expect(resultOf(await tasksGet(url, created.taskId)).inputRequests).toEqual(waiting.inputRequests);
    await tasksCancel(url, created.taskId);
  });

  it('re-asks an invalid answer under a NEW key; the old key is gone and answering it again is ignored (rules 119, 121)', async () => {
    const created = await createTask(url, 'confirm', { id: 'in-invalid' });
    const first = await pollTask(url, created.taskId, (t) => t.status === 'input_required');
    const [oldKey] = keysOf(first) as [string];
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [oldKey]: accept({ confirm: 'certainly' }) })));
    const again = await pollTask(url, created.taskId, (t) => t.status === 'input_required' && keysOf(t).length === 1 && keysOf(t)[0] !== oldKey);
    const [newKey] = keysOf(again) as [string];
    expect(newKey).not.toBe(oldKey);
    // The same form, saying what was wrong with the last answer.
    type Asked = { params: { message: string; requestedSchema: unknown } };
    const before = first.inputRequests[oldKey] as Asked;
    const after = again.inputRequests[newKey] as Asked;
    expect(after.params.requestedSchema).toEqual(before.params.requestedSchema);
    expect(after.params.message).toContain('The last answer was not accepted');
    // A (now valid) answer under the superseded key changes nothing.
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [oldKey]: accept({ confirm: true }) })));
    const still = resultOf(await tasksGet(url, created.taskId));
    expect(still.status).toBe('input_required');
    expect(keysOf(still)).toEqual([newKey]);
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [newKey]: accept({ confirm: false }) })));
    const done = await settle(url, created.taskId);
    expect(done.result.content).toEqual([{ type: 'text', text: 'Confirmed: no' }]);
  });

  it('never reuses a key for a later question, even the same question asked again (rule 121)', async () => {
    const created = await createTask(url, 'ask_twice', { id: 'in-twice' });
    const first = await pollTask(url, created.taskId, (t) => t.status === 'input_required');
    const [k1] = keysOf(first) as [string];
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [k1]: accept({ name: 'one' }) })));
    const second = await pollTask(url, created.taskId, (t) => t.status === 'input_required' && !keysOf(t).includes(k1));
    const [k2] = keysOf(second) as [string];
    expect(k2).not.toBe(k1);
    // The first key's answer was delivered: answering it again is ignored, not taken as the second answer.
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [k1]: accept({ name: 'replayed' }) })));
    expect(keysOf(resultOf(await tasksGet(url, created.taskId)))).toEqual([k2]);
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [k2]: accept({ name: 'two' }) })));
    const done = await settle(url, created.taskId);
    expect(done.result.content).toEqual([{ type: 'text', text: 'steps one, two' }]);
  });

  it('tasks/update of a completed task is an ack that changes nothing', async () => {
    const created = await createTask(url, 'must_task');
    const done = await settle(url, created.taskId);
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { 'confirm-1': accept({ confirm: true }) })));
    expect(resultOf(await tasksGet(url, created.taskId))).toMatchObject({ status: 'completed', result: done.result });
  });

  it.each([
    ['a valid answer', { confirm: true }],
    ['an invalid answer (re-asked)', { confirm: 'certainly' }],
  ])('a tasks/get concurrent with tasks/update carrying %s never shows input_required with an empty inputRequests (in-process)', async (_what, content) => {
    const meta = taskMeta();
    const created = resultOf(await call(fx.server, 'tools/call', { name: 'confirm', arguments: { id: `in-race-${String(content.confirm)}` }, _meta: meta }));
    const waiting = resultOf(await call(fx.server, 'tasks/get', { taskId: created.taskId, _meta: meta }));
    expect(waiting.status).toBe('input_required');
    const [key] = Object.keys(waiting.inputRequests as Json) as [string];
    // Both requests reach the server together (as pipelined requests can); `call` validates the tasks/get result.
    const [update, get] = await Promise.allSettled([
      call(fx.server, 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: accept(content) }, _meta: meta }),
      call(fx.server, 'tasks/get', { taskId: created.taskId, _meta: meta }),
    ]);
    expect(update.status).toBe('fulfilled');
    if (get.status === 'rejected') throw get.reason;
    const seen = resultOf(get.value);
    if (seen.status === 'input_required') expect(Object.keys(seen.inputRequests as Json).length).toBeGreaterThan(0);
    await tasksCancel(url, created.taskId as string).catch(() => undefined);
  });
});

/* ------------------------------------------------------------------ */

describe('tasks/cancel (§14.3)', () => {
  it('acks with an empty result, the task becomes cancelled, and the work sees task.signal aborted', async () => {
    const created = await createTask(url, 'gated', { id: 'c-1' });
    await eventually('the work started', () => fx.work.has('c-1'));
    expect(fx.work.get('c-1')!.signal.aborted).toBe(false);
    expectAck(resultOf(await tasksCancel(url, created.taskId)));
    const cancelled = await pollTask(url, created.taskId, (t) => t.status === 'cancelled');
    expect(cancelled).not.toHaveProperty('result');
    expect(cancelled).not.toHaveProperty('error');
    expect(cancelled).not.toHaveProperty('inputRequests');
    await eventually('the work saw the abort', () => fx.work.get('c-1')!.signal.aborted);
    expect(fx.work.get('c-1')!.finished).toBe(false);
  });

  it('cancelled is terminal: work that ignores the signal and finishes later does not turn it completed', async () => {
    const created = await createTask(url, 'stubborn', { id: 'c-stubborn' });
    await eventually('the work started', () => fx.work.has('c-stubborn'));
    expectAck(resultOf(await tasksCancel(url, created.taskId)));
    await pollTask(url, created.taskId, (t) => t.status === 'cancelled');
    fx.gates.open('c-stubborn');
    await eventually('the stubborn work finished', () => fx.work.get('c-stubborn')!.finished);
    const after = resultOf(await tasksGet(url, created.taskId));
    expect(after.status).toBe('cancelled');
    expect(after).not.toHaveProperty('result');
  });

  it('cancels a task waiting for input: no inputRequests any more, and a late answer is acked and ignored', async () => {
    const created = await createTask(url, 'confirm', { id: 'c-input' });
    const waiting = await pollTask(url, created.taskId, (t) => t.status === 'input_required');
    expectAck(resultOf(await tasksCancel(url, created.taskId)));
    const cancelled = await pollTask(url, created.taskId, (t) => t.status === 'cancelled');
    expect(cancelled).not.toHaveProperty('inputRequests');
    expectAck(resultOf(await tasksUpdate(url, created.taskId, { [keysOf(waiting)[0]!]: accept({ confirm: true }) })));
    expect(resultOf(await tasksGet(url, created.taskId)).status).toBe('cancelled');
    expect(fx.work.get('c-input')!.finished).toBe(false);
    expect(fx.work.get('c-input')!.signal.aborted).toBe(true);
  });

  it('cancel of a terminal task is an idempotent ack that leaves it as it was', async () => {
    const created = await createTask(url, 'must_task');
    const done = await settle(url, created.taskId);
    expect(done.status).toBe('completed');
    expectAck(resultOf(await tasksCancel(url, created.taskId)));
    expectAck(resultOf(await tasksCancel(url, created.taskId)));
    expect(resultOf(await tasksGet(url, created.taskId))).toMatchObject({ status: 'completed', result: done.result });

    const other = await createTask(url, 'gated', { id: 'c-twice' });
    expectAck(resultOf(await tasksCancel(url, other.taskId)));
    expectAck(resultOf(await tasksCancel(url, other.taskId)));
    expect(resultOf(await tasksGet(url, other.taskId)).status).toBe('cancelled');
  });
});

/* ------------------------------------------------------------------ */

describe('MRTR rounds first, then a task (§7.9; rules 113–115, 124)', () => {
  it('round 1 is input_required without a taskId; the retry gets a CreateTaskResult without requestState; the task completes with the answer', async () => {
    const round1 = resultOf(await rpc(url, 'tools/call', { name: 'rounds_then_task', arguments: {}, _meta: taskMeta() }));
    expect(round1.resultType).toBe('input_required');
    expect(round1).not.toHaveProperty('taskId');
    expect(Object.keys(round1.inputRequests as Json)).toEqual(['user_name']);
    expect(typeof round1.requestState).toBe('string');

    const retry = resultOf(
      await rpc(url, 'tools/call', {
        name: 'rounds_then_task',
        arguments: {},
        inputResponses: { user_name: accept({ name: 'Ada' }) },
        requestState: round1.requestState,
        _meta: taskMeta(),
      }),
    );
    expect(retry.resultType).toBe('task');
    expect(retry).not.toHaveProperty('requestState');
    expect(retry).not.toHaveProperty('inputRequests');
    const done = await settle(url, retry.taskId as string);
    expect(done.status).toBe('completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'Task finished for Ada' }]);
  });

  it('the same retry from a client that does not declare the extension gets the ordinary complete result', async () => {
    const round1 = resultOf(await rpc(url, 'tools/call', { name: 'rounds_then_task', arguments: {}, _meta: taskMeta() }));
    const retry = resultOf(
      await rpc(url, 'tools/call', {
        name: 'rounds_then_task',
        arguments: {},
        inputResponses: { user_name: accept({ name: 'Grace' }) },
        requestState: round1.requestState,
        _meta: plainMeta(),
      }),
    );
    expect(retry.resultType).toBe('complete');
    expect(retry).not.toHaveProperty('taskId');
    expect(retry.content).toEqual([{ type: 'text', text: 'Task finished for Grace' }]);
  });
});

/* ------------------------------------------------------------------ */

describe('inline fallback: an optional task tool for a non-declaring client', () => {
  it("runs its work in the request, and task.ask becomes an ordinary MRTR input round (no task, no taskId)", async () => {
    const round1 = resultOf(await rpc(url, 'tools/call', { name: 'confirm', arguments: { id: 'inline-1' }, _meta: plainMeta() }));
    expect(round1.resultType).toBe('input_required');
    expect(round1).not.toHaveProperty('taskId');
    const keys = Object.keys(round1.inputRequests as Json);
    expect(keys).toEqual(['confirm']);
    expect((round1.inputRequests as Json).confirm).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: 'Proceed?' } });
    const retry = resultOf(
      await rpc(url, 'tools/call', {
        name: 'confirm',
        arguments: { id: 'inline-1' },
        inputResponses: { confirm: accept({ confirm: true }) },
        requestState: round1.requestState,
        _meta: plainMeta(),
      }),
    );
    expect(retry.resultType).toBe('complete');
    expect(retry).not.toHaveProperty('taskId');
    expect(retry.content).toEqual([{ type: 'text', text: 'Confirmed: yes' }]);
    expect(fx.work.get('inline-1')!.taskId).toBe('');
  });

  it('the inline ask is gated by the request capabilities like any ask: no elicitation declared → -32021', async () => {
    const reply = await rpc(url, 'tools/call', { name: 'confirm', arguments: { id: 'inline-nocap' }, _meta: metaWith({}) });
    expect(reply.status).toBe(400);
    const error = errorOf(reply);
    expect(error.code).toBe(-32021);
    expect((error.data as Json).requiredCapabilities).toHaveProperty('elicitation');
  });
});
