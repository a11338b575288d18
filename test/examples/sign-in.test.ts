/**
 * The connect_calendar example behind a load balancer (issue 18): the sign-in
 * link points at the public URL, not the instance's own address, and a
 * sign-in finished through one instance is seen by the retry on another,
 * because finished sign-ins live in a store both share.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStateKey } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { buildExampleServer } from '../../examples/server.js';
import { MemorySignInStore } from '../../examples/sign-in.js';
import { meta, rpc, startHttp } from '../helpers/http.js';

const PUBLIC = 'https://mcp.example.com';
const keys = generateStateKey('lb');
const shared = new MemorySignInStore();
let a: RunningHttpServer;
let b: RunningHttpServer;

beforeAll(async () => {
  process.env.TESSERA_STATE_KEYS = keys;
  a = await startHttp(buildExampleServer(() => `${PUBLIC}/sign-in`, shared));
  b = await startHttp(buildExampleServer(() => `${PUBLIC}/sign-in`, shared));
});

afterAll(async () => {
  delete process.env.TESSERA_STATE_KEYS;
  await a.close();
  await b.close();
});

const urlMeta = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } });

describe('connect_calendar behind a load balancer', () => {
  it('links to the public URL, and a sign-in finished through A completes the retry on B', async () => {
    const first = (await rpc(a.url, 'tools/call', { name: 'connect_calendar', _meta: urlMeta })).response!.result as Record<string, any>;
    const [key, request] = Object.entries(first.inputRequests as Record<string, { params: { url: string } }>)[0]!;
    const link = new URL(request.params.url);
    expect(link.origin + link.pathname).toBe(`${PUBLIC}/sign-in`);
    // The user signs in (the page, on whichever instance served it, records the flow in the shared store).
    await shared.markDone(link.searchParams.get('flow')!);
    const done = (await rpc(b.url, 'tools/call', { name: 'connect_calendar', requestState: first.requestState, inputResponses: { [key]: { action: 'accept' } }, _meta: urlMeta })).response!
      .result as Record<string, any>;
    expect(done.content).toEqual([{ type: 'text', text: 'Calendar connected.' }]);
  });
});
