/**
 * The CLI's pure parts, without processes: typing key=value arguments by a
 * schema, reading form schemas into fields and checking answers, reviewing a
 * URL before a person opens it, finding the target, roots, answers files.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnswersFile } from '../../cli/src/answers-file.js';
import { reviewUrl } from '../../cli/src/ask-url.js';
import { checkContent, checkText, readFormFields, readNumber, type FormField } from '../../cli/src/form-fields.js';
import { rootsFrom } from '../../cli/src/input-handlers.js';
import { UsageError } from '../../cli/src/errors.js';
import { resolveTarget, splitAtDoubleDash } from '../../cli/src/target.js';
import { parsePromptArguments, parseToolArguments, sampleArguments } from '../../cli/src/tool-arguments.js';

const dir = mkdtempSync(join(tmpdir(), 'tessera-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('key=value arguments', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      count: { type: 'integer' },
      ratio: { type: 'number' },
      on: { type: 'boolean' },
      tags: { type: 'array' },
      meta: { type: 'object' },
      either: { type: ['integer', 'null'] },
      level: { enum: ['low', 2] },
      choice: { anyOf: [{ type: 'number' }, { type: 'boolean' }] },
    },
    required: ['name', 'level'],
  };

  it('are typed by the schema', () => {
    expect(
      parseToolArguments(['name=42', 'count=-7', 'ratio=1e3', 'on=no', 'tags=[1,"x"]', 'meta={"a":{}}', 'either=null', 'level=2', 'choice=true'], schema),
    ).toEqual({ name: '42', count: -7, ratio: 1000, on: false, tags: [1, 'x'], meta: { a: {} }, either: null, level: 2, choice: true });
  });

  it('stay strings where the schema says nothing, keep "=" in values, and take JSON with :=', () => {
    expect(parseToolArguments(['other=1', 'eq=a=b', 'name:="5"', 'raw:=[true]'], schema)).toEqual({ other: '1', eq: 'a=b', name: '5', raw: [true] });
    expect(parseToolArguments(['x=1'])).toEqual({ x: '1' });
  });

  it('are refused with a message when they do not fit', () => {
    expect(() => parseToolArguments(['count=1.5'], schema)).toThrow("count=1.5: the tool's schema wants integer");
    expect(() => parseToolArguments(['on=maybe'], schema)).toThrow('wants boolean');
    expect(() => parseToolArguments(['tags={}'], schema)).toThrow('wants array (as JSON)');
    expect(() => parseToolArguments(['meta:={oops'], schema)).toThrow('is not valid JSON');
    expect(() => parseToolArguments(['novalue'], schema)).toThrow('is not key=value');
    expect(() => parseToolArguments(['=x'], schema)).toThrow('is not key=value');
    expect(() => parseToolArguments(['a=1', 'a=2'], schema)).toThrow('"a" is given twice');
  });

  it('for prompts are strings', () => {
    expect(parsePromptArguments(['n=1', 's:="two"'])).toEqual({ n: '1', s: 'two' });
    expect(() => parsePromptArguments(['n:=1'])).toThrow('prompt arguments are strings');
  });

  it('have a sample line for hints, placeholders quoted for the shell', () => {
    expect(sampleArguments({ type: 'object', properties: { service: { type: 'string' }, env: { enum: ['staging', 'prod'] }, n: { type: 'integer', default: 2 } }, required: ['service', 'env', 'n'] })).toBe(
      "'service=<string>' env=staging n=2",
    );
  });
});

describe('form fields', () => {
  const fields = readFormFields({
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email', title: 'Email' },
      when: { type: 'string', format: 'date-time' },
      day: { type: 'string', format: 'date' },
      site: { type: 'string', format: 'uri' },
      short: { type: 'string', minLength: 2, maxLength: 3 },
      n: { type: 'integer', minimum: 1, maximum: 4, default: 2 },
      x: { type: 'number', maximum: 1 },
      ok: { type: 'boolean', default: true },
      size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
      colour: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }] },
      many: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 1 },
      titled: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] } },
      odd: { type: 'object' },
    },
    required: ['email', 'n'],
  });
  const field = <K extends FormField['kind']>(name: string): Extract<FormField, { kind: K }> => fields.find((f) => f.name === name) as Extract<FormField, { kind: K }>;

  it('are read in order with their kinds, labels, defaults and bounds', () => {
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['email', 'text', true],
      ['when', 'text', false],
      ['day', 'text', false],
      ['site', 'text', false],
      ['short', 'text', false],
      ['n', 'number', true],
      ['x', 'number', false],
      ['ok', 'boolean', false],
      ['size', 'choice', false],
      ['colour', 'choice', false],
      ['many', 'choices', false],
      ['titled', 'choices', false],
      ['odd', 'json', false],
    ]);
    expect(field<'text'>('email').label).toBe('Email');
    expect(field<'number'>('n')).toMatchObject({ integer: true, minimum: 1, maximum: 4, default: 2 });
    expect(field<'choice'>('size').options).toEqual([
      { value: 's', label: 'Small' },
      { value: 'm', label: 'Medium' },
    ]);
    expect(field<'choices'>('titled').options).toEqual([{ value: 'a', label: 'A' }]);
  });

  it('check typed text by format and length', () => {
    expect(checkText(field('email'), 'ada@example.com')).toBeUndefined();
    expect(checkText(field('email'), 'ada@')).toContain('email address');
    expect(checkText(field('when'), '2026-07-28T09:30:00+02:00')).toBeUndefined();
    expect(checkText(field('when'), '2026-07-28 09:30')).toContain('date and time');
    expect(checkText(field('day'), '2024-02-29')).toBeUndefined();
    expect(checkText(field('day'), '2026-02-29')).toContain('YYYY-MM-DD');
    expect(checkText(field('site'), 'https://example.com/x')).toBeUndefined();
    expect(checkText(field('site'), 'example.com')).toContain('full URI');
    expect(checkText(field('short'), 'a')).toBe('Enter at least 2 characters');
    expect(checkText(field('short'), 'abcd')).toBe('Enter at most 3 characters');
  });

  it('check numbers against their type and bounds', () => {
    expect(readNumber(field('n'), ' 3 ')).toBe(3);
    expect(readNumber(field('n'), '2.5')).toBe('Enter an integer from 1 to 4');
    expect(readNumber(field('n'), '5')).toBe('Enter an integer from 1 to 4');
    expect(readNumber(field('x'), 'abc')).toBe('Enter a number of at most 1');
  });

  it('check a whole answer (from --answers), naming each wrong field', () => {
    expect(checkContent(fields, { email: 'ada@example.com', n: 2, size: 'm', many: ['a'] })).toEqual([]);
    expect(checkContent(fields, { n: 9, ok: 'yes', size: 'xl', many: ['a', 'b'] })).toEqual([
      '"email" is required',
      '"n": Enter an integer from 1 to 4',
      '"ok": must be true or false',
      '"size": must be one of "s", "m"',
      '"many": Choose at most 1',
    ]);
  });
});

describe('URL review', () => {
  it('highlights the host where it stands and names the domain', () => {
    const review = reviewUrl('https://accounts.example.com/sign-in?next=/home');
    expect(review.domain).toBe('accounts.example.com');
    expect(review.warnings).toEqual([]);
    expect(review.shown.replace(/\x1b\[[0-9;]*m/g, '')).toBe('https://accounts.example.com/sign-in?next=/home');
  });

  it('warns about punycode look-alikes, user names before "@", plain http and other schemes', () => {
    expect(reviewUrl('https://xn--pple-43d.com/login').warnings[0]).toContain('xn--pple-43d.com is shown by browsers as "аpple.com"');
    expect(reviewUrl('https://bank.com@evil.example/').warnings[0]).toContain('the site is evil.example');
    expect(reviewUrl('http://example.com/').warnings).toEqual(['It is not encrypted (http, not https).']);
    expect(reviewUrl('http://127.0.0.1:3000/sign-in').warnings).toEqual([]);
    expect(reviewUrl('javascript:alert(1)').warnings[0]).toContain('not a web page');
    expect(reviewUrl('not a url').warnings).toEqual(['This is not a valid URL; do not open it.']);
  });
});

describe('targets', () => {
  it('are a URL first, or a command after "--"', () => {
    const split = splitAtDoubleDash(['deploy', 'a=1', '--json', '--', 'node', 'server.js', '--stdio']);
    expect(split).toEqual({ ours: ['deploy', 'a=1', '--json'], serverCommand: ['node', 'server.js', '--stdio'] });
    expect(resolveTarget('call', ['deploy', 'a=1'], split.serverCommand)).toEqual({
      target: { kind: 'stdio', command: 'node', args: ['server.js', '--stdio'] },
      rest: ['deploy', 'a=1'],
    });
    expect(resolveTarget('call', ['http://h/mcp', 'deploy'], undefined)).toEqual({ target: { kind: 'http', url: 'http://h/mcp' }, rest: ['deploy'] });
  });

  it('are refused when missing, twice given, or empty', () => {
    expect(() => resolveTarget('call', ['deploy'], undefined)).toThrow('"deploy" is not a URL');
    expect(() => resolveTarget('list', [], undefined)).toThrow('Which server?');
    expect(() => resolveTarget('call', ['http://h/mcp', 'x'], ['node'])).toThrow('not both');
    expect(() => resolveTarget('call', ['x'], [])).toThrow('Nothing after "--"');
  });
});

describe('roots', () => {
  it('are none by default (never the working directory unasked), paths as file:// URIs, file:// URIs as given', () => {
    expect(rootsFrom([])).toEqual([]);
    expect(rootsFrom(['/tmp/a b', 'file:///srv/r'])).toEqual([{ uri: 'file:///tmp/a%20b', name: 'a b' }, { uri: 'file:///srv/r' }]);
  });

  it('refuse a URI that is not file:// (roots are file:// URIs), as a usage error', () => {
    expect(() => rootsFrom(['https://example.com/r'])).toThrow(UsageError);
    expect(() => rootsFrom(['https://example.com/r'])).toThrow('a root is a directory path or a file:// URI');
  });
});

describe('answers files', () => {
  async function load(content: unknown): Promise<AnswersFile> {
    const path = join(dir, `a${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(content));
    return AnswersFile.load(path);
  }

  it('read full answers, shorthand content, actions alone, and sampling text', async () => {
    const file = await load({});
    expect(file.elicitation('k', { action: 'decline' })).toEqual({ action: 'decline' });
    expect(file.elicitation('k', { action: 'accept', content: { a: 1 } })).toEqual({ action: 'accept', content: { a: 1 } });
    expect(file.elicitation('k', { approve: true })).toEqual({ action: 'accept', content: { approve: true } });
    expect(file.elicitation('k', { action: 'go' })).toEqual({ action: 'accept', content: { action: 'go' } }); // a field named "action"
    expect(file.elicitation('k', 'cancel')).toEqual({ action: 'cancel' });
    expect(file.sampling('k', 'Paris')).toMatchObject({ role: 'assistant', content: { type: 'text', text: 'Paris' } });
    expect(file.sampling('k', { content: { type: 'text', text: 'x' }, model: 'm' })).toMatchObject({ model: 'm', role: 'assistant' });
    expect(() => file.elicitation('k', 42)).toThrow('must be an object');
  });

  it('find by key, then by message', async () => {
    const file = await load({ confirm: 'accept', 'Deploy?': 'decline' });
    expect(file.find('confirm', 'Deploy?')).toBe('accept');
    expect(file.find('other', 'Deploy?')).toBe('decline');
    expect(file.find('other', 'Else?')).toBeUndefined();
  });

  it('must be a JSON object', async () => {
    await expect(load([1])).rejects.toThrow('must hold a JSON object');
    await expect(AnswersFile.load(join(dir, 'missing.json'))).rejects.toThrow('Cannot read --answers');
  });
});
