/**
 * A form elicitation's requested schema, read as a list of fields to ask one
 * by one, and the checks each answer must pass. Pure: the terminal questions
 * (ask-form.ts) and the `--answers` checks both use it, so a typed answer and a
 * scripted one are held to the same rules.
 */

import { isObject } from 'tessera-mcp/protocol';

type Json = Record<string, unknown>;

export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';

export interface Option {
  value: string;
  label: string;
}

interface FieldBase {
  name: string;
  /** What the person sees: the title, else the property name. */
  label: string;
  description?: string;
  required: boolean;
}

export type FormField =
  | (FieldBase & { kind: 'text'; default?: string; format?: StringFormat; minLength?: number; maxLength?: number; pattern?: string })
  | (FieldBase & { kind: 'number'; integer: boolean; default?: number; minimum?: number; maximum?: number })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & { kind: 'choice'; options: Option[]; default?: string })
  | (FieldBase & { kind: 'choices'; options: Option[]; default?: string[]; minItems?: number; maxItems?: number })
  /** Anything the form rules do not allow (a server outside the spec): typed as JSON. */
  | (FieldBase & { kind: 'json'; default?: unknown });

const FORMATS = new Set<string>(['email', 'uri', 'date', 'date-time']);

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `{const, title}` options (titled enums) or plain enum values with optional legacy `enumNames`. */
function optionsOf(schema: Json): Option[] | undefined {
  const titled = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(titled) && titled.every((o) => isObject(o) && typeof o.const === 'string')) {
    return (titled as Json[]).map((o) => ({ value: o.const as string, label: typeof o.title === 'string' ? o.title : (o.const as string) }));
  }
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return (schema.enum as string[]).map((value, i) => ({ value, label: typeof names[i] === 'string' ? (names[i] as string) : value }));
  }
  return undefined;
}

function readField(name: string, schema: Json, required: boolean): FormField {
  const base: FieldBase = { name, label: typeof schema.title === 'string' ? schema.title : name, required };
  if (typeof schema.description === 'string' && schema.description !== '') base.description = schema.description;
  const fallback: FormField = { ...base, kind: 'json', ...(schema.default !== undefined ? { default: schema.default } : {}) };
  if (schema.type === 'array') {
    const options = isObject(schema.items) ? optionsOf(schema.items) : undefined;
    if (!options) return fallback;
    const field: FormField = { ...base, kind: 'choices', options };
    if (Array.isArray(schema.default) && schema.default.every((v) => typeof v === 'string')) field.default = schema.default as string[];
    if (num(schema.minItems) !== undefined) field.minItems = num(schema.minItems);
    if (num(schema.maxItems) !== undefined) field.maxItems = num(schema.maxItems);
    return field;
  }
  const options = optionsOf(schema);
  if (options && (schema.type === 'string' || schema.type === undefined)) {
    return { ...base, kind: 'choice', options, ...(typeof schema.default === 'string' ? { default: schema.default } : {}) };
  }
  switch (schema.type) {
    case 'string': {
      const field: FormField = { ...base, kind: 'text' };
      if (typeof schema.default === 'string') field.default = schema.default;
      if (typeof schema.format === 'string' && FORMATS.has(schema.format)) field.format = schema.format as StringFormat;
      if (num(schema.minLength) !== undefined) field.minLength = num(schema.minLength);
      if (num(schema.maxLength) !== undefined) field.maxLength = num(schema.maxLength);
      if (typeof schema.pattern === 'string') field.pattern = schema.pattern;
      return field;
    }
    case 'number':
    case 'integer': {
      const field: FormField = { ...base, kind: 'number', integer: schema.type === 'integer' };
      if (num(schema.default) !== undefined) field.default = num(schema.default);
      if (num(schema.minimum) !== undefined) field.minimum = num(schema.minimum);
      if (num(schema.maximum) !== undefined) field.maximum = num(schema.maximum);
      return field;
    }
    case 'boolean':
      return { ...base, kind: 'boolean', ...(typeof schema.default === 'boolean' ? { default: schema.default } : {}) };
    default:
      return fallback;
  }
}

/** The fields of a requested schema, in the order the server listed them. */
export function readFormFields(requestedSchema: unknown): FormField[] {
  const schema = isObject(requestedSchema) ? requestedSchema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(properties).map(([name, property]) => readField(name, isObject(property) ? property : {}, required.has(name)));
}

