/**
 * Schemas for tool inputs and outputs: any Standard Schema that can describe
 * itself as JSON Schema (zod v4, valibot, arktype…), or a raw JSON Schema
 * object that is published verbatim and validated with Ajv.
 */

import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import Ajv2020Module from 'ajv/dist/2020.js';
import AjvDraft7Module from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

/** A raw JSON Schema object, kept exactly as written. */
export type JsonSchemaObject = Record<string, unknown>;

/** A schema the registration API accepts. */
export type SchemaInput = StandardSchemaV1 | JsonSchemaObject;

export type Validation<T> = { ok: true; value: T } | { ok: false; message: string };

export interface ResolvedSchema<T = unknown> {
  /** The JSON Schema published on the wire. */
  readonly jsonSchema: JsonSchemaObject;
  /** Checks (and, for Standard Schemas, transforms) a value. */
  validate(value: unknown): Validation<T> | Promise<Validation<T>>;
}

// The CommonJS builds of Ajv export the class as `default` under some loaders and directly under others.
type Ctor<T> = new (options: object) => T;
function unwrapDefault<T>(module: unknown): T {
  const m = module as { default?: T };
  return (m.default ?? module) as T;
}
const Ajv2020 = unwrapDefault<Ctor<import('ajv').default>>(Ajv2020Module);
const AjvDraft7 = unwrapDefault<Ctor<import('ajv').default>>(AjvDraft7Module);
const addFormats = unwrapDefault<(ajv: import('ajv').default) => void>(addFormatsModule);

const DIALECT_2020 = 'https://json-schema.org/draft/2020-12/schema';
const DIALECT_07 = 'http://json-schema.org/draft-07/schema';

let ajv2020: import('ajv').default | undefined;
let ajv07: import('ajv').default | undefined;

function ajvFor(dialect: string | undefined): import('ajv').default {
  // Unknown keywords (x-mcp-header, vendor annotations) are allowed; they are annotations.
  // No loadSchema: a $ref to a network URI is never fetched, and fails compilation instead.
  const options = { strict: false, allErrors: false, validateFormats: true };
  const normalized = dialect?.replace(/#$/, '');
  if (normalized === undefined || normalized === DIALECT_2020) {
    if (!ajv2020) {
      ajv2020 = new Ajv2020(options);
      addFormats(ajv2020);
    }
    return ajv2020;
  }
  if (normalized === DIALECT_07) {
    if (!ajv07) {
      ajv07 = new AjvDraft7(options);
      addFormats(ajv07);
    }
    return ajv07;
  }
  throw new TypeError(`JSON Schema dialect ${dialect} is not supported; use 2020-12 (the default) or draft-07`);
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    typeof value === 'object' &&
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

function fromStandardSchema<T>(schema: StandardSchemaV1, role: 'input' | 'output', owner: string): ResolvedSchema<T> {
  const converter = (schema as unknown as Partial<StandardJSONSchemaV1>)['~standard']?.jsonSchema;
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

function fromJsonSchema<T>(jsonSchema: JsonSchemaObject, owner: string): ResolvedSchema<T> {
  let check: ValidateFunction;
  try {
    check = ajvFor(typeof jsonSchema.$schema === 'string' ? jsonSchema.$schema : undefined).compile(jsonSchema);
  } catch (error) {
    throw new TypeError(`${owner}: invalid JSON Schema (${(error as Error).message})`);
  }
  return {
    jsonSchema,
    validate(value: unknown): Validation<T> {
      if (check(value)) return { ok: true, value: value as T };
      const detail = (check.errors ?? [])
        .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
        .join('; ');
      return { ok: false, message: detail || 'does not match the schema' };
    },
  };
}

/** Resolves a registration-time schema; throws a TypeError naming `owner` when it is unusable. */
export function resolveSchema<T = unknown>(input: SchemaInput, role: 'input' | 'output', owner: string): ResolvedSchema<T> {
  return isStandardSchema(input) ? fromStandardSchema<T>(input, role, owner) : fromJsonSchema<T>(input, owner);
}
