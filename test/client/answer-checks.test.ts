/**
 * Answers are checked before they are sent (spec §8.1 "SHOULD validate",
 * §8.3 "root uri MUST be a file:// URI"): the restricted form-schema checker
 * on its own, field by field and format by format; then, through the client,
 * an invalid form answer or root is an InputFlowError naming the key and
 * field and no retry is sent; a 2025-era server gets an error instead of the
 * invalid answer.
 */

import { describe, expect, it } from 'vitest';
import { Client, InputFlowError, type ClientOptions } from '../../src/client.js';
import { checkFormAnswer, matchesFormat } from '../../src/client/form-answer-check.js';
import { rootProblem } from '../../src/client/input-answers.js';
import { startScriptedHttp, type Json, type ScriptedHttp } from '../helpers/scripted-http.js';
import { scriptedLink } from '../helpers/scripted-link.js';

const SCHEMA = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email' },
    nick: { type: 'string', minLength: 2, maxLength: 5 },
    seats: { type: 'integer', minimum: 1, maximum: 4 },
    budget: { type: 'number', minimum: 0 },
    newsletter: { type: 'boolean' },
    size: { type: 'string', enum: ['s', 'm', 'l'] },
    colour: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
    toppings: { type: 'array', items: { type: 'string', enum: ['cheese', 'ham'] }, minItems: 1, maxItems: 2 },
    days: { type: 'array', items: { anyOf: [{ const: 'mon', title: 'Monday' }, { const: 'tue', title: 'Tuesday' }] } },
    birthday: { type: 'string', format: 'date' },
    meeting: { type: 'string', format: 'date-time' },
    homepage: { type: 'string', format: 'uri' },
  },
  required: ['email', 'seats'],
};
const VALID = {
  email: 'ada@example.com',
  nick: 'Ada',
  seats: 2,
  budget: 10.5,
  newsletter: false,
  size: 'm',
  colour: 'g',
  toppings: ['ham'],
  days: ['tue'],
  birthday: '1815-12-10',
  meeting: '2026-08-01T10:00:00Z',
  homepage: 'https://ada.example',
};
const accept = (content: Json): Json => ({ action: 'accept', content });

describe('checkFormAnswer (the restricted elicitation schema)', () => {
  it('accepts a full valid answer, decline and cancel (whatever they carry)', () => {
    expect(checkFormAnswer(SCHEMA, accept(VALID))).toBeUndefined();
    expect(checkFormAnswer(SCHEMA, accept({ email: 'a@b.co', seats: 1 }))).toBeUndefined();
    expect(checkFormAnswer(SCHEMA, { action: 'decline' })).toBeUndefined();
    expect(checkFormAnswer(SCHEMA, { action: 'cancel' })).toBeUndefined();
  });

  it.each([
    [{ ...VALID, email: 'not-an-email' }, 'email', 'valid email'],
    [{ ...VALID, nick: 'A' }, 'nick', 'at least 2 characters'],
    [{ ...VALID, nick: 'Adalovelace' }, 'nick', 'at most 5 characters'],
    [{ ...VALID, seats: 2.5 }, 'seats', 'integer'],
    [{ ...VALID, seats: 0 }, 'seats', 'at least 1'],
    [{ ...VALID, seats: 5 }, 'seats', 'at most 4'],
    [{ ...VALID, seats: '2' }, 'seats', 'integer'],
    [{ ...VALID, budget: -1 }, 'budget', 'at least 0'],
    [{ ...VALID, budget: Number.NaN }, 'budget', 'number'],
    [{ ...VALID, newsletter: 'yes' }, 'newsletter', 'true or false'],
    [{ ...VALID, size: 'xl' }, 'size', 'one of "s", "m", "l"'],
    [{ ...VALID, colour: 'Red' }, 'colour', 'one of "r", "g"'],
    [{ ...VALID, toppings: [] }, 'toppings', 'at least 1 items'],
    [{ ...VALID, toppings: ['ham', 'cheese', 'ham'] }, 'toppings', 'at most 2 items'],
    [{ ...VALID, toppings: ['olives'] }, 'toppings', '"olives"'],
    [{ ...VALID, days: ['wed'] }, 'days', '"wed"'],
    [{ ...VALID, days: 'mon' }, 'days', 'list of strings'],
    [{ ...VALID, birthday: '1815-02-30' }, 'birthday', 'valid date'],
    [{ ...VALID, meeting: '2026-08-01 25:00:00Z' }, 'meeting', 'valid date-time'],
    [{ ...VALID, homepage: 'not a uri' }, 'homepage', 'valid uri'],
    [{ ...VALID, extra: 'x' }, 'extra', 'not in the form'],
    [{ nick: 'Ada', seats: 1 }, 'email', 'is required'],
  ])('refuses %j, naming the field %s', (content, field, words) => {
    const problem = checkFormAnswer(SCHEMA, accept(content));
    expect(problem?.field).toBe(field);
    expect(problem?.message).toContain(words);
  });

  it('refuses an answer without a known action, or with content that is not an object', () => {
    expect(checkFormAnswer(SCHEMA, { action: 'maybe' })?.message).toContain('action');
    expect(checkFormAnswer(SCHEMA, undefined)?.message).toContain('action');
    expect(checkFormAnswer(SCHEMA, { action: 'accept', content: 'Ada' })?.message).toContain('object');
  });

  it('gives a property outside the subset only the check every value must pass', () => {
    const loose = { type: 'object', properties: { any: { description: 'no type' } } };
    expect(checkFormAnswer(loose, accept({ any: 'text' }))).toBeUndefined();
    expect(checkFormAnswer(loose, accept({ any: ['a', 'b'] }))).toBeUndefined();
    expect(checkFormAnswer(loose, accept({ any: { nested: true } }))?.field).toBe('any');
  });

  it('knows the formats the spec names, and leaves others alone', () => {
    expect(matchesFormat('date', '2024-02-29')).toBe(true);
    expect(matchesFormat('date', '2023-02-29')).toBe(false);
    expect(matchesFormat('date', '0004-02-29')).toBe(true);
    expect(matchesFormat('date-time', '2026-08-01T10:00:00.123+02:00')).toBe(true);
    expect(matchesFormat('date-time', '2026-08-01T10:00:00')).toBe(false);
    expect(matchesFormat('email', 'a@b')).toBe(false);
    expect(matchesFormat('uri', 'mailto:ada@example.com')).toBe(true);
    expect(matchesFormat('uri', '/relative/path')).toBe(false);
    expect(matchesFormat('hostname', 'anything')).toBe(true);
  });
});

