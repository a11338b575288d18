/**
 * Validates messages the project sends against the official 2026-07-28 JSON
 * schema (test/spec), plus the MRTR invariants the schema cannot express,
 * and the results of the Tasks (§14) and Skills (SEP-2640) extensions, which
 * the core schema does not define.
 */

import { loadSpecSchema } from './spec-schema.js';

const spec = loadSpecSchema('schema-2026-07-28.json');
const byMethod = spec.byMethod;

const ERROR_FOR: Record<number, string> = {
  [-32020]: 'HeaderMismatchError',
  [-32021]: 'MissingRequiredClientCapabilityError',
  [-32022]: 'UnsupportedProtocolVersionError',
};

export class WireSchemaError extends Error {}

function check(def: string, value: unknown, what: string): void {
  const problems = spec.errors(def, value);
  if (problems !== undefined) {
    throw new WireSchemaError(`${what} does not validate as ${def}: ${problems}\n${JSON.stringify(value)}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The checks schema.json cannot express (mrtr-checklist §L). */
function checkInputRequired(result: Record<string, unknown>): void {
  if (result.resultType !== 'input_required') throw new WireSchemaError('InputRequiredResult needs resultType "input_required"');
  if (result.inputRequests === undefined && result.requestState === undefined) {
    throw new WireSchemaError('InputRequiredResult has neither inputRequests nor requestState');
  }
  if (result.inputRequests !== undefined) {
    if (!isObject(result.inputRequests) || Object.keys(result.inputRequests).length === 0) {
      throw new WireSchemaError('inputRequests must be a non-empty object');
    }
    for (const [key, entry] of Object.entries(result.inputRequests)) {
      if (isObject(entry) && ('id' in entry || 'jsonrpc' in entry)) {
        throw new WireSchemaError(`inputRequests.${key} carries a JSON-RPC envelope field`);
      }
    }
  }
  if ('ttlMs' in result || 'cacheScope' in result) throw new WireSchemaError('InputRequiredResult must not carry cache hints');
}

/* ---------------- Tasks extension (io.modelcontextprotocol/tasks, spec §14) ---------------- */

const TASK_STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** Methods whose results may be a `CreateTaskResult` (the extension supports `tools/call` only). */
const TASK_AUGMENTABLE = new Set(['tools/call']);

function isIsoDateTime(value: unknown): boolean {
  return typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

/** The `Task` fields (§14.2) every task object carries. */
function checkTaskFields(task: Record<string, unknown>, what: string): void {
  if (typeof task.taskId !== 'string' || task.taskId === '') throw new WireSchemaError(`${what}: taskId must be a non-empty string`);
  if (!TASK_STATUSES.has(task.status as string)) throw new WireSchemaError(`${what}: status ${JSON.stringify(task.status)} is not a task status`);
  if (task.statusMessage !== undefined && typeof task.statusMessage !== 'string') throw new WireSchemaError(`${what}: statusMessage must be a string`);
  if (!isIsoDateTime(task.createdAt)) throw new WireSchemaError(`${what}: createdAt must be an ISO 8601 date-time`);
  if (!isIsoDateTime(task.lastUpdatedAt)) throw new WireSchemaError(`${what}: lastUpdatedAt must be an ISO 8601 date-time`);
  if (!('ttlMs' in task) || !(task.ttlMs === null || Number.isInteger(task.ttlMs))) throw new WireSchemaError(`${what}: ttlMs must be an integer or null`);
  if (task.pollIntervalMs !== undefined && !Number.isInteger(task.pollIntervalMs)) throw new WireSchemaError(`${what}: pollIntervalMs must be an integer`);
  if ('requestState' in task) throw new WireSchemaError(`${what}: the task flow has no requestState`);
}

/** `CreateTaskResult` (§14.2): `Result & Task`, flat, `resultType: "task"`. */
function checkCreateTaskResult(result: Record<string, unknown>): void {
  check('Result', result, 'CreateTaskResult');
  checkTaskFields(result, 'CreateTaskResult');
  for (const field of ['inputRequests', 'result', 'error', 'task']) {
    if (field in result) throw new WireSchemaError(`CreateTaskResult must not carry ${field}`);
  }
}

/** `GetTaskResult` = `Result & DetailedTask` (§14.3): status-specific fields, `resultType: "complete"`. */
function checkGetTaskResult(result: Record<string, unknown>): void {
  check('Result', result, 'tasks/get result');
  if (result.resultType !== 'complete') throw new WireSchemaError('tasks/get result needs resultType "complete"');
  checkTaskFields(result, 'tasks/get result');
  const status = result.status;
  if (status === 'input_required') {
    const requests = result.inputRequests;
    if (!isObject(requests) || Object.keys(requests).length === 0) {
      throw new WireSchemaError(`an input_required task needs a non-empty inputRequests object: ${JSON.stringify(result)}`);
    }
    for (const [key, entry] of Object.entries(requests)) {
      check('InputRequest', entry, `task inputRequests.${key}`);
      if (isObject(entry) && ('id' in entry || 'jsonrpc' in entry)) throw new WireSchemaError(`task inputRequests.${key} carries a JSON-RPC envelope field`);
    }
  } else if ('inputRequests' in result) {
    throw new WireSchemaError(`a ${String(status)} task must not carry inputRequests`);
  }
  if (status === 'completed') {
    if (!isObject(result.result)) throw new WireSchemaError('a completed task needs a result object');
    // The only supported method is tools/call: the result is the CallToolResult the call would have had.
    check('CallToolResult', result.result, 'completed task result');
    if (result.result.resultType !== 'complete') throw new WireSchemaError('a completed task result needs resultType "complete"');
  } else if ('result' in result) {
    throw new WireSchemaError(`a ${String(status)} task must not carry result`);
  }
  if (status === 'failed') {
    const error = result.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
      throw new WireSchemaError(`a failed task needs error {code, message}: ${JSON.stringify(result)}`);
    }
  } else if ('error' in result) {
    throw new WireSchemaError(`a ${String(status)} task must not carry error`);
  }
}

/** The empty acknowledgement of `tasks/update` and `tasks/cancel`: `{ resultType: "complete" }` (plus `_meta`). */
function checkTaskAck(result: Record<string, unknown>, method: string): void {
  check('Result', result, `${method} result`);
  if (result.resultType !== 'complete') throw new WireSchemaError(`${method} result needs resultType "complete"`);
  const extra = Object.keys(result).filter((k) => k !== 'resultType' && k !== '_meta');
  if (extra.length > 0) throw new WireSchemaError(`${method} result must be empty, but carries ${extra.join(', ')}`);
}

const TASK_RESULT_CHECKS: Record<string, (result: Record<string, unknown>, method: string) => void> = {
  'tasks/get': checkGetTaskResult,
  'tasks/update': checkTaskAck,
  'tasks/cancel': checkTaskAck,
};

/* ---------------- Skills extension (io.modelcontextprotocol/skills, SEP-2640) ---------------- */

const SKILL_DIGEST = /^sha256:[0-9a-f]{64}$/;

/** A `Skill` entry: `uri`, `frontmatter` with `name` and `description`, `resources` an array of {uri, digest, size} or "dynamic". */
function checkSkillEntry(skill: unknown, what: string): void {
  if (!isObject(skill) || typeof skill.uri !== 'string') throw new WireSchemaError(`${what}: a skill entry needs a string uri`);
  const frontmatter = skill.frontmatter;
  if (!isObject(frontmatter) || typeof frontmatter.name !== 'string' || typeof frontmatter.description !== 'string') {
    throw new WireSchemaError(`${what}: frontmatter needs string name and description`);
  }
  if (skill.resources === 'dynamic') return;
  if (!Array.isArray(skill.resources)) throw new WireSchemaError(`${what}: resources must be an array or "dynamic"`);
  for (const file of skill.resources) {
    if (!isObject(file) || typeof file.uri !== 'string' || typeof file.digest !== 'string' || !SKILL_DIGEST.test(file.digest) || !Number.isInteger(file.size) || (file.size as number) < 0) {
      throw new WireSchemaError(`${what}: a resources item needs uri, a sha256:<hex> digest and a byte size: ${JSON.stringify(file)}`);
    }
  }
}

function checkCacheable(result: Record<string, unknown>, what: string): void {
  if (!Number.isInteger(result.ttlMs) || (result.cacheScope !== 'public' && result.cacheScope !== 'private')) throw new WireSchemaError(`${what} needs ttlMs and cacheScope`);
}

const SKILL_RESULT_CHECKS: Record<string, (result: Record<string, unknown>) => void> = {
  'skills/list': (result) => {
    if (!Array.isArray(result.skills)) throw new WireSchemaError('skills/list result needs a skills array');
    result.skills.forEach((skill, i) => checkSkillEntry(skill, `skills[${i}]`));
    if (result.nextCursor !== undefined && typeof result.nextCursor !== 'string') throw new WireSchemaError('nextCursor must be a string');
    checkCacheable(result, 'skills/list result');
  },
  'skills/get': (result) => {
    checkSkillEntry(result.skill, 'skills/get result');
    if ('nextCursor' in result) throw new WireSchemaError('skills/get result carries no cursor');
    checkCacheable(result, 'skills/get result');
  },
  'resources/directory/read': (result) => {
    if (!Array.isArray(result.resources)) throw new WireSchemaError('resources/directory/read result needs a resources array');
    for (const resource of result.resources) check('Resource', resource, 'a directory child');
  },
};

/**
 * Asserts that a message a server sent is valid 2026-07-28 wire. `method` is
 * the method of the request a response answers (to pick the result type).
 */
export function assertServerMessage(message: unknown, method?: string): void {
  if (!isObject(message)) throw new WireSchemaError(`Not a JSON object: ${JSON.stringify(message)}`);
  if ('method' in message) {
    if ('id' in message) throw new WireSchemaError(`A server sent a request: ${JSON.stringify(message)}`);
    const def = byMethod.get(String(message.method));
    check(def && def.endsWith('Notification') ? def : 'JSONRPCNotification', message, `notification ${String(message.method)}`);
    return;
  }
  if ('error' in message) {
    const code = isObject(message.error) ? Number(message.error.code) : NaN;
    check(ERROR_FOR[code] ?? 'JSONRPCErrorResponse', message, `error ${code}`);
    return;
  }
  check('JSONRPCResultResponse', message, 'result response');
  const result = message.result as Record<string, unknown>;
  if (result.resultType === 'input_required') {
    if (method && Object.hasOwn(TASK_RESULT_CHECKS, method)) throw new WireSchemaError(`${method} never returns an InputRequiredResult (§7.9)`);
    check('InputRequiredResult', result, 'input-required result');
    checkInputRequired(result);
    return;
  }
  if (result.resultType === 'task') {
    // Tasks extension: only a CreateTaskResult, and only for a method the extension supports.
    if (!method || !TASK_AUGMENTABLE.has(method)) throw new WireSchemaError(`resultType "task" on ${method ?? 'a response to an unknown method'}`);
    checkCreateTaskResult(result);
    return;
  }
  if (result.resultType !== 'complete') throw new WireSchemaError(`Unexpected resultType ${String(result.resultType)}`);
  const taskCheck = method && Object.hasOwn(TASK_RESULT_CHECKS, method) ? TASK_RESULT_CHECKS[method] : undefined;
  if (taskCheck) {
    taskCheck(result, method!);
    return;
  }
  if (method && Object.hasOwn(SKILL_RESULT_CHECKS, method)) {
    check('Result', result, `${method} result`);
    SKILL_RESULT_CHECKS[method]!(result);
    return;
  }
  const def = method ? spec.resultFor(method) : undefined;
  if (def) check(def, result, `${method} result`);
}

/** Validates an input request a server embeds, or an answer a client sends, by definition name. */
export function assertValid(def: string, value: unknown): void {
  check(def, value, def);
}

/** Validates a request a client sends, by its method. */
export function assertClientRequest(message: unknown): void {
  if (!isObject(message)) throw new WireSchemaError('Not a JSON object');
  const def = byMethod.get(String(message.method));
  check(def ?? 'JSONRPCRequest', message, `request ${String(message.method)}`);
}
