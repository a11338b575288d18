/**
 * Time limits on a message link (stdio, in memory): each request that gets
 * no response within its own `timeoutMs` fails with RequestTimeoutError and
 * is cancelled on the server (`notifications/cancelled` naming its id,
 * spec §10.2), whatever the order its limit has among the others in flight;
 * requests still within their limit keep waiting and get their responses.
 */

import { describe, expect, it } from 'vitest';
import { RequestTimeoutError } from '../../src/client.js';
import type { JsonRpcRequest } from '../../src/protocol.js';
import { scriptedLink, type LinkPeer } from '../helpers/scripted-link.js';
import type { Json } from '../helpers/scripted-http.js';

function request(id: number): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: {} } };
}

/** A peer that answers nothing by itself: the test answers what it wants, when it wants. */
function silentPeer() {
  const held: Array<{ message: Json; peer: LinkPeer }> = [];
  const link = scriptedLink((message, peer) => {
    held.push({ message, peer });
  });
  const answer = (id: number): void => {
    const entry = held.find((h) => h.message.id === id);
    entry!.peer.result(entry!.message, { resultType: 'complete', content: [] });
  };
  return { link, answer };
}

const cancelledIds = (link: ReturnType<typeof scriptedLink>): unknown[] =>
  link.notifications().filter((n) => n.method === 'notifications/cancelled').map((n) => (n.params as Json).requestId);

describe('LinkClientTransport time limits', () => {
  it('a shorter limit set after a longer one still runs out first; the longer one gets its response', async () => {
    const { link, answer } = silentPeer();
    const long = link.transport.request(request(1), { timeoutMs: 10_000 });
    const short = link.transport.request(request(2), { timeoutMs: 30 });
    await expect(short).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(cancelledIds(link)).toEqual([2]);
    await link.waitFor('request 1', (m) => m.id === 1);
    answer(1);
    await expect(long).resolves.toMatchObject({ id: 1, result: { resultType: 'complete' } });
    link.close();
  });

  it('every request past its limit fails, each once, in the order the limits run out', async () => {
    const { link } = silentPeer();
    const failures: number[] = [];
    const calls = [60, 20, 40].map((ms, i) =>
      link.transport.request(request(i + 1), { timeoutMs: ms }).catch((error: unknown) => {
        expect(error).toBeInstanceOf(RequestTimeoutError);
        failures.push(i + 1);
      }),
    );
    await Promise.all(calls);
    expect(failures).toEqual([2, 3, 1]);
    expect(cancelledIds(link)).toEqual([2, 3, 1]);
    link.close();
  });

  it('a request answered in time does not time out later, and its id can be used again', async () => {
    const { link, answer } = silentPeer();
    const first = link.transport.request(request(1), { timeoutMs: 40 });
    await link.waitFor('request 1', (m) => m.id === 1);
    answer(1);
    await expect(first).resolves.toMatchObject({ id: 1 });
    // The same id again, after the first one's limit has passed: only the new limit counts.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const again = link.transport.request(request(1), { timeoutMs: 10_000 });
    await link.waitFor('request 1 again', (m) => m.id === 1 && link.requests().length === 2);
    answer(1);
    await expect(again).resolves.toMatchObject({ id: 1 });
    expect(cancelledIds(link)).toEqual([]);
    link.close();
  });
});
