/** The requests a server may embed in `inputRequests` (2026-07-28) or send itself (2025-11-25). */

import { isObject } from './guards.js';
import type { InputRequest } from './types.js';
import { InputMethod } from './methods.js';

export const INPUT_REQUEST_METHODS: ReadonlySet<string> = new Set([InputMethod.Elicit, InputMethod.CreateMessage, InputMethod.ListRoots]);

/** Whether a value read off the wire is an input request: one of the three methods, with params where they are required. */
export function isInputRequest(value: unknown): value is InputRequest {
  if (!isObject(value) || typeof value.method !== 'string' || !INPUT_REQUEST_METHODS.has(value.method)) return false;
  return value.method === InputMethod.ListRoots ? value.params === undefined || isObject(value.params) : isObject(value.params);
}
