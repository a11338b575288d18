/** Loads one of the official MCP JSON schemas (vendored in test/spec, see its README) for validating wire messages by definition name. */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';

type AjvInstance = import('ajv').default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as new (o: object) => AjvInstance;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: AjvInstance) => void;

export interface SpecSchema {
  /** Validates `value` as `$defs[def]`; returns the error text, or undefined when valid. */
  errors(def: string, value: unknown): string | undefined;
  /** Request and notification definitions, by the `method` const they carry. */
  byMethod: ReadonlyMap<string, string>;
  /** The result definition of a request method: `XRequest` answers with `XResult`, or with `EmptyResult` where the schema has no `XResult`. */
  resultFor(method: string): string | undefined;
}

export function loadSpecSchema(file: 'schema-2026-07-28.json' | 'schema-2025-11-25.json'): SpecSchema {
  const path = fileURLToPath(new URL(`../spec/${file}`, import.meta.url));
  const schema = JSON.parse(readFileSync(path, 'utf8')) as { $defs: Record<string, { properties?: Record<string, { const?: string }> }> };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...schema, $id: 'mcp' });
  const cache = new Map<string, ValidateFunction>();
  const byMethod = new Map<string, string>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def.properties?.method?.const;
    if (typeof method === 'string' && (name.endsWith('Request') || name.endsWith('Notification'))) byMethod.set(method, name);
  }
  return {
    byMethod,
    resultFor(method) {
      const request = byMethod.get(method);
      if (!request?.endsWith('Request')) return undefined;
      const result = `${request.slice(0, -'Request'.length)}Result`;
      if (schema.$defs[result]) return result;
      return schema.$defs.EmptyResult ? 'EmptyResult' : undefined;
    },
    errors(def, value) {
      let fn = cache.get(def);
      if (!fn) {
        if (!schema.$defs[def]) throw new Error(`No $defs.${def} in ${file}`);
        fn = ajv.getSchema(`mcp#/$defs/${def}`)!;
        cache.set(def, fn);
      }
      return fn(value) ? undefined : ajv.errorsText(fn.errors as ErrorObject[]);
    },
  };
}