describe('rootProblem', () => {
  it('takes file:// URIs and refuses anything else, or a ".." segment', () => {
    expect(rootProblem({ uri: 'file:///home/ada/project', name: 'project' })).toBeUndefined();
    expect(rootProblem({ uri: 'https://example.com/repo' })).toContain('not a file:// URI');
    expect(rootProblem({ uri: '/home/ada' })).toContain('not a file:// URI');
    expect(rootProblem({ uri: 'file:///home/ada/../../etc' })).toContain('".."');
    expect(rootProblem({ uri: 'file:///home/ada/%2e%2e/etc' })).toContain('".."');
    expect(rootProblem({ uri: 'file:///home', name: 7 })).toContain('name');
    expect(rootProblem({ name: 'no uri' })).toContain('uri');
  });
});

describe('through the client', () => {
  const inputRequired = (inputRequests: Json): Json => ({ resultType: 'input_required', inputRequests, requestState: 's1' });
  const ask = { method: 'elicitation/create', params: { mode: 'form', message: 'Seats?', requestedSchema: SCHEMA } };

  async function callWith(options: ClientOptions, inputRequests: Json): Promise<{ error: unknown; http: ScriptedHttp }> {
    const http = await startScriptedHttp(() => ({ result: inputRequired(inputRequests) }));
    const client = await new Client({ name: 'checks', version: '1' }, { era: 'modern', ...options }).connect(http.url);
    const error = await client.callTool('t').catch((e: unknown) => e);
    await client.close();
    await http.close();
    return { error, http };
  }

  it('an invalid form answer is an InputFlowError naming the key and field; no retry is sent', async () => {
    const { error, http } = await callWith({ elicitation: { form: () => ({ action: 'accept', content: { email: 'ada@example.com', seats: 9 } }) } }, { seats: ask });
    expect(error).toBeInstanceOf(InputFlowError);
    expect(error).toMatchObject({ reason: 'invalid-answer', key: 'seats', field: 'seats', rounds: 1 });
    expect((error as Error).message).toContain('at most 4');
    expect(http.requests).toHaveLength(1);
  });

  it('a URL-mode answer with content is refused', async () => {
    const { error } = await callWith({ elicitation: { url: () => ({ action: 'accept', content: { token: 'x' } }) } }, {
      signin: { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' } },
    });
    expect(error).toMatchObject({ name: 'InputFlowError', reason: 'invalid-answer', key: 'signin' });
  });

  it('a root that is not a file:// URI is an InputFlowError; no retry is sent', async () => {
    const { error, http } = await callWith({ roots: [{ uri: 'https://example.com/repo' }] }, { r: { method: 'roots/list' } });
    expect(error).toMatchObject({ name: 'InputFlowError', reason: 'invalid-answer', key: 'r' });
    expect((error as Error).message).toContain('file://');
    expect(http.requests).toHaveLength(1);
  });

  it('a 2025-era server asking over stdio gets an error, not the invalid answer, and nothing of why (that stays local)', async () => {
    const link = scriptedLink((message, peer) => {
      if (message.method === 'initialize') {
        peer.result(message, { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'old', version: '1' } });
      } else if (message.method === 'tools/call') {
        peer.send({ jsonrpc: '2.0', id: 'ask-1', method: 'roots/list', params: {} });
      }
    });
    const client = await new Client({ name: 'checks', version: '1' }, { era: 'legacy', roots: [{ uri: 'https://example.com/not-a-file' }] }).connect(link.transport);
    void client.callTool('t', {}, { timeoutMs: 5000 }).catch(() => undefined);
    const answer = await link.waitFor('the answer to roots/list', (m) => m.id === 'ask-1');
    expect(answer.result).toBeUndefined();
    expect(answer.error.code).toBe(-32603);
    expect(answer.error.message).not.toContain('example.com');
    expect(answer.error.message).not.toContain('file://');
    await client.close();
    link.close();
  });
});
