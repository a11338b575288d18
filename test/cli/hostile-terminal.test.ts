/**
 * A hostile server against the terminal (issue 26): every string it sends
 * that `tessera` prints — its title in the question line, tool names and
 * descriptions, the question, form titles, descriptions and choices, a URL,
 * results, tool errors, JSON-RPC errors, progress — carries the escape
 * sequences an attacker would use: window title (OSC 0), clipboard write
 * (OSC 52), clear screen, conceal (SGR 8), BEL, a bidi override and the
 * one-byte CSI U+009B. None of them may reach the terminal as such: the test
 * reads the raw bytes the pseudo-terminal received, and finds each shown
 * escaped instead. (The server is scripted on raw HTTP; nothing of Tessera's
 * server code is involved.)
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../helpers/child-processes.js';
import { KEY, runCli, TerminalSession } from '../helpers/cli.js';
import { startScriptedHttp, type Json, type ScriptedHttp } from '../helpers/scripted-http.js';

const ESC = '\u001b';
const BEL = '\u0007';
/** Sequences a terminal would act on: none may be written raw. */
const ATTACKS = {
  title: `${ESC}]0;pwned${BEL}`,
  clipboard: `${ESC}]52;c;ZXZpbA==${BEL}`,
  clear: `${ESC}[2J`,
  conceal: `${ESC}[8m`,
  bell: BEL,
  csi: '\u009b2J',
  bidi: '\u202e',
};
const ALL = Object.values(ATTACKS).join('');

function assertInert(raw: string): void {
  for (const [name, sequence] of Object.entries(ATTACKS)) expect(raw.includes(sequence), `${name} reached the terminal`).toBe(false);
  // Shown, escaped, instead.
  expect(raw).toContain('\\x1b]0;pwned\\x07');
  expect(raw).toContain('\\u009b2J');
}

const SERVER_INFO = { name: 'bank', title: `Trusted Bank${ATTACKS.conceal}`, version: '1' };
const meta = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
let server: ScriptedHttp;

beforeAll(async () => {
  server = await startScriptedHttp((message) => {
    const params = (message.params ?? {}) as Json;
    switch (message.method) {
      case 'server/discover':
        return { result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: SERVER_INFO, _meta: meta } };
      case 'tools/list':
        return {
          result: {
            resultType: 'complete',
            _meta: meta,
            tools: [
              { name: `pay${ATTACKS.title}`, description: `Pays now ${ALL}`, inputSchema: { type: 'object', properties: {} } },
              { name: 'pay', description: 'Pays', inputSchema: { type: 'object', properties: {} } },
              { name: 'sign_in', inputSchema: { type: 'object', properties: {} } },
              { name: 'broken', inputSchema: { type: 'object', properties: {} } },
              { name: 'refuse', inputSchema: { type: 'object', properties: {} } },
            ],
          },
        };
      case 'tools/call': {
        const answered = params.inputResponses !== undefined;
        if (params.name === 'pay' && !answered) {
          return {
            result: {
              resultType: 'input_required',
              _meta: meta,
              requestState: 'opaque',
              inputRequests: {
                confirm: {
                  method: 'elicitation/create',
                  params: {
                    mode: 'form',
                    message: `Pay 10 EUR? ${ALL}`,
                    requestedSchema: {
                      type: 'object',
                      properties: {
                        ok: { type: 'boolean', title: `OK ${ATTACKS.csi}`, description: `Sure? ${ATTACKS.title}${ATTACKS.bell}` },
                        account: { type: 'string', enum: ['a', 'b'], enumNames: [`Main ${ATTACKS.clipboard}`, 'Other'] },
                      },
                      required: ['ok', 'account'],
                    },
                  },
                },
              },
            },
          };
        }
        if (params.name === 'pay') return { result: { resultType: 'complete', _meta: meta, content: [{ type: 'text', text: `Paid. ${ALL}` }], structuredContent: { note: `x${ALL}` } } };
        if (params.name === 'sign_in' && !answered) {
          return {
            result: {
              resultType: 'input_required',
              _meta: meta,
              requestState: 'opaque',
              inputRequests: { go: { method: 'elicitation/create', params: { mode: 'url', message: `Sign in ${ALL}`, url: `https://evil.example/${ATTACKS.conceal}login${ATTACKS.title}`, elicitationId: 'e1' } } },
            },
          };
        }
        if (params.name === 'sign_in') return { result: { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] } };
        if (params.name === 'broken') return { error: { code: -32602, message: `Invalid ${ALL}`, data: { why: ALL } } };
        return { result: { resultType: 'complete', content: [{ type: 'text', text: `No. ${ALL}` }], isError: true } };
      }
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  });
});

afterAll(async () => {
  stopAll();
  await server?.close();
});

describe('a hostile server cannot drive the terminal', () => {
  it('through the question line, the form, its choices and the result', async () => {
    const session = new TerminalSession(['call', server.url, 'pay']);
    try {
      await session.waitFor('asks: Pay 10 EUR?');
      await session.waitFor('Cancel');
      session.type(KEY.enter);
      await session.waitFor('Sure?');
      session.type(`y${KEY.enter}`);
      await session.waitFor('Other');
      session.type(KEY.enter);
      expect(await session.exited).toBe(0);
      await session.waitFor('Paid.');
      expect(session.transcript).toContain('Trusted Bank\\x1b[8m asks:'); // the title cannot hide what follows
      assertInert(session.rawOutput);
    } finally {
      session.stop();
    }
  });

  it('through a URL question: the domain is shown first and the URL cannot hide it', async () => {
    const session = new TerminalSession(['call', server.url, 'sign_in']);
    try {
      await session.waitFor('Domain: evil.example');
      await session.waitFor('Open this URL in your browser: https://evil.example/');
      await session.waitFor('Cancel');
      const domainAt = session.transcript.indexOf('Domain: evil.example');
      expect(domainAt).toBeLessThan(session.transcript.indexOf('Open this URL'));
      session.type(KEY.down + KEY.down + KEY.enter); // cancel
      await session.exited;
      for (const [name, sequence] of Object.entries(ATTACKS)) expect(session.rawOutput.includes(sequence), name).toBe(false);
    } finally {
      session.stop();
    }
  });

  it('through tool names and descriptions in a listing', async () => {
    const session = new TerminalSession(['list', server.url]);
    try {
      expect(await session.exited).toBe(0);
      await session.waitFor('Pays now');
      assertInert(session.rawOutput);
    } finally {
      session.stop();
    }
  });

  it('through a tool error and a JSON-RPC error message', async () => {
    for (const tool of ['refuse', 'broken']) {
      const session = new TerminalSession(['call', server.url, tool]);
      try {
        expect(await session.exited).toBe(1);
        await session.waitFor(tool === 'refuse' ? 'No.' : 'Invalid');
        assertInert(session.rawOutput);
      } finally {
        session.stop();
      }
    }
  });

  it('--json prints the same JSON value, with those characters as \\u escapes', async () => {
    const run = await runCli(['call', server.url, 'refuse', '--json']);
    expect(run.code).toBe(1);
    for (const sequence of Object.values(ATTACKS)) expect(run.stdout.includes(sequence)).toBe(false);
    const parsed = JSON.parse(run.stdout) as { content: Array<{ text: string }> };
    expect(parsed.content[0]!.text).toBe(`No. ${ALL}`);
  });
});
