/**
 * Raw JSON Schema checked by an interpreter (@cfworker/json-schema), for
 * runtimes that refuse code generation from strings (Cloudflare Workers, a
 * strict CSP). Slower than Ajv's compiled checks, and it does not check the
 * schema itself against the meta-schema; a `$ref` outside the schema (to a
 * network URI, never fetched) is refused here, when the schema is compiled.
 */

import { Validator, type Schema } from '@cfworker/json-schema';
import type { JsonSchemaCheck, JsonSchemaDialect } from './json-schema-check.js';
import type { JsonSchemaObject } from './types.js';

/** Every `$ref` and `$id` in a schema, however deep. */
function refsAndIds(node: unknown, refs: string[], ids: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) refsAndIds(item, refs, ids);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') refs.push(value);
    else if (key === '$id' && typeof value === 'string') ids.add(value.replace(/#$/, ''));
    else refsAndIds(value, refs, ids);
  }
}

/** Throws for a `$ref` that points outside the schema (a relative fragment, or an `$id` it declares, is inside). */
function refuseOutsideRefs(schema: JsonSchemaObject): void {
  const refs: string[] = [];
  const ids = new Set<string>();
  refsAndIds(schema, refs, ids);
  for (const ref of refs) {
    const target = ref.split('#')[0]!;
    if (target !== '' && !ids.has(target)) throw new Error(`can't resolve reference ${ref} (references outside the schema are never fetched)`);
  }
}

/** `#/quantity` → `/quantity`, `#` → `(root)`, as Ajv words it. */
function pointerOf(location: string): string {
  const pointer = location.replace(/^#/, '');
  return pointer === '' ? '(root)' : pointer;
}

export function compileInterpreted(schema: JsonSchemaObject, dialect: JsonSchemaDialect): JsonSchemaCheck {
  refuseOutsideRefs(schema);
  // Short-circuit: stop at the first failing keyword, as Ajv does with allErrors off. The validator writes
  // its own annotations into the schema it is given, and a resolved form schema is frozen: give it a copy.
  const validator = new Validator(structuredClone(schema) as Schema, dialect === '2020-12' ? '2020-12' : '7', true);
  return (value) => {
    const result = validator.validate(value);
    if (result.valid) return undefined;
    // The last error is the innermost one (the failing keyword); those before it are the enclosing "does not match".
    // A `false` schema's own error says nothing ("False boolean schema"): the one enclosing it names the property.
    const innermost = result.errors.findLast((e) => e.keyword !== 'false');
    return innermost ? `${pointerOf(innermost.instanceLocation)} ${innermost.error}` : 'does not match the schema';
  };
}
