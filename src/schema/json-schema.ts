/**
 * Raw JSON Schema objects, published verbatim and validated with Ajv
 * (2020-12 by default, draft-07 when `$schema` says so). A `$ref` to a
 * network URI is never fetched: it fails compilation instead.
 */

import Ajv2020Module from 'ajv/dist/2020.js';
import AjvDraft7Module from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { JsonSchemaObject, ResolvedSchema, Validation } from './types.js';

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

export function fromJsonSchema<T>(jsonSchema: JsonSchemaObject, owner: string): ResolvedSchema<T> {
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
