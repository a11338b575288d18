/**
 * Raw JSON Schema checked with Ajv, which compiles each schema to a function
 * (fast, but it needs `new Function`: not on Cloudflare Workers or under a
 * strict CSP). The schema is checked when it is compiled: an invalid one, or a
 * `$ref` to a network URI (never fetched), fails there.
 *
 * An Ajv instance keeps every schema it compiled, and every compiled function,
 * for as long as it lives (its cache is keyed by the schema object, and the
 * code's scope holds them all): one long-lived instance compiling a schema made
 * per request grows without end. So each schema is compiled on an instance of
 * its own, which lives exactly as long as the check made from it; the
 * long-lived instance of each dialect only checks schemas against the
 * meta-schema, which it compiled once.
 */

import Ajv2020Module from 'ajv/dist/2020.js';
import AjvDraft7Module from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchemaCheck, JsonSchemaDialect } from './json-schema-check.js';
import type { JsonSchemaObject } from './types.js';

type Ajv = import('ajv').default;

// The CommonJS builds of Ajv export the class as `default` under some loaders and directly under others.
type Ctor<T> = new (options: object) => T;
function unwrapDefault<T>(module: unknown): T {
  const m = module as { default?: T };
  return (m.default ?? module) as T;
}
const Ajv2020 = unwrapDefault<Ctor<Ajv>>(Ajv2020Module);
const AjvDraft7 = unwrapDefault<Ctor<Ajv>>(AjvDraft7Module);
const addFormats = unwrapDefault<(ajv: Ajv) => void>(addFormatsModule);

function newAjv(dialect: JsonSchemaDialect, checkSchemas: boolean): Ajv {
  // Unknown keywords (x-mcp-header, vendor annotations) are allowed; they are annotations.
  // No loadSchema: a $ref to a network URI is never fetched, and fails compilation instead.
  const options = { strict: false, allErrors: false, validateFormats: true, validateSchema: checkSchemas };
  const ajv = dialect === '2020-12' ? new Ajv2020(options) : new AjvDraft7(options);
  addFormats(ajv);
  return ajv;
}

const metaSchemaCheckers = new Map<JsonSchemaDialect, Ajv>();

/** Throws Ajv's "schema is invalid: …" when `schema` breaks its dialect's meta-schema. */
function checkAgainstMetaSchema(schema: JsonSchemaObject, dialect: JsonSchemaDialect): void {
  let checker = metaSchemaCheckers.get(dialect);
  if (!checker) metaSchemaCheckers.set(dialect, (checker = newAjv(dialect, true)));
  checker.validateSchema(schema, true);
}

/** Compiles `schema`; throws (with Ajv's reason) when it is not a usable schema. */
export function compileWithAjv(schema: JsonSchemaObject, dialect: JsonSchemaDialect): JsonSchemaCheck {
  checkAgainstMetaSchema(schema, dialect);
  // Checked above: the instance of this one schema need not compile the meta-schema again.
  const check = newAjv(dialect, false).compile(schema);
  return (value) => {
    if (check(value)) return undefined;
    const detail = (check.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
    return detail || 'does not match the schema';
  };
}
