/** What the rest of Tessera sees of a schema: the JSON Schema it publishes and how it checks a value. */

import type { StandardSchemaV1 } from '@standard-schema/spec';

/** A raw JSON Schema object, kept exactly as written. */
export type JsonSchemaObject = Record<string, unknown>;

/** A schema the registration API accepts: a Standard Schema (zod v4, valibot, ArkType…) or a raw JSON Schema object. */
export type SchemaInput = StandardSchemaV1 | JsonSchemaObject;

export type Validation<T> = { ok: true; value: T } | { ok: false; message: string };

export interface ResolvedSchema<T = unknown> {
  /** The JSON Schema published on the wire. */
  readonly jsonSchema: JsonSchemaObject;
  /** Checks (and, for Standard Schemas, transforms) a value. */
  validate(value: unknown): Validation<T> | Promise<Validation<T>>;
}
