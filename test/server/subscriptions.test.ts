/** subscriptions/listen over real HTTP (spec §10.4, §3, §12.2): acknowledgement, filtered change notifications, graceful close. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, startHttp } from '../helpers/http.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';
import { openStream, quietPeriod, type OpenStream, type WireMessage } from '../helpers/sse-stream.js';

const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

type Filter = Record<string, unknown>;

function fullServer(): McpServer {
  const server = new McpServer({ name: 'listen-test', version: '1.0.0' }, { logger: quietLogger() });
  server.tool('base-tool', {}, () => 'x');
  server.tool('noisy', {}, (_args, ctx) => {
    ctx.progress(1);
    ctx.log('error', 'noisy log');
    ctx.progress(2);
    return 'noisy done';
  });
  server.prompt('base-prompt', {}, () => 'x');
  server.resource({ uri: 'file:///cfg.json', name: 'cfg' }, () => '{}');
  return server;
}

const params = (o: Record<string, unknown>): Record<string, unknown> => (o.params ?? {}) as Record<string, unknown>;
const subIdOf = (m: WireMessage): unknown => (params(m)._meta as Record<string, unknown> | undefined)?.[SUB_ID];

/** Opens a listen stream and checks the acknowledgement is its first message; returns both. */
async function listen(url: string, id: string | number, notifications: Filter, extraMeta: Record<string, unknown> = {}): Promise<{ stream: OpenStream; ack: WireMessage }> {
  const stream = await openStream(url, 'subscriptions/listen', { notifications, _meta: meta(extraMeta) }, { id });
  expect(stream.status).toBe(200);
  expect(stream.contentType).toContain('text/event-stream');
  const ack = await stream.next();
  expect(ack.method).toBe('notifications/subscriptions/acknowledged');
  expect(ack).not.toHaveProperty('id');
  return { stream, ack };
}

/** Every notification on a listen stream carries the listen id, same value and JSON type. */
function expectAllTagged(stream: OpenStream, id: string | number): void {
  stream.assertValid();
  for (const m of stream.messages) {
    if ('method' in m) expect(subIdOf(m), JSON.stringify(m)).toStrictEqual(id);
  }
}

function methodsAfterAck(stream: OpenStream): unknown[] {
  return stream.messages.slice(1).map((m) => m.method);
}

