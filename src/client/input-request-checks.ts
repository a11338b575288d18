/**
 * The input requests a server sends (in an input round, or from a task):
 * each must be an elicitation, sampling or roots request with its params,
 * for a capability this client declared on the request that got it (spec
 * §7.5; checked when `declared` is given); otherwise nothing of it is answered.
 */

import { missingFor } from '../protocol/capabilities.js';
import { isObject } from '../protocol/guards.js';
import { INPUT_REQUEST_METHODS, isInputRequest } from '../protocol/input-requests.js';
import type { ClientCapabilities, InputRequests } from '../protocol/types.js';
import { ProtocolViolationError } from './errors.js';

/** Input requests (of a round or a task) this client can answer: known methods, with params, for capabilities it declared. */
export function checkInputRequests(inputRequests: unknown, declared: ClientCapabilities | undefined, response: unknown): asserts inputRequests is InputRequests {
  if (!isObject(inputRequests)) throw new ProtocolViolationError('The server sent inputRequests that is not an object', response);
  for (const [key, entry] of Object.entries(inputRequests)) {
    if (!isObject(entry) || !INPUT_REQUEST_METHODS.has(String(entry.method))) {
      throw new ProtocolViolationError(`inputRequests.${key} is not an elicitation, sampling or roots request`, response);
    }
    if (!isInputRequest(entry)) throw new ProtocolViolationError(`inputRequests.${key} has no params`, response);
    // The server may only ask what this request declared; such a request is not fulfilled.
    if (declared && missingFor(entry, declared)) {
      throw new ProtocolViolationError(`inputRequests.${key} asks for a capability this client did not declare`, response);
    }
  }
}
