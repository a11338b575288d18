/** The one entry to schemas: whatever the author registered, resolved once at registration. */

import { fromJsonSchema } from './json-schema.js';
import { fromStandardSchema, isStandardSchema } from './standard-schema.js';
import type { ResolvedSchema, SchemaInput } from './types.js';

/** Resolves a registration-time schema; throws a TypeError naming `owner` when it is unusable. */
export function resolveSchema<T = unknown>(input: SchemaInput, role: 'input' | 'output', owner: string): ResolvedSchema<T> {
  return isStandardSchema(input) ? fromStandardSchema<T>(input, role, owner) : fromJsonSchema<T>(input, owner);
}

export { isStandardSchema };
export type { JsonSchemaObject, ResolvedSchema, SchemaInput, Validation } from './types.js';
