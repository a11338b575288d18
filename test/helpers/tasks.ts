/**
 * Helpers for the Tasks extension (`io.modelcontextprotocol/tasks`, spec §14)
 * over real HTTP: request `_meta` that declares (or does not declare) the
 * extension, polling `tasks/get` with an overall guard instead of fixed
 * sleeps, and gates the tests open to let task work proceed.
 */

import { meta, rpc, type RpcOptions, type RpcReply } from './http.js';

export const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

/** Request `_meta` declaring exactly these client capabilities. */
export function metaWith(capabilities: Record<string, unknown>): Record<string, unknown> {
  return meta({ [CAPS]: capabilities });
}

/** `_meta` declaring the Tasks extension (plus form elicitation, so task-time asks are allowed). */
export function taskMeta(extra: Record<string, unknown> = { elicitation: { form: {} } }): Record<string, unknown> {
  return metaWith({ ...extra, extensions: { [TASKS]: {} } });
}

/** `_meta` without the extension (form elicitation only). */
export function plainMeta(): Record<string, unknown> {
  return metaWith({ elicitation: { form: {} } });
}

export type Json = Record<string, any>;

/** The result of a reply, or throws with the reply in view (no vitest expect, usable inside polls). */
function resultOrThrow(reply: RpcReply): Json {
  const response = reply.response as Json | undefined;
  if (!response || !('result' in response)) throw new Error(`expected a result, got HTTP ${reply.status} ${JSON.stringify(response ?? reply.text)}`);
  return response.result as Json;
}

export function tasksGet(url: string, taskId: string, _meta = taskMeta(), options: RpcOptions = {}): Promise<RpcReply> {
  return rpc(url, 'tasks/get', { taskId, _meta }, options);
}

export function tasksUpdate(url: string, taskId: string, inputResponses: unknown, _meta = taskMeta(), options: RpcOptions = {}): Promise<RpcReply> {
  return rpc(url, 'tasks/update', { taskId, inputResponses, _meta }, options);
}

export function tasksCancel(url: string, taskId: string, _meta = taskMeta(), options: RpcOptions = {}): Promise<RpcReply> {
  return rpc(url, 'tasks/cancel', { taskId, _meta }, options);
}

/** Calls a tool declaring the extension and returns the CreateTaskResult (fails if the result is anything else). */
export async function createTask(url: string, name: string, args: Json = {}, _meta = taskMeta(), options: RpcOptions = {}): Promise<Json> {
  const result = resultOrThrow(await rpc(url, 'tools/call', { name, arguments: args, _meta }, options));
  if (result.resultType !== 'task') throw new Error(`expected a CreateTaskResult, got ${JSON.stringify(result)}`);
  return result;
}

/** Generous overall guard for polls; the loop ends as soon as the condition holds. */
export const POLL_GUARD_MS = 15_000;

/**
 * Polls `tasks/get` until `done(result)` holds (or the reply is an error and
 * `done` accepts errors via `until: 'error'`). Fails after POLL_GUARD_MS.
 */
export async function pollTask(
  url: string,
  taskId: string,
  done: (task: Json) => boolean,
  options: { meta?: Record<string, unknown>; rpc?: RpcOptions } = {},
): Promise<Json> {
  const deadline = Date.now() + POLL_GUARD_MS;
  let last: unknown;
  for (;;) {
    const reply = await tasksGet(url, taskId, options.meta ?? taskMeta(), options.rpc);
    const task = resultOrThrow(reply);
    if (done(task)) return task;
    last = task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} never reached the expected state; last seen ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Polls until the task is terminal. */
export function settle(url: string, taskId: string, options?: { meta?: Record<string, unknown>; rpc?: RpcOptions }): Promise<Json> {
  return pollTask(url, taskId, (t) => ['completed', 'failed', 'cancelled'].includes(t.status), options);
}

/** Polls until `tasks/get` answers with an error; returns the error. */
export async function pollUntilError(url: string, taskId: string): Promise<{ code: number; message: string; data?: unknown }> {
  const deadline = Date.now() + POLL_GUARD_MS;
  for (;;) {
    const reply = await tasksGet(url, taskId);
    const response = reply.response as Json;
    if (response && 'error' in response) return response.error;
    if (Date.now() > deadline) throw new Error(`task ${taskId} never went away; last seen ${JSON.stringify(response)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits (guarded) for a condition in this process, e.g. that task work observed something. */
export async function eventually(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + POLL_GUARD_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A promise the test resolves by hand. */
export class Gate {
  readonly promise: Promise<void>;
  open!: () => void;
  constructor() {
    this.promise = new Promise<void>((resolve) => {
      this.open = resolve;
    });
  }
}

/** Gates by name, made on first use by either side. */
export class Gates {
  private readonly gates = new Map<string, Gate>();
  get(name: string): Gate {
    let gate = this.gates.get(name);
    if (!gate) this.gates.set(name, (gate = new Gate()));
    return gate;
  }
  open(name: string): void {
    this.get(name).open();
  }
  openAll(): void {
    for (const gate of this.gates.values()) gate.open();
  }
}

/** Resolves when the gate opens; rejects with the signal's reason when it aborts first. */
export function untilOpenOrAborted(gate: Gate, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    void gate.promise.then(resolve);
  });
}
