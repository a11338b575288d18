/**
 * Form elicitation schemas. The spec allows only a flat object of primitive
 * fields (strings with a few formats, numbers, booleans, single- and
 * multi-select enums). A Standard Schema (zod v4…) is converted to that form
 * once; what a form cannot express fails loudly at ask time, naming the field.
 * Validation-only constraints a form cannot carry (e.g. `pattern`) are dropped
 * from the wire and still enforced on the answer by the original schema.
 */

import type { ElicitRequestFormParams } from '../protocol/types.js';
import { isStandardSchema, resolveSchema, type ResolvedSchema, type SchemaInput } from '../schema/resolve.js';
import { canonicalJson } from './digest.js';

export type FormSchema = ElicitRequestFormParams['requestedSchema'];

export interface ResolvedForm<T> {
  schema: FormSchema;
  resolved: ResolvedSchema<T>;
  /** The schema's canonical JSON, made once: questions asked with it are digested every round. */
  canonical: string;
}

const STRING_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

type Json = Record<string, unknown>;

function copy(source: Json, target: Json, keys: readonly string[]): void {
  for (const key of keys) if (source[key] !== undefined) target[key] = source[key];
}

function isStringOption(option: unknown): option is { const: string; title?: string } {
  return typeof option === 'object' && option !== null && typeof (option as Json).const === 'string';
}

/** Converts one property; returns an error description when a form cannot hold it. */
function convertProperty(property: Json): Json | string {
  const options = (property.oneOf ?? property.anyOf) as unknown[] | undefined;
  if (Array.isArray(options) && property.type !== 'array') {
    if (options.some((o) => typeof o === 'object' && o !== null && (o as Json).type === 'null')) {
      return 'nullable (make it optional instead)';
    }
    if (!options.every(isStringOption)) return 'a union of types other than string constants';
    const out: Json = { type: 'string', oneOf: options.map((o) => ({ const: o.const, title: o.title ?? o.const })) };
    copy(property, out, ['title', 'description', 'default']);
    return out;
  }
  switch (property.type) {
    case 'string': {
      const out: Json = { type: 'string' };
      if (Array.isArray(property.enum)) out.enum = property.enum;
      else if (typeof property.const === 'string') out.enum = [property.const];
      copy(property, out, ['title', 'description', 'minLength', 'maxLength', 'default']);
      if (Array.isArray(property.enumNames)) out.enumNames = property.enumNames;
      if (typeof property.format === 'string' && STRING_FORMATS.has(property.format)) out.format = property.format;
      return out;
    }
    case 'number':
    case 'integer': {
      const out: Json = { type: property.type };
      copy(property, out, ['title', 'description', 'default']);
      // zod publishes the safe-integer range on every int; it says nothing to a person filling a form.
      if (typeof property.minimum === 'number' && property.minimum > -MAX_SAFE) out.minimum = property.minimum;
      if (typeof property.maximum === 'number' && property.maximum < MAX_SAFE) out.maximum = property.maximum;
      return out;
    }
    case 'boolean': {
      const out: Json = { type: 'boolean' };
      copy(property, out, ['title', 'description', 'default']);
      return out;
    }
    case 'array': {
      const items = property.items as Json | undefined;
      if (!items) return 'an array without item type';
      const out: Json = { type: 'array' };
      if (items.type === 'string' && Array.isArray(items.enum)) out.items = { type: 'string', enum: items.enum };
      else {
        const itemOptions = (items.anyOf ?? items.oneOf) as unknown[] | undefined;
        if (!Array.isArray(itemOptions) || !itemOptions.every(isStringOption)) {
          return 'an array of something other than enumerated strings';
        }
        out.items = { anyOf: itemOptions.map((o) => ({ const: o.const, title: o.title ?? o.const })) };
      }
      copy(property, out, ['title', 'description', 'minItems', 'maxItems', 'default']);
      return out;
    }
    case 'object':
      return 'a nested object';
    default:
      return property.type === undefined ? 'of no declared type' : `of type ${JSON.stringify(property.type)}`;
  }
}

/** Turns a JSON Schema object into the restricted form schema, or throws naming every field a form cannot hold. */
export function restrictToForm(jsonSchema: Json, where: string): FormSchema {
  if (jsonSchema.type !== 'object' || typeof jsonSchema.properties !== 'object' || jsonSchema.properties === null) {
    throw new TypeError(`${where}: a form schema must be an object schema with properties`);
  }
  const properties: Record<string, Json> = {};
  const problems: string[] = [];
  for (const [name, property] of Object.entries(jsonSchema.properties as Record<string, Json>)) {
    const converted = convertProperty(property ?? {});
    if (typeof converted === 'string') problems.push(`field "${name}" is ${converted}`);
    else properties[name] = converted;
  }
  if (problems.length > 0) {
    throw new TypeError(
      `${where}: this schema cannot be asked as a form (forms hold only flat strings, numbers, booleans and enums): ${problems.join('; ')}. ` +
        'Split the question, or use URL mode for anything richer.',
    );
  }
  const schema: FormSchema = { type: 'object', properties };
  if (typeof jsonSchema.$schema === 'string') schema.$schema = jsonSchema.$schema;
  if (Array.isArray(jsonSchema.required) && jsonSchema.required.length > 0) schema.required = jsonSchema.required as string[];
  return schema;
}

const converted = new WeakMap<object, ResolvedForm<unknown>>();

/** Resolves a form question's schema once per schema object. */
export function resolveForm<T>(input: SchemaInput, where: string): ResolvedForm<T> {
  const hit = converted.get(input);
  if (hit) return hit as ResolvedForm<T>;
  const resolved = resolveSchema<T>(input, 'input', where);
  const schema = restrictToForm(resolved.jsonSchema, where);
  // A raw schema goes out as written; the dialect a schema library adds says nothing a form needs.
  if (isStandardSchema(input)) delete schema.$schema;
  // A raw schema is validated as sent; a Standard Schema keeps its own (richer) validation.
  const form: ResolvedForm<T> = {
    schema,
    resolved: isStandardSchema(input) ? resolved : resolveSchema<T>(schema, 'input', where),
    canonical: canonicalJson(schema),
  };
  converted.set(input, form as ResolvedForm<unknown>);
  return form;
}
