/**
 * A SKILL.md's YAML frontmatter: the block between the `---` line that opens
 * the file and the next `---` line, read as YAML 1.2 (core schema) into the
 * JSON object a skill entry carries, and compared field by field with an
 * entry's. Both sides read it here, so what a server publishes and what a
 * client checks are read the same way.
 */

import { parseDocument } from 'yaml';
import type { SkillFrontmatter } from './wire.js';

/** Why a SKILL.md's frontmatter could not be read. */
export class FrontmatterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrontmatterError';
  }
}

export interface SplitSkillFile {
  /** The YAML text between the delimiter lines. */
  yaml: string;
  /** Everything after the closing delimiter line. */
  body: string;
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*(?:\r?\n|$)/m;

/** The frontmatter block and the body, or undefined when the file does not open with one. */
export function splitFrontmatter(text: string): SplitSkillFile | undefined {
  const opening = OPENING.exec(text);
  if (!opening) return undefined;
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return undefined;
  // The newline before the closing delimiter ends the last YAML line; it is not part of the YAML.
  return { yaml: rest.slice(0, closing.index), body: rest.slice(closing.index + closing[0].length) };
}

/** Most aliases one frontmatter may expand (a billion-laughs block stops here). */
const MAX_ALIASES = 100;

/**
 * The frontmatter of a SKILL.md as a JSON object, with `name` and
 * `description` non-empty strings. Throws FrontmatterError saying what is wrong.
 */
export function readFrontmatter(text: string): SkillFrontmatter {
  const split = splitFrontmatter(text);
  if (!split) throw new FrontmatterError('SKILL.md does not begin with a YAML frontmatter block (a "---" line, the YAML, then a "---" line)');
  let value: unknown;
  try {
    const document = parseDocument(split.yaml, { version: '1.2', schema: 'core', uniqueKeys: true, prettyErrors: false });
    const error = document.errors[0];
    if (error) throw new FrontmatterError(`the frontmatter is not valid YAML: ${error.message}`);
    value = document.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    if (error instanceof FrontmatterError) throw error;
    throw new FrontmatterError(`the frontmatter is not valid YAML: ${(error as Error).message}`);
  }
  if (!isPlainObject(value)) throw new FrontmatterError('the frontmatter is not a YAML mapping of fields');
  const problem = notJson(value, 'frontmatter');
  if (problem) throw new FrontmatterError(problem);
  for (const field of ['name', 'description']) {
    if (typeof value[field] !== 'string' || value[field] === '') throw new FrontmatterError(`the frontmatter has no ${field} (a non-empty string is required)`);
  }
  return value as SkillFrontmatter;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** Where a parsed value holds something JSON cannot carry (`.inf`, `.nan`, a binary), or undefined. */
function notJson(value: unknown, at: string): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${at} is ${String(value)}, which JSON cannot carry`;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const problem = notJson(item, `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const problem = notJson(item, `${at}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  }
  return `${at} is not a JSON value`;
}

/** The fields whose values differ between two frontmatter objects (a field missing on one side differs, even from null). */
export function frontmatterDifferences(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const fields = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...fields].filter((field) => !(Object.hasOwn(a, field) && Object.hasOwn(b, field) && sameJson(a[field], b[field])));
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return frontmatterDifferences(a as Record<string, unknown>, b as Record<string, unknown>).length === 0;
}
