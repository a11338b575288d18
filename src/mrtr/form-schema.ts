/**
 * Form elicitation schemas. The spec allows only a flat object of primitive
 * fields (strings with a few formats, numbers, booleans, single- and
 * multi-select enums). A Standard Schema (zod v4…) is converted to that form
 * once; what a form cannot express fails loudly at ask time, naming the field.
 * Validation-only constraints a form cannot carry (e.g. `pattern`) are dropped
 * from the wire and still enforced on the answer by the original schema.
 */

import { isObject } from '../protocol/guards.js';
import type { ElicitRequestFormParams } from '../protocol/types.js';
import { isStandardSchema, resolveSchema, type ResolvedSchema, type SchemaInput } from '../schema/resolve.js';
import { BoundedCache } from './bounded-cache.js';
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

/** A form by content: for a raw schema with the check of the form as sent; a Standard Schema brings its own. */
type SharedForm = Omit<ResolvedForm<unknown>, 'resolved'> & { resolved?: ResolvedSchema<unknown> };

/**
 * What form questions' schemas resolve to, by content: a handler runs again
 * on every round, and one that writes its schema inline hands in a new object
 * each time; all of them share one entry, and nothing is kept per object. The
 * key is the schema's JSON as written, not a sorted one: property order is the
 * order the form shows its fields in. Bounded in entries and in bytes (what an
 * entry holds grows with its schema's text); the least recently used go first.
 */
export const resolvedForms = new BoundedCache<SharedForm>({ entries: 256, bytes: 2 * 1024 * 1024 });

/**
 * What an entry weighs: about 5.5 KiB (the form, its texts, the compiled check
 * and the Ajv instance that check keeps) plus 3 bytes per character of the
 * schema's JSON, as measured in heap on Node 20 for one field and for forty.
 */
const weightOf = (key: string): number => 5632 + 3 * key.length;

/**
 * Standard Schemas by the object: a Standard Schema tells its JSON Schema only
 * by converting itself, so the schema the author keeps remembers its form
 * (weakly: gone with the schema), and the form itself is shared by content.
 */
const ofStandardSchema = new WeakMap<object, ResolvedForm<unknown>>();

/** Resolves a form question's schema, once per content. */
export function resolveForm<T>(input: SchemaInput, where: string): ResolvedForm<T> {
  // A raw schema's entry has its check (makeForm).
  if (!isStandardSchema(input)) return formOfContent('raw', input, where) as ResolvedForm<T>;
  let form = ofStandardSchema.get(input);
  if (!form) {
    const resolved = resolveSchema(input, 'input', where);
    // A Standard Schema keeps its own (richer) validation; only the form it converts to is shared.
    const shared = formOfContent('standard', resolved.jsonSchema, where);
    form = { schema: shared.schema, canonical: shared.canonical, resolved };
    ofStandardSchema.set(input, form);
  }
  return form as ResolvedForm<T>;
}

function formOfContent(source: 'raw' | 'standard', jsonSchema: unknown, where: string): SharedForm {
  if (!isObject(jsonSchema)) throw new TypeError(`${where}: a form schema must be an object schema with properties`);
  let text: string;
  try {
    text = JSON.stringify(jsonSchema);
  } catch (error) {
    throw new TypeError(`${where}: the schema is not JSON (${(error as Error).message})`);
  }
  const key = `${source} ${text}`;
  // Made from a copy of the text: what the entry holds is exactly its key's content, whatever the author's objects become.
  return resolvedForms.get(key, () => makeForm(source, JSON.parse(text) as Json, where), () => weightOf(key));
}

function makeForm(source: 'raw' | 'standard', jsonSchema: Json, where: string): SharedForm {
  // A raw schema is checked as a whole (an invalid one fails here), then validated as sent.
  if (source === 'raw') resolveSchema(jsonSchema, 'input', where);
  const schema = restrictToForm(jsonSchema, where);
  // A raw schema goes out as written; the dialect a schema library adds says nothing a form needs.
  if (source === 'standard') delete schema.$schema;
  deepFreeze(schema); // shared by every question of this content: no handler may change another's
  const canonical = canonicalJson(schema);
  return source === 'raw' ? { schema, canonical, resolved: resolveSchema(schema, 'input', where) } : { schema, canonical };
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  for (const member of Object.values(value)) deepFreeze(member);
  Object.freeze(value);
}
