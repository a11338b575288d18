/**
 * Checks a form answer against the `requestedSchema` it answers, before it is
 * sent (spec §8.1: the client SHOULD validate). Elicitation forms use a small,
 * flat subset of JSON Schema — string (length, format, enum, titled oneOf),
 * number and integer (bounds), boolean, and arrays of enumerated strings
 * (item count) — so this is a checker for exactly that subset rather than a
 * general JSON Schema validator (which the client layer does not carry). A
 * property whose definition falls outside the subset gets only the check
 * every answer value must pass: a string, number, boolean or string list.
 */

import { isObject } from '../protocol/guards.js';

/** What is wrong with an answer: the field (when one is at fault) and a sentence naming it. */
export interface FormProblem {
  field: string | undefined;
  message: string;
}

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

/** The problem with a form answer, or undefined when it fits the schema. */
export function checkFormAnswer(requestedSchema: unknown, answer: unknown): FormProblem | undefined {
  if (!isObject(answer) || typeof answer.action !== 'string' || !ACTIONS.has(answer.action)) {
    return { field: undefined, message: 'the answer must have action "accept", "decline" or "cancel"' };
  }
  // Only an accepted form carries content; a decline or cancel need not fit the form.
  if (answer.action !== 'accept') return undefined;
  const content = answer.content ?? {};
  if (!isObject(content)) return { field: undefined, message: 'content must be an object of field values' };
  const schema = isObject(requestedSchema) ? requestedSchema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [field, value] of Object.entries(content)) {
    if (!Object.hasOwn(properties, field)) return { field, message: `field "${field}" is not in the form` };
    const problem = checkValue(properties[field], value);
    if (problem) return { field, message: `field "${field}" ${problem}` };
  }
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const field of required) {
    if (typeof field === 'string' && !Object.hasOwn(content, field)) return { field, message: `field "${field}" is required` };
  }
  return undefined;
}

/** What is wrong with one field's value under its definition, as the end of a sentence. */
function checkValue(definition: unknown, value: unknown): string | undefined {
  const def = isObject(definition) ? definition : {};
  switch (def.type) {
    case 'string':
      return typeof value === 'string' ? checkString(def, value) : 'must be a string';
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `must be a${def.type === 'integer' ? 'n integer' : ' number'}`;
      if (def.type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      if (typeof def.minimum === 'number' && value < def.minimum) return `must be at least ${def.minimum}`;
      if (typeof def.maximum === 'number' && value > def.maximum) return `must be at most ${def.maximum}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'array':
      return checkList(def, value);
    default:
      return isFieldValue(value) ? undefined : 'must be a string, number, boolean or list of strings';
  }
}

function checkString(def: Record<string, unknown>, value: string): string | undefined {
  const options = choices(def);
  if (options && !options.includes(value)) return `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}`;
  // Lengths count characters as JSON Schema does (code points, not UTF-16 units).
  const length = [...value].length;
  if (typeof def.minLength === 'number' && length < def.minLength) return `must be at least ${def.minLength} characters`;
  if (typeof def.maxLength === 'number' && length > def.maxLength) return `must be at most ${def.maxLength} characters`;
  if (typeof def.format === 'string' && !matchesFormat(def.format, value)) return `must be a valid ${def.format}`;
  return undefined;
}

function checkList(def: Record<string, unknown>, value: unknown): string | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return 'must be a list of strings';
  const options = isObject(def.items) ? choices(def.items) : undefined;
  const stray = options ? value.find((v) => !options.includes(v)) : undefined;
  if (stray !== undefined) return `has ${JSON.stringify(stray)}, which is not one of ${options!.map((o) => JSON.stringify(o)).join(', ')}`;
  if (typeof def.minItems === 'number' && value.length < def.minItems) return `must have at least ${def.minItems} items`;
  if (typeof def.maxItems === 'number' && value.length > def.maxItems) return `must have at most ${def.maxItems} items`;
  return undefined;
}

/** The allowed values of an enumerated definition (`enum`, or titled `oneOf` / `anyOf` of `const`s); undefined when it is not one. */
function choices(def: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(def.enum)) return def.enum.filter((v): v is string => typeof v === 'string');
  const titled = Array.isArray(def.oneOf) ? def.oneOf : Array.isArray(def.anyOf) ? def.anyOf : undefined;
  if (!titled) return undefined;
  return titled.flatMap((option) => (isObject(option) && typeof option.const === 'string' ? [option.const] : []));
}

function isFieldValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.every((v) => typeof v === 'string');
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/* ---- the formats the elicitation schema names (email, uri, date, date-time) ---- */

const EMAIL = /^[^\s@"<>()[\],;:\\]+@[^\s@"<>()[\],;:\\]+\.[^\s@"<>()[\],;:\\.]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Whether a value has the format; a format the spec does not name is not checked. */
export function matchesFormat(format: string, value: string): boolean {
  switch (format) {
    case 'email':
      return EMAIL.test(value);
    case 'uri':
      return isAbsoluteUri(value);
    case 'date':
      return isDate(value);
    case 'date-time': {
      const match = DATE_TIME.exec(value);
      if (!match || !isDate(match[1]!)) return false;
      const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])];
      const offsetOk = match[7] === undefined || (Number(match[7]) <= 23 && Number(match[8]) <= 59);
      // 60 allows a leap second, as RFC 3339 does.
      return hour <= 23 && minute <= 59 && second <= 60 && offsetOk;
    }
    default:
      return true;
  }
}

function isDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  // Day 0 of the next month is the last day of this one (setUTCFullYear: years below 100 stay as given).
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return day <= last.getUTCDate();
}

/** An absolute URI: a scheme (RFC 3986 §3.1), then something the URL parser accepts. */
function isAbsoluteUri(value: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value) || /\s/.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
