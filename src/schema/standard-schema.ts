/**
 * Standard Schemas that can describe themselves as JSON Schema (Standard JSON
 * Schema: zod v4, valibot, ArkType…): the JSON Schema is published, the
 * library's own validation runs (and may transform the value).
 */

import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonSchemaObject, ResolvedSchema, Validation } from './types.js';

/** A Standard Schema: an object (zod, valibot) or a function (ArkType's `type(…)` is callable) with `~standard`. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    '~standard' in value &&
    typeof (value as StandardSchemaV1)['~standard']?.validate === 'function'
  );
}

function describeIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

export function fromStandardSchema<T>(schema: StandardSchemaV1, role: 'input' | 'output', owner: string): ResolvedSchema<T> {
  // Standard JSON Schema adds `jsonSchema` to the `~standard` props; plain Standard Schemas lack it.
  const props: StandardSchemaV1.Props & Partial<Pick<StandardJSONSchemaV1.Props, 'jsonSchema'>> = schema['~standard'];
  const converter = props.jsonSchema;
  if (!converter) {
    throw new TypeError(
      `${owner}: this ${schema['~standard'].vendor} schema cannot describe itself as JSON Schema; ` +
        'use a library that implements Standard JSON Schema (e.g. zod v4) or pass a raw JSON Schema object',
    );
  }
  let jsonSchema: JsonSchemaObject;
  try {
    jsonSchema = converter[role]({ target: 'draft-2020-12' });
  } catch (error) {
    throw new TypeError(`${owner}: the schema cannot be expressed as JSON Schema (${(error as Error).message})`);
  }
  const validate = (value: unknown): Validation<T> | Promise<Validation<T>> => {
    const settle = (result: StandardSchemaV1.Result<unknown>): Validation<T> =>
      result.issues ? { ok: false, message: describeIssues(result.issues) } : { ok: true, value: result.value as T };
    const result = schema['~standard'].validate(value);
    return result instanceof Promise ? result.then(settle) : settle(result);
  };
  return { jsonSchema, validate };
}
