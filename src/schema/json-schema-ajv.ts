/**
 * Raw JSON Schema checked with Ajv, which compiles each schema to a function
 * (fast, but it needs `new Function`: not on Cloudflare Workers or under a
 * strict CSP). The schema is checked when it is compiled: an invalid one, or a
 * `$ref` to a network URI (never fetched), fails there.
 */

import Ajv2020Module from 'ajv/dist/2020.js';
import AjvDraft7Module from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchemaCheck, JsonSchemaDialect } from './json-schema-check.js';
import type { JsonSchemaObject } from './types.js';

// The CommonJS builds of Ajv export the class as `default` under some loaders and directly under others.
type Ctor<T> = new (options: object) => T;
function unwrapDefault<T>(module: unknown): T {
  const m = module as { default?: T };
  return (m.default ?? module) as T;
}
const Ajv2020 = unwrapDefault<Ctor<import('ajv').default>>(Ajv2020Module);
const AjvDraft7 = unwrapDefault<Ctor<import('ajv').default>>(AjvDraft7Module);
const addFormats = unwrapDefault<(ajv: import('ajv').default) => void>(addFormatsModule);

const instances = new Map<JsonSchemaDialect, import('ajv').default>();

function ajvFor(dialect: JsonSchemaDialect): import('ajv').default {
  let ajv = instances.get(dialect);
  if (!ajv) {
    // Unknown keywords (x-mcp-header, vendor annotations) are allowed; they are annotations.
    // No loadSchema: a $ref to a network URI is never fetched, and fails compilation instead.
    const options = { strict: false, allErrors: false, validateFormats: true };
    ajv = dialect === '2020-12' ? new Ajv2020(options) : new AjvDraft7(options);
    addFormats(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** Compiles `schema`; throws (with Ajv's reason) when it is not a usable schema. */
export function compileWithAjv(schema: JsonSchemaObject, dialect: JsonSchemaDialect): JsonSchemaCheck {
  const check = ajvFor(dialect).compile(schema);
  return (value) => {
    if (check(value)) return undefined;
    const detail = (check.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
    return detail || 'does not match the schema';
  };
}
