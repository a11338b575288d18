/**
 * Closing the client while requests are in flight fails them with a
 * TransportError (the abort underneath kept as its cause), over HTTP as over
 * a message link — never a raw AbortError.
 */

import { describe, expect, it } from 'vitest';
import { Client, TransportError } from '../../src/client.js';
import { startScriptedHttp } from '../helpers/scripted-http.js';
import { scriptedLink } from '../helpers/scripted-link.js';

describe('close() with a request in flight', () => {
  it('HTTP: the call rejects with TransportError', async () => {
    const http = await startScriptedHttp(() => ({ hang: true }));
    const client = await new Client({ name: 'closer', version: '1' }, { era: 'modern' }).connect(http.url);
    const call = client.callTool('t');
    for (let tries = 0; http.requests.length === 0 && tries < 2000; tries++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(http.requests).toHaveLength(1);
    await client.close();
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toContain('closed the connection');
    expect((error as Error).cause).toBeDefined();
    await http.close();
  });

  it('link: the call rejects with TransportError', async () => {
    const link = scriptedLink(() => undefined);
    const client = await new Client({ name: 'closer', version: '1' }, { era: 'modern' }).connect(link.transport);
    const call = client.callTool('t');
    await link.waitFor('the call', (m) => m.method === 'tools/call');
    await client.close();
    await expect(call).rejects.toBeInstanceOf(TransportError);
    link.close();
  });
});