describe('subscriptions/listen', () => {
  let running: RunningHttpServer;
  let server: McpServer;
  const open: OpenStream[] = [];
  beforeAll(async () => {
    server = fullServer();
    running = await startHttp(server);
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await running.close();
  });

  async function track(url: string, id: string | number, filter: Filter, extraMeta?: Record<string, unknown>) {
    const opened = await listen(url, id, filter, extraMeta);
    open.push(opened.stream);
    return opened;
  }

  describe('acknowledgement', () => {
    it('comes first, tagged with a string listen id, listing what the server honours', async () => {
      const filter = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['file:///cfg.json'] };
      const { stream, ack } = await track(running.url, 'L1', filter);
      expect(subIdOf(ack)).toBe('L1');
      expect(params(ack).notifications).toEqual(filter);
      stream.close();
    });

    it('keeps an integer listen id an integer', async () => {
      const { stream, ack } = await track(running.url, 42, { toolsListChanged: true });
      expect(subIdOf(ack)).toStrictEqual(42);
      expect(typeof subIdOf(ack)).toBe('number');
      stream.close();
    });

    it('leaves out types the client set to false or omitted', async () => {
      const { stream, ack } = await track(running.url, 'L-false', { toolsListChanged: false, promptsListChanged: true });
      const agreed = params(ack).notifications as Filter;
      expect(agreed.promptsListChanged).toBe(true);
      expect(agreed.toolsListChanged ?? false).toBe(false);
      expect(agreed.resourcesListChanged ?? false).toBe(false);
      expect(agreed.resourceSubscriptions ?? []).toEqual([]);
      stream.close();
    });

    it('leaves out types the server cannot honour (no prompts, no resources)', async () => {
      const toolsOnly = new McpServer({ name: 'tools-only', version: '1.0.0' }, { logger: quietLogger() });
      toolsOnly.tool('t', {}, () => 'x');
      const other = await startHttp(toolsOnly);
      try {
        const { stream, ack } = await listen(other.url, 'L-subset', {
          toolsListChanged: true,
          promptsListChanged: true,
          resourcesListChanged: true,
          resourceSubscriptions: ['file:///x'],
          // Tasks extension: neither declared by the client nor offered by this server.
          taskIds: ['task-1'],
        });
        const agreed = params(ack).notifications as Filter;
        expect(agreed).not.toHaveProperty('taskIds');
        expect(agreed.toolsListChanged).toBe(true);
        expect(agreed.promptsListChanged ?? false).toBe(false);
        expect(agreed.resourcesListChanged ?? false).toBe(false);
        expect(agreed.resourceSubscriptions ?? []).toEqual([]);
        stream.close();
      } finally {
        await other.close();
      }
    });
  });

  describe('list changes', () => {
    it('tools: registration and removal reach toolsListChanged streams only', async () => {
      const tools = await track(running.url, 'T1', { toolsListChanged: true });
      const prompts = await track(running.url, 'P1', { promptsListChanged: true });

      const remove = server.tool('added-tool', {}, () => 'x');
      expect((await tools.stream.next()).method).toBe('notifications/tools/list_changed');
      remove();
      expect((await tools.stream.next()).method).toBe('notifications/tools/list_changed');

      // Sentinel: the prompts stream's first change is the prompt change, so no tools change went to it.
      const removePrompt = server.prompt('added-prompt', {}, () => 'x');
      expect((await prompts.stream.next()).method).toBe('notifications/prompts/list_changed');
      removePrompt();
      expect((await prompts.stream.next()).method).toBe('notifications/prompts/list_changed');

      await quietPeriod();
      expect(methodsAfterAck(tools.stream)).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);
      expect(methodsAfterAck(prompts.stream)).toEqual(['notifications/prompts/list_changed', 'notifications/prompts/list_changed']);
      expectAllTagged(tools.stream, 'T1');
      expectAllTagged(prompts.stream, 'P1');
      tools.stream.close();
      prompts.stream.close();
    });

    it('resources: registration and removal reach resourcesListChanged streams only', async () => {
      const resources = await track(running.url, 7, { resourcesListChanged: true });
      const tools = await track(running.url, 8, { toolsListChanged: true });

      const remove = server.resource({ uri: 'test://added', name: 'added' }, () => 'x');
      expect((await resources.stream.next()).method).toBe('notifications/resources/list_changed');
      remove();
      expect((await resources.stream.next()).method).toBe('notifications/resources/list_changed');

      await quietPeriod();
      expect(methodsAfterAck(tools.stream)).toEqual([]);
      expectAllTagged(resources.stream, 7);
      tools.stream.close();
      resources.stream.close();
    });

    it('changes after a client closed its stream do not disturb the server', async () => {
      const gone = await track(running.url, 'gone', { toolsListChanged: true });
      gone.stream.close();
      await quietPeriod();
      // Would throw here if the server wrote to the dead stream unguarded.
      const remove = server.tool('after-close', {}, () => 'x');
      remove();
      const reply = await rpc(running.url, 'tools/list');
      expect(reply.status).toBe(200);
      expect((resultOf(reply).tools as Array<{ name: string }>).map((t) => t.name)).not.toContain('after-close');
    });
  });

  describe('resource updates', () => {
    it('reach streams subscribed to the URI or to a parent URI, and no others', async () => {
      const cfg = await track(running.url, 'R-cfg', { resourceSubscriptions: ['file:///cfg.json'] });
      const dir = await track(running.url, 'R-dir', { resourceSubscriptions: ['file:///dir/'] });
      const other = await track(running.url, 'R-other', { resourceSubscriptions: ['file:///other.json'] });
      const toolsOnly = await track(running.url, 'R-tools', { toolsListChanged: true });

      server.resourceUpdated('file:///dir/sub/a.txt');
      const dirNote = await dir.stream.next();
      expect(dirNote.method).toBe('notifications/resources/updated');
      expect(params(dirNote).uri).toBe('file:///dir/sub/a.txt');

      server.resourceUpdated('file:///cfg.json');
      const cfgNote = await cfg.stream.next();
      expect(cfgNote.method).toBe('notifications/resources/updated');
      expect(params(cfgNote).uri).toBe('file:///cfg.json');

      // Not under any subscription: a sibling that merely shares a prefix.
      server.resourceUpdated('file:///cfg.json.bak');
      server.resourceUpdated('file:///directory/x');

      // Sentinel for the other stream: its first message is its own update.
      server.resourceUpdated('file:///other.json');
      const otherNote = await other.stream.next();
      expect(params(otherNote).uri).toBe('file:///other.json');

      await quietPeriod();
      expect(methodsAfterAck(cfg.stream)).toEqual(['notifications/resources/updated']);
      expect(methodsAfterAck(dir.stream)).toEqual(['notifications/resources/updated']);
      expect(methodsAfterAck(other.stream)).toEqual(['notifications/resources/updated']);
      expect(methodsAfterAck(toolsOnly.stream)).toEqual([]);
      expectAllTagged(cfg.stream, 'R-cfg');
      expectAllTagged(dir.stream, 'R-dir');
      expectAllTagged(other.stream, 'R-other');
      for (const s of [cfg, dir, other, toolsOnly]) s.stream.close();
    });
  });

  describe('request-scoped notifications', () => {
    it('progress and log messages never appear on a listen stream', async () => {
      // The listen request itself asks for progress and logs: they still must not come.
      const watcher = await track(running.url, 'W1', { toolsListChanged: true }, { progressToken: 'listen-token', 'io.modelcontextprotocol/logLevel': 'debug' });
      const call = await rpc(running.url, 'tools/call', {
        name: 'noisy',
        _meta: meta({ progressToken: 'call-token', 'io.modelcontextprotocol/logLevel': 'debug' }),
      });
      // The call got its own notifications on its own stream…
      expect(call.messages.filter((m) => 'method' in m).map((m) => m.method)).toEqual([
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
      ]);
      expect(resultOf(call).content).toEqual([{ type: 'text', text: 'noisy done' }]);
      // …and the listen stream's next message is the sentinel change, with nothing before it.
      const remove = server.tool('sentinel', {}, () => 'x');
      const { skipped } = await watcher.stream.nextMatching((m) => m.method === 'notifications/tools/list_changed');
      expect(skipped).toEqual([]);
      remove();
      await watcher.stream.next();
      await quietPeriod();
      const methods = watcher.stream.messages.map((m) => m.method);
      expect(methods).not.toContain('notifications/progress');
      expect(methods).not.toContain('notifications/message');
      expectAllTagged(watcher.stream, 'W1');
      watcher.stream.close();
    });
  });

  describe('refusals', () => {
    it('answers a listen request that accepts only application/json with a JSON-RPC error, not a hang', async () => {
      const reply = await rpc(running.url, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, {
        id: 'json-only',
        headers: { accept: 'application/json' },
      });
      expect(reply.contentType).toContain('application/json');
      const error = errorOf(reply);
      expect(Number.isInteger(error.code)).toBe(true);
      expect(reply.response!.id).toBe('json-only');
    });

    it('answers a listen request without a notifications filter with -32602', async () => {
      const reply = await rpc(running.url, 'subscriptions/listen', {}, { id: 'no-filter' });
      expect(errorOf(reply).code).toBe(-32602);
    });
  });
});

describe('server.close()', () => {
  let running: RunningHttpServer;
  let server: McpServer;
  beforeAll(async () => {
    server = fullServer();
    running = await startHttp(server);
  });
  afterAll(() => running.close());

  it('ends every listen stream with the graceful result carrying its subscriptionId', async () => {
    const a = await listen(running.url, 'close-a', { toolsListChanged: true });
    const b = await listen(running.url, 99, { resourceSubscriptions: ['file:///cfg.json'] });
    server.close();
    for (const [{ stream }, id] of [
      [a, 'close-a'],
      [b, 99],
    ] as const) {
      const final = await stream.next();
      expect(final.id).toStrictEqual(id);
      expect(final).not.toHaveProperty('error');
      const result = final.result as Record<string, unknown>;
      expect(result.resultType).toBe('complete');
      expect((result._meta as Record<string, unknown>)[SUB_ID]).toStrictEqual(id);
      // The result is the last thing on the stream, and the stream then ends.
      await stream.ended;
      expect(stream.messages.at(-1)).toBe(final);
      expectAllTagged(stream, id);
    }
  });
});
