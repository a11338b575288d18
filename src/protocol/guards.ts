/** Type guards for reading untrusted JSON: the one `isObject`, and the shapes read in more than one place. */

import type { Implementation, InputRequiredResult, Result } from './types.js';

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A result that asks for input (or keeps state) instead of completing. */
export function isInputRequiredResult(result: Result): result is InputRequiredResult {
  return result.resultType === 'input_required';
}

/** An `Implementation` (clientInfo, serverInfo): at least a string name and version. */
export function isImplementation(value: unknown): value is Implementation {
  return isObject(value) && typeof value.name === 'string' && typeof value.version === 'string';
}
