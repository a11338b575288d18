/**
 * A Tessera stdio server (fixtures/tessera-interop-server.ts --stdio, a real
 * child process) driven with raw newline-delimited JSON-RPC as a 2025-11-25
 * client speaks it (spec §16.3 stdio, §16.4, §13): initialize,
 * notifications/initialized, a tool whose two asks become real
 * `elicitation/create` requests on stdout answered by the test, ping → {};
 * and on the same process a request carrying 2026 `_meta` is still served as
 * 2026-07-28 (input_required, no server request). Every line is validated
 * against the schema of its era.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EraStdioChild, type Json } from '../helpers/legacy-stdio.js';
import { compiledFixture } from '../helpers/child-processes.js';
import { modernFieldsOf } from '../helpers/wire-schema-2025.js';

const EXPECTED = 'Hello Ada, your favourite color is teal.';
const ANSWERS: Record<string, string> = { name: 'Ada', color: 'teal' };

const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

/** What a user answers to a form: the value for each property it asks for. */
function formAnswer(request: Json): Json {
  const properties = Object.keys((request.params?.requestedSchema?.properties ?? {}) as Json);
  return { action: 'accept', content: Object.fromEntries(properties.map((p) => [p, ANSWERS[p] ?? '?'])) };
}

describe('Tessera stdio server, 2025-11-25 client (raw NDJSON)', () => {
  let child: EraStdioChild;

  beforeAll(() => {
    child = new EraStdioChild(compiledFixture('tessera-interop-server'), ['--stdio']);
  });

  afterAll(() => {
    child?.kill();
  });

  it('initialize answers 2025-11-25 with serverInfo and capabilities; notifications/initialized gets no reply', async () => {
    child.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'raw-legacy', version: '1.0.0' } },
    });
    const response = await child.response(0);
    const result = response.result as Json;
    expect(result.protocolVersion).toBe('2025-11-25');
    expect(result.serverInfo).toEqual({ name: 'tessera-interop', version: '0.1.0' });
    expect(result.capabilities).toMatchObject({ tools: {} });
    expect(modernFieldsOf(result)).toEqual([]);

    const before = child.messages.length;
    child.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // A ping after it proves the notification was read, and that nothing was written for it.
    child.send({ jsonrpc: '2.0', id: 'after-initialized', method: 'ping' });
    await child.response('after-initialized');
    expect(child.messages.slice(before).map((m) => m.id)).toEqual(['after-initialized']);
    expect(child.violations).toEqual([]);
  });

  it('tools/call of a tool that asks twice: two elicitation/create requests on stdout, answered by the test, then the result', async () => {
    child.send({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: { name: 'profile', arguments: { greeting: 'Hello' } } });

    const seen = new Set<unknown>();
    const asked: string[] = [];
    for (let i = 0; i < 2; i++) {
      const request = await child.serverRequest(`elicitation/create #${i + 1}`, seen);
      seen.add(request.id);
      expect(request.method).toBe('elicitation/create');
      expect(typeof request.id === 'string' || Number.isInteger(request.id)).toBe(true);
      // The result cannot come before the answers.
      expect(child.messages.some((m) => m.id === 'call-1' && ('result' in m || 'error' in m))).toBe(false);
      asked.push(String(request.params.message));
      child.send({ jsonrpc: '2.0', id: request.id, result: formAnswer(request) });
    }
    expect(asked).toEqual(['What is your name?', 'What is your favourite color?']);
    expect(seen.size).toBe(2);

    const response = await child.response('call-1');
    expect(response.result).toEqual({ content: [{ type: 'text', text: EXPECTED }] });
    for (const m of child.messages) expect((m.result as Json | undefined)?.resultType).not.toBe('input_required');
    expect(child.violations).toEqual([]);
  });

  it('ping answers exactly {}', async () => {
    child.send({ jsonrpc: '2.0', id: 'ping-1', method: 'ping' });
    expect((await child.response('ping-1')).result).toStrictEqual({});
  });

  it('a 2026-style request (modern _meta) on the same process is served as 2026-07-28: input_required, no server request', async () => {
    child.send({ jsonrpc: '2.0', id: 'discover-1', method: 'server/discover', params: { _meta: modernMeta } }, 'modern');
    const discover = (await child.response('discover-1')).result as Json;
    expect(discover.resultType).toBe('complete');
    expect(discover.supportedVersions).toContain('2026-07-28');

    const serverRequestsBefore = child.messages.filter((m) => typeof m.method === 'string' && 'id' in m).length;
    const params = { name: 'profile', arguments: { greeting: 'Hello' }, _meta: modernMeta };
    child.send({ jsonrpc: '2.0', id: 'm-1', method: 'tools/call', params }, 'modern');
    let result = (await child.response('m-1')).result as Json;
    const rounds: string[] = [];
    for (let round = 2; result.resultType === 'input_required'; round++) {
      expect(round, 'at most two input rounds').toBeLessThanOrEqual(3);
      const [key, request] = Object.entries(result.inputRequests as Json)[0] as [string, Json];
      rounds.push(key);
      const id = `m-${round}`;
      child.send(
        { jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, inputResponses: { [key]: formAnswer(request) }, requestState: result.requestState } },
        'modern',
      );
      result = (await child.response(id)).result as Json;
    }
    expect(rounds).toEqual(['name', 'color']);
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: EXPECTED }] });
    expect(child.messages.filter((m) => typeof m.method === 'string' && 'id' in m).length, 'a 2026 request never gets a server request').toBe(serverRequestsBefore);
    expect(child.violations).toEqual([]);
  });

  it('2025-era requests still work on the process afterwards', async () => {
    child.send({ jsonrpc: '2.0', id: 'ping-2', method: 'ping', params: {} });
    expect((await child.response('ping-2')).result).toStrictEqual({});
    child.send({ jsonrpc: '2.0', id: 'list-1', method: 'tools/list', params: {} });
    const list = (await child.response('list-1')).result as Json;
    expect((list.tools as Json[]).map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'profile']));
    expect(modernFieldsOf(list)).toEqual([]);
    expect(child.violations).toEqual([]);
  });
});

describe('Tessera stdio server, a 2025 client that pings before initialize', () => {
  let child: EraStdioChild;
  beforeAll(() => {
    child = new EraStdioChild(compiledFixture('tessera-interop-server'), ['--stdio']);
  });
  afterAll(() => {
    child?.kill();
  });

  it('answers the early ping with {} (2025 lifecycle: pings may precede initialize), then initializes', async () => {
    child.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const ping = await child.response(1);
    child.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-legacy', version: '1.0.0' } },
    });
    const init = await child.response(2);
    expect((init.result as Json | undefined)?.protocolVersion).toBe('2025-11-25');
    expect(ping, JSON.stringify(ping)).toMatchObject({ result: {} });
    expect(ping.result).toStrictEqual({});
  });
});
