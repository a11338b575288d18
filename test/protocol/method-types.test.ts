/**
 * The method map (protocol/method-types.ts) against the official 2026-07-28
 * schema: the core methods are exactly the schema's client requests, each
 * paired with the result definition the schema gives it, and the method
 * names the code uses are the schema's.
 */

import { describe, expect, it } from 'vitest';
import { Method } from '../../src/protocol/methods.js';
import { CORE_METHOD_RESULTS, TASK_METHODS, type ClientMethod, type CoreMethod, type CreateTaskResult, type ParamsByMethod, type ResultByMethod } from '../../src/protocol/method-types.js';
import type { InputRequiredResult } from '../../src/protocol/types.js';
import { loadSpecSchema } from '../helpers/spec-schema.js';
import schemaJson from '../spec/schema-2026-07-28.json' with { type: 'json' };

const spec = loadSpecSchema('schema-2026-07-28.json');
const defs = (schemaJson as { $defs: Record<string, { anyOf?: Array<{ $ref: string }>; properties?: { method?: { const?: string } } }> }).$defs;

/** The methods of the requests in a union definition of the schema (ClientRequest, ServerRequest…). */
function methodsOf(union: string): string[] {
  return (defs[union]?.anyOf ?? []).map((member) => defs[member.$ref.replace('#/$defs/', '')]?.properties?.method?.const ?? '?');
}

/** The named (not index-signature) keys of a type. */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
/** A method's complete result (not input_required, not a task). */
type CompleteOf<M extends CoreMethod> = Exclude<ResultByMethod[M], InputRequiredResult | CreateTaskResult>;

/**
 * The fields the schema requires of each core result and request's params; the
 * types make every name here a field of our type (a typo or a missing field
 * fails the type check), and the test checks the lists against the schema.
 */
const REQUIRED_RESULT_FIELDS: { [M in CoreMethod]: ReadonlyArray<KnownKeys<CompleteOf<M>>> } = {
  'server/discover': ['supportedVersions', 'capabilities', 'ttlMs', 'cacheScope'],
  'tools/list': ['tools', 'ttlMs', 'cacheScope'],
  'tools/call': ['content'],
  'resources/list': ['resources', 'ttlMs', 'cacheScope'],
  'resources/templates/list': ['resourceTemplates', 'ttlMs', 'cacheScope'],
  'resources/read': ['contents', 'ttlMs', 'cacheScope'],
  'prompts/list': ['prompts', 'ttlMs', 'cacheScope'],
  'prompts/get': ['messages'],
  'completion/complete': ['completion'],
  'subscriptions/listen': ['_meta'],
};
const REQUIRED_PARAMS: { [M in CoreMethod]: ReadonlyArray<KnownKeys<ParamsByMethod[M]>> } = {
  'server/discover': ['_meta'],
  'tools/list': ['_meta'],
  'tools/call': ['_meta', 'name'],
  'resources/list': ['_meta'],
  'resources/templates/list': ['_meta'],
  'resources/read': ['_meta', 'uri'],
  'prompts/list': ['_meta'],
  'prompts/get': ['_meta', 'name'],
  'completion/complete': ['_meta', 'ref', 'argument'],
  'subscriptions/listen': ['_meta', 'notifications'],
};

type Def = { required?: string[]; properties?: Record<string, { $ref?: string }>; allOf?: Def[] };
/** The required fields of a definition, through `allOf`, leaving out `resultType` (finishing adds it to every result). */
function requiredOf(name: string): string[] {
  const def = (schemaJson as unknown as { $defs: Record<string, Def> }).$defs[name];
  if (!def) throw new Error(`No $defs.${name}`);
  const own = def.required ?? [];
  const inherited = (def.allOf ?? []).flatMap((part) => ('$ref' in part ? requiredOf(String((part as { $ref: string }).$ref).replace('#/$defs/', '')) : (part.required ?? [])));
  return [...new Set([...own, ...inherited])].filter((field) => field !== 'resultType').sort();
}

describe('the method map, against the official schema', () => {
  it.each(Object.entries(REQUIRED_RESULT_FIELDS))('types every field the schema requires of the %s result', (method, fields) => {
    expect([...fields].sort()).toEqual(requiredOf(CORE_METHOD_RESULTS[method as CoreMethod]));
  });

  it.each(Object.entries(REQUIRED_PARAMS))('types every field the schema requires of the %s params', (method, fields) => {
    const request = defs[Object.keys(defs).find((name) => name.endsWith('Request') && defs[name]?.properties?.method?.const === method)!];
    const paramsRef = (request as { properties?: { params?: { $ref?: string } } }).properties?.params?.$ref;
    const required = paramsRef ? requiredOf(paramsRef.replace('#/$defs/', '')) : [];
    expect([...fields].sort()).toEqual(required);
  });

  it('has exactly the client requests of the schema as its core methods', () => {
    const schemaMethods = methodsOf('ClientRequest');
    expect(schemaMethods.length).toBeGreaterThan(5);
    expect(Object.keys(CORE_METHOD_RESULTS).sort()).toEqual([...schemaMethods].sort());
  });

  it.each(Object.entries(CORE_METHOD_RESULTS))('answers %s with the schema result %s', (method, result) => {
    expect(spec.resultFor(method)).toBe(result);
  });

  it('names methods as the schema does (Method lists the core methods, nothing else)', () => {
    expect(Object.values(Method).sort()).toEqual(Object.keys(CORE_METHOD_RESULTS).sort());
  });

  it('keeps the Tasks extension methods out of the core schema', () => {
    for (const method of TASK_METHODS) expect(methodsOf('ClientRequest')).not.toContain(method);
    // Both lists together are the client methods the types know.
    const all: ClientMethod[] = [...(Object.keys(CORE_METHOD_RESULTS) as CoreMethod[]), ...TASK_METHODS];
    expect(new Set(all).size).toBe(13);
  });
});
