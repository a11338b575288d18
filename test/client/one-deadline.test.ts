/**
 * One time limit per request (issue 11): the client's recoveries — another
 * protocol version after -32022 here — get what is left of the request's
 * `timeoutMs`, never a fresh allowance; and a reply that does not carry the
 * request's exact id answers nothing (on a message link it is simply not
 * this request's, so the request runs out of time).
 */

import { describe, expect, it } from 'vitest';
import { type JsonRpcRequest, type JsonRpcResponse } from '../../src/protocol.js';
import { Client, RequestTimeoutError, type ClientTransport, type TransportRequestOptions } from '../../src/client.js';
import { scriptedLink } from '../helpers/scripted-link.js';

/** A transport that records the time allowance of every request and answers from a script. */
class RecordingTransport implements ClientTransport {
  readonly kind = 'memory' as const;
  readonly allowances: Array<number | undefined> = [];
  constructor(private readonly answer: (message: JsonRpcRequest, n: number) => Promise<JsonRpcResponse>) {}
  request(message: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<JsonRpcResponse> {
    this.allowances.push(options.timeoutMs);
    return this.answer(message, this.allowances.length);
  }
  async close(): Promise<void> {}
}

describe('one deadline for a request and its recoveries', () => {
  it('the retry after -32022 gets only what is left of timeoutMs', async () => {
    const transport = new RecordingTransport(async (message, n) => {
      if (n === 1) {
        await new Promise((resolve) => setTimeout(resolve, 120));
        return { jsonrpc: '2.0', id: message.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } } };
      }
      return { jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', content: [] } };
    });
    const client = await new Client({ name: 'deadline', version: '1' }, { era: 'modern', requestTimeoutMs: 5000 }).connect(transport);
    await client.callTool('t');
    const [first, retry] = transport.allowances;
    // The whole budget, less what elapsed before sending (a millisecond or two on a busy machine).
    expect(first).toBeLessThanOrEqual(5000);
    // The first attempt's 120 ms are gone from the retry's allowance (100: timers may fire a little early).
    expect(retry).toBeLessThanOrEqual(5000 - 100);
    expect(first).toBeGreaterThan(retry!);
    await client.close();
  });

  it('a request whose budget is spent is not sent again', async () => {
    const transport = new RecordingTransport(async (message) => {
      await new Promise((resolve) => setTimeout(resolve, 80));
      return { jsonrpc: '2.0', id: message.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } } };
    });
    const client = await new Client({ name: 'deadline', version: '1' }, { era: 'modern' }).connect(transport);
    await expect(client.callTool('t', {}, { timeoutMs: 50 })).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(transport.allowances).toHaveLength(1);
    await client.close();
  });
});

describe('exact ids on a message link', () => {
  it('a response with "5" for 5 does not answer the request', async () => {
    const link = scriptedLink((message, peer) => {
      peer.send({ jsonrpc: '2.0', id: String(message.id), result: { resultType: 'complete', content: [] } });
    });
    const client = await new Client({ name: 'ids', version: '1' }, { era: 'modern' }).connect(link.transport);
    await expect(client.callTool('t', {}, { timeoutMs: 200 })).rejects.toBeInstanceOf(RequestTimeoutError);
    await client.close();
    link.close();
  });
});
