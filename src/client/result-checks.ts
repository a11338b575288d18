/**
 * How the client reads a result: `resultType` first (absent = complete, for
 * older servers; unknown = invalid), and an `input_required` result only where
 * the spec allows one and only with input requests this client can answer.
 */

import { missingFor } from '../protocol/capabilities.js';
import { isObject } from '../protocol/guards.js';
import { INPUT_REQUEST_METHODS, isInputRequest } from '../protocol/input-requests.js';
import { INPUT_REQUIRED_METHODS } from '../protocol/methods.js';
import type { ClientCapabilities, InputRequiredResult, Result } from '../protocol/types.js';
import { ProtocolViolationError } from './errors.js';

export type ReadResult = { kind: 'complete'; result: Result } | { kind: 'input_required'; result: InputRequiredResult };

export function readResult(method: string, result: Result, declared: ClientCapabilities): ReadResult {
  const resultType = result.resultType;
  if (resultType === undefined || resultType === 'complete') return { kind: 'complete', result };
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
  if (inputRequests !== undefined) {
    if (!isObject(inputRequests)) throw new ProtocolViolationError('The server sent inputRequests that is not an object', result);
    for (const [key, entry] of Object.entries(inputRequests)) {
      if (!isObject(entry) || !INPUT_REQUEST_METHODS.has(String(entry.method))) {
        throw new ProtocolViolationError(`inputRequests.${key} is not an elicitation, sampling or roots request`, result);
      }
      if (!isInputRequest(entry)) throw new ProtocolViolationError(`inputRequests.${key} has no params`, result);
      // The server may only ask what this request declared; such a request is not fulfilled.
      if (missingFor(entry, declared)) {
        throw new ProtocolViolationError(`inputRequests.${key} asks for a capability this client did not declare`, result);
      }
    }
  }
  // Checked above: the result type, the state, and every input request.
  return { kind: 'input_required', result: result as InputRequiredResult };
}
