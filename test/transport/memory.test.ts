/**
 * MCP over an in-memory message link (createLinkPair + serveLink), which uses
 * the stdio rules (spec §10.1, §10.2, §13): responses by id, request-scoped
 * notifications before the response, `notifications/cancelled` aborting a
 * request with no response sent for it, and no reply to any notification.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { createLinkPair, McpServer, serveLink, type MessageLink } from '../../src/index.js';
import { deferred, type Deferred } from '../helpers/deferred.js';
import { meta } from '../helpers/http.js';
import { quietLogger } from '../helpers/results.js';
import { assertServerMessage } from '../helpers/wire-schema.js';


type Message = Record<string, unknown>;

/** The client end: records every message the server sends, validated against the schema. */
class ClientEnd {
  readonly received: Message[] = [];
  private readonly methods = new Map<unknown, string>();
  private waiters: Array<{ match: (m: Message) => boolean; resolve: (m: Message) => void }> = [];

  constructor(readonly link: MessageLink) {
    link.onMessage((value) => {
      const message = value as Message;
      assertServerMessage(message, this.methods.get(message.id));
      this.received.push(message);
      this.waiters = this.waiters.filter((w) => (w.match(message) ? (w.resolve(message), false) : true));
    });
  }

  request(id: string | number, method: string, params: Record<string, unknown> = {}): void {
    this.methods.set(id, method);
    this.link.send({ jsonrpc: '2.0', id, method, params: { _meta: meta(), ...params } });
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.link.send({ jsonrpc: '2.0', method, params });
  }

