/**
 * How the client reads a result: `resultType` first (absent = complete, for
 * older servers; unknown = invalid), an `input_required` result only where
 * the spec allows one and only with input requests this client can answer,
 * and a task only for `tools/call` and only when the request declared the
 * Tasks extension (its rule: anything else is an invalid response).
 */

import { isObject } from '../protocol/guards.js';
import { TASKS_EXTENSION } from '../protocol/meta.js';
import type { CreateTaskResult } from '../protocol/method-types.js';
import { INPUT_REQUIRED_METHODS, Method } from '../protocol/methods.js';
import type { ClientCapabilities, InputRequiredResult, Result } from '../protocol/types.js';
import { ProtocolViolationError } from './errors.js';
import { checkInputRequests } from './input-request-checks.js';
import { readTaskInfo } from './task-checks.js';

export type ReadResult =
  | { kind: 'complete'; result: Result }
  | { kind: 'input_required'; result: InputRequiredResult }
  | { kind: 'task'; result: CreateTaskResult };

/** The requests the Tasks extension lets a server answer with a task. */
export const TASK_METHODS_ALLOWED: ReadonlySet<string> = new Set([Method.ToolsCall]);

/** Whether these capabilities declare the Tasks extension. */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  return isObject(capabilities.extensions) && isObject(capabilities.extensions[TASKS_EXTENSION]);
}

export function readResult(method: string, result: Result, declared: ClientCapabilities): ReadResult {
  const resultType = result.resultType;
  if (resultType === undefined || resultType === 'complete') return { kind: 'complete', result };
  if (resultType === 'task') {
    if (!TASK_METHODS_ALLOWED.has(method)) {
      throw new ProtocolViolationError(`The server answered ${method} with a task, which the Tasks extension allows only for tools/call`, result);
    }
    if (!declaresTasks(declared)) {
      throw new ProtocolViolationError(`The server answered ${method} with a task, but this request did not declare the Tasks extension`, result);
    }
    return { kind: 'task', result: { ...readTaskInfo(result, `The task the server created for ${method}`), ...result, resultType: 'task' } };
  }
  if (resultType !== 'input_required') {
    throw new ProtocolViolationError(`The server answered ${method} with an unknown resultType ${JSON.stringify(resultType)}`, result);
  }
  if (!INPUT_REQUIRED_METHODS.has(method)) {
    throw new ProtocolViolationError(`The server answered ${method} with input_required, which only tools/call, resources/read and prompts/get may`, result);
  }
  const { inputRequests, requestState } = result;
  if (inputRequests === undefined && requestState === undefined) {
    throw new ProtocolViolationError('The server sent an input_required result with neither inputRequests nor requestState', result);
  }
  if (requestState !== undefined && typeof requestState !== 'string') {
    throw new ProtocolViolationError('The server sent a requestState that is not a string', result);
  }
  if (inputRequests !== undefined) checkInputRequests(inputRequests, declared, result);
  // Checked above: the result type, the state, and every input request.
  return { kind: 'input_required', result: result as InputRequiredResult };
}