/* ---------------- checks: each returns a message for the person, or undefined when the value is fine ---------------- */

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function formatProblem(format: StringFormat, text: string): string | undefined {
  switch (format) {
    case 'email':
      return EMAIL.test(text) ? undefined : 'Enter an email address, like ada@example.com';
    case 'uri':
      try {
        new URL(text);
        return /^[a-z][a-z0-9+.-]*:/i.test(text) ? undefined : 'Enter a full URI, like https://example.com/page';
      } catch {
        return 'Enter a full URI, like https://example.com/page';
      }
    case 'date':
      return isCalendarDate(text) ? undefined : 'Enter a date as YYYY-MM-DD, like 2026-07-28';
    case 'date-time': {
      const match = DATE_TIME.exec(text);
      const fine =
        match !== null && isCalendarDate(match[1]!) && Number(match[2]) < 24 && Number(match[3]) < 60 && Number(match[4]) < 61;
      return fine ? undefined : 'Enter a date and time with a zone, like 2026-07-28T09:30:00Z';
    }
  }
}

export function checkText(field: Extract<FormField, { kind: 'text' }>, text: string): string | undefined {
  const length = [...text].length;
  if (field.minLength !== undefined && length < field.minLength) return `Enter at least ${field.minLength} character${field.minLength === 1 ? '' : 's'}`;
  if (field.maxLength !== undefined && length > field.maxLength) return `Enter at most ${field.maxLength} character${field.maxLength === 1 ? '' : 's'}`;
  if (field.format) {
    const problem = formatProblem(field.format, text);
    if (problem) return problem;
  }
  if (field.pattern !== undefined) {
    try {
      if (!new RegExp(field.pattern, 'u').test(text)) return `Must match the pattern ${field.pattern}`;
    } catch {
      // A pattern this engine cannot read is the server's problem; it validates the answer itself.
    }
  }
  return undefined;
}

/** What a number field accepts, in words ("an integer from 1 to 10"). */
export function describeNumber(field: Extract<FormField, { kind: 'number' }>): string {
  const what = field.integer ? 'an integer' : 'a number';
  const { minimum: min, maximum: max } = field;
  if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
  if (min !== undefined) return `${what} of at least ${min}`;
  if (max !== undefined) return `${what} of at most ${max}`;
  return what;
}

/** Reads a typed number; a string message when it is not one the field accepts. */
export function readNumber(field: Extract<FormField, { kind: 'number' }>, text: string): number | string {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value)) return `Enter ${describeNumber(field)}`;
  return checkNumber(field, value) ?? value;
}

export function checkNumber(field: Extract<FormField, { kind: 'number' }>, value: number): string | undefined {
  const fits =
    Number.isFinite(value) &&
    (!field.integer || Number.isInteger(value)) &&
    (field.minimum === undefined || value >= field.minimum) &&
    (field.maximum === undefined || value <= field.maximum);
  return fits ? undefined : `Enter ${describeNumber(field)}`;
}

export function checkChoices(field: Extract<FormField, { kind: 'choices' }>, values: readonly string[]): string | undefined {
  const { minItems: min, maxItems: max } = field;
  if (min !== undefined && values.length < min) return `Choose at least ${min}`;
  if (max !== undefined && values.length > max) return `Choose at most ${max}`;
  return undefined;
}

/** Problems with a whole answer (from `--answers`), one message per field, naming it. */
export function checkContent(fields: readonly FormField[], content: unknown): string[] {
  if (!isObject(content)) return ['the content must be an object of field values'];
  const problems: string[] = [];
  for (const field of fields) {
    const value = content[field.name];
    if (value === undefined) {
      if (field.required) problems.push(`"${field.name}" is required`);
      continue;
    }
    const problem = checkValue(field, value);
    if (problem) problems.push(`"${field.name}": ${problem}`);
  }
  return problems;
}

function checkValue(field: FormField, value: unknown): string | undefined {
  switch (field.kind) {
    case 'text':
      return typeof value === 'string' ? checkText(field, value) : 'must be a string';
    case 'number':
      return typeof value === 'number' ? checkNumber(field, value) : `must be ${describeNumber(field)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'choice':
      return typeof value === 'string' && field.options.some((o) => o.value === value)
        ? undefined
        : `must be one of ${field.options.map((o) => JSON.stringify(o.value)).join(', ')}`;
    case 'choices':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && field.options.some((o) => o.value === v))) {
        return `must be a list of ${field.options.map((o) => JSON.stringify(o.value)).join(', ')}`;
      }
      return checkChoices(field, value as string[]);
    case 'json':
      return undefined;
  }
}

/** A filled-in example for a form, for messages that show how to answer it in a file. */
export function exampleContent(fields: readonly FormField[]): Json {
  const example: Json = {};
  for (const field of fields) {
    switch (field.kind) {
      case 'text':
        example[field.name] = field.default ?? '';
        break;
      case 'number':
        example[field.name] = field.default ?? field.minimum ?? 0;
        break;
      case 'boolean':
        example[field.name] = field.default ?? true;
        break;
      case 'choice':
        example[field.name] = field.default ?? field.options[0]?.value ?? '';
        break;
      case 'choices':
        example[field.name] = field.default ?? [];
        break;
      case 'json':
        example[field.name] = field.default ?? null;
        break;
    }
  }
  return example;
}