  next(match: (m: Message) => boolean): Promise<Message> {
    const seen = this.received.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  response(id: string | number): Promise<Message> {
    return this.next((m) => m.id === id && ('result' in m || 'error' in m));
  }
}

/** Fails instead of hanging when an awaited message never comes (a guard, not a speed bound). */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${what} within 10 s`)), 10_000).unref()),
  ]);
}

let started = new Map<string, Deferred<void>>();
let aborted = new Map<string, Deferred<void>>();
const hook = (map: Map<string, Deferred<void>>, tag: string): Deferred<void> => {
  let d = map.get(tag);
  if (!d) map.set(tag, (d = deferred<void>()));
  return d;
};

function buildServer(): McpServer {
  const server = new McpServer({ name: 'memory', version: '1.0.0' }, { logger: quietLogger() });
  server.tool('echo', { input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, (args) => String(args.text));
  server.tool('unserializable', { description: 'Returns a value JSON cannot carry' }, () => ({
    content: [{ type: 'text', text: 'has a BigInt' }],
    structuredContent: { n: 10n },
  }));
  server.tool('count', { description: 'Progress 1..3' }, (_args, ctx) => {
    for (const step of [1, 2, 3]) ctx.progress(step, { total: 3 });
    return 'counted';
  });
  server.tool('wait', { input: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] } }, (args, ctx) => {
    const tag = String(args.tag);
    return new Promise<string>((resolve) => {
      const onAbort = (): void => {
        hook(aborted, tag).resolve();
        resolve('cancelled');
      };
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener('abort', onAbort, { once: true });
      hook(started, tag).resolve();
    });
  });
  server.tool('hold', { input: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] } }, async (args) => {
    // Ignores cancellation: runs until the test lets it go.
    const tag = String(args.tag);
    hook(started, tag).resolve();
    await hook(released, tag).promise;
    return `released ${tag}`;
  });
  return server;
}

let released = new Map<string, Deferred<void>>();
let client: ClientEnd;
let served: ReturnType<typeof serveLink>;

function connect(): void {
  started = new Map();
  aborted = new Map();
  released = new Map();
  const [clientLink, serverLink] = createLinkPair();
  served = serveLink(buildServer(), serverLink);
  client = new ClientEnd(clientLink);
}

afterEach(() => client?.link.close());

describe('serveLink over createLinkPair', () => {
  it('answers a request with a response carrying its id', async () => {
    connect();
    client.request('r-1', 'tools/list');
    const response = await client.response('r-1');
    expect(response).toHaveProperty('result.tools');
    client.request(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(await client.response(2)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'hi' }] } });
  });

  it('answers concurrent requests independently, each by its id', async () => {
    connect();
    client.request('slow', 'tools/call', { name: 'wait', arguments: { tag: 'c' } });
    await hook(started, 'c').promise;
    // The pending request does not hold up the next one.
    client.request('fast', 'tools/call', { name: 'echo', arguments: { text: 'quick' } });
    expect(await client.response('fast')).toHaveProperty('result');
    expect(client.received.some((m) => m.id === 'slow')).toBe(false);
    client.notify('notifications/cancelled', { requestId: 'slow' });
    await hook(aborted, 'c').promise;
  });

  it('sends request-scoped progress before the response, and none after', async () => {
    connect();
    client.request('p', 'tools/call', { name: 'count', _meta: meta({ progressToken: 'tok' }) });
    await client.response('p');
    client.request('after', 'tools/list');
    await client.response('after');
    const indexOfResponse = client.received.findIndex((m) => m.id === 'p');
    const progress = client.received.filter((m) => m.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const note of progress) {
      expect((note.params as { progressToken: unknown }).progressToken).toBe('tok');
      expect(client.received.indexOf(note)).toBeLessThan(indexOfResponse);
    }
  });

  it('answers -32603 when a result cannot be serialized, and keeps serving', async () => {
    connect();
    client.request('ser', 'tools/call', { name: 'unserializable' });
    client.request('next', 'tools/list');
    await client.response('next');
    const reply = await within(client.response('ser'), 'a response to the unserializable result');
    expect(reply).toMatchObject({ error: { code: -32603 } });
  });

  it('never replies to a notification', async () => {
    connect();
    client.notify('notifications/initialized', {});
    client.notify('notifications/cancelled', { requestId: 'never-sent' });
    client.notify('notifications/unknown', { x: 1 });
    client.request('probe', 'tools/list');
    await client.response('probe');
    expect(client.received).toHaveLength(1);
  });

  it('answers an invalid request with -32600 and its id', async () => {
    connect();
    client.link.send({ jsonrpc: '2.0', id: 5, method: 42 } as unknown as Parameters<MessageLink['send']>[0]);
    const reply = await client.next((m) => 'error' in m);
    expect(reply).toMatchObject({ id: 5, error: { code: -32600 } });
  });

  it('cancels a request on notifications/cancelled: the handler is aborted and no response is sent', async () => {
    connect();
    client.request('x-1', 'tools/call', { name: 'wait', arguments: { tag: 'x' } });
    await hook(started, 'x').promise;
    client.notify('notifications/cancelled', { requestId: 'x-1', reason: 'user gave up' });
    await hook(aborted, 'x').promise;
    // A later request's response proves the link has moved on; the cancelled one never answered.
    client.request('x-2', 'tools/list');
    await client.response('x-2');
    expect(client.received.filter((m) => m.id === 'x-1')).toEqual([]);
  });

  it('matches the cancelled id by type (string "7" is not integer 7)', async () => {
    connect();
    client.request(7, 'tools/call', { name: 'wait', arguments: { tag: 'typed' } });
    await hook(started, 'typed').promise;
    client.notify('notifications/cancelled', { requestId: '7' });
    client.request('probe', 'tools/list');
    await client.response('probe');
    expect(served.inFlight).toBe(1);
    client.notify('notifications/cancelled', { requestId: 7 });
    await hook(aborted, 'typed').promise;
  });

  it('aborts in-flight work when the link closes, then settles', async () => {
    connect();
    client.request('open', 'tools/call', { name: 'wait', arguments: { tag: 'close' } });
    await hook(started, 'close').promise;
    client.link.close();
    await hook(aborted, 'close').promise;
    await served.closed;
    expect(served.inFlight).toBe(0);
  });

  it('settles `closed` only once a request that ignores cancellation has finished, and sends it nothing more', async () => {
    connect();
    client.request('held', 'tools/call', { name: 'hold', arguments: { tag: 'stubborn' } });
    await hook(started, 'stubborn').promise;
    let settled = false;
    void served.closed.then(() => (settled = true));
    client.link.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    hook(released, 'stubborn').resolve();
    await within(served.closed, 'settled close');
    expect(served.inFlight).toBe(0);
    expect(client.received.filter((m) => m.id === 'held')).toEqual([]);
  });

  it('settles `closed` when the link closes with nothing in flight', async () => {
    connect();
    client.request(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    await within(client.response(1), 'response');
    client.link.close();
    await within(served.closed, 'settled close');
  });

  it('refuses a request whose id is still in flight (-32600 with that id), and answers the first one', async () => {
    connect();
    client.request('dup', 'tools/call', { name: 'hold', arguments: { tag: 'first' } });
    await hook(started, 'first').promise;
    client.request('dup', 'tools/call', { name: 'echo', arguments: { text: 'second' } });
    const refusal = await within(client.next((m) => m.id === 'dup' && 'error' in m), 'refusal');
    expect((refusal.error as { code: number }).code).toBe(-32600);
    hook(released, 'first').resolve();
    const answer = await within(client.next((m) => m.id === 'dup' && 'result' in m), 'response');
    expect(JSON.stringify(answer.result)).toContain('released first');
    // The id is free again once answered.
    client.request('dup', 'tools/call', { name: 'echo', arguments: { text: 'third' } });
    await within(client.next((m) => m.id === 'dup' && 'result' in m && JSON.stringify(m.result).includes('third')), 'reuse');
  });
});
