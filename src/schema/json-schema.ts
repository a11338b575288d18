/**
 * Raw JSON Schema objects, published verbatim and validated (2020-12 by
 * default, draft-07 when `$schema` says so). The engine is chosen on first
 * use, never at module load: Ajv's compiled checks where the runtime allows
 * code generation from strings, else an interpreter (Cloudflare Workers, a
 * strict CSP), so a raw JSON Schema tool works everywhere. A `$ref` to a
 * network URI is never fetched: the schema is refused at registration.
 */

import { compileWithAjv } from './json-schema-ajv.js';
import type { JsonSchemaCheck, JsonSchemaDialect } from './json-schema-check.js';
import { compileInterpreted } from './json-schema-interpreted.js';
import type { JsonSchemaObject, ResolvedSchema, Validation } from './types.js';

const DIALECTS: Readonly<Record<string, JsonSchemaDialect>> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'http://json-schema.org/draft-07/schema': 'draft-07',
};

export type JsonSchemaEngine = 'compiled' | 'interpreted';

let available: JsonSchemaEngine | undefined;

/** Whether `new Function` works here (it throws EvalError on Workers, and under a CSP without 'unsafe-eval'). */
function engineOfThisRuntime(): JsonSchemaEngine {
  if (!available) {
    try {
      available = new Function('return true')() === true ? 'compiled' : 'interpreted';
    } catch {
      available = 'interpreted';
    }
  }
  return available;
}

function dialectOf(jsonSchema: JsonSchemaObject): JsonSchemaDialect {
  const declared = typeof jsonSchema.$schema === 'string' ? jsonSchema.$schema : undefined;
  if (declared === undefined) return '2020-12';
  const dialect = DIALECTS[declared.replace(/#$/, '')];
  if (!dialect) throw new TypeError(`JSON Schema dialect ${declared} is not supported; use 2020-12 (the default) or draft-07`);
  return dialect;
}

/** `engine` is for tests; by default the runtime decides. */
export function fromJsonSchema<T>(jsonSchema: JsonSchemaObject, owner: string, engine: JsonSchemaEngine = engineOfThisRuntime()): ResolvedSchema<T> {
  const dialect = dialectOf(jsonSchema);
  let check: JsonSchemaCheck;
  try {
    check = engine === 'compiled' ? compileWithAjv(jsonSchema, dialect) : compileInterpreted(jsonSchema, dialect);
  } catch (error) {
    throw new TypeError(`${owner}: invalid JSON Schema (${(error as Error).message})`);
  }
  return {
    jsonSchema,
    validate(value: unknown): Validation<T> {
      const problem = check(value);
      return problem === undefined ? { ok: true, value: value as T } : { ok: false, message: problem };
    },
  };
}
