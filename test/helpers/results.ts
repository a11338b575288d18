/** Small accessors for JSON-RPC replies, so tests fail with the reply in view instead of a TypeError. */

import { expect } from 'vitest';
import type { ServerLogger } from '../../src/index.js';

type Reply = { response: Record<string, unknown> | undefined } | { response: Record<string, unknown> };

/** The `result` of a reply, asserting it is not an error. */
export function resultOf(reply: Reply): Record<string, unknown> {
  expect(reply.response, 'no response').toBeDefined();
  expect(reply.response, JSON.stringify(reply.response)).toHaveProperty('result');
  return reply.response!.result as Record<string, unknown>;
}

/** The `error` of a reply, asserting it is not a result. */
export function errorOf(reply: Reply): { code: number; message: string; data?: unknown } {
  expect(reply.response, 'no response').toBeDefined();
  expect(reply.response, JSON.stringify(reply.response)).toHaveProperty('error');
  expect(reply.response).not.toHaveProperty('result');
  return reply.response!.error as { code: number; message: string; data?: unknown };
}

/** A logger that keeps what the server reports instead of printing it (tests provoke failures on purpose). */
export function quietLogger(): ServerLogger & { errors: unknown[][] } {
  const errors: unknown[][] = [];
  return {
    errors,
    error: (message, detail) => errors.push([message, detail]),
    warn: () => undefined,
  };
}
