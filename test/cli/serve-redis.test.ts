/**
 * `tessera serve <module> --redis <url>` (and TESSERA_REDIS_URL) against a
 * real redis-server: two served processes share the stores, so a single-use
 * state redeemed through one is refused by the other, and a task made on one
 * is read on the other; a module that exports a server made at import time is
 * refused with the factory to write; a URL that is not a Redis URL is a usage
 * error. With `--redis-prefix` (and TESSERA_REDIS_PREFIX), applications on the
 * same Redis are apart: a task of one is unknown to the other by its id, and
 * a change of one is not heard by the other's listen streams (seen failing
 * before the option existed: the option was unknown, and with the one
 * prefix every server had, the task was read and the change heard across).
 * Every child is stopped by PID.
 */

import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStateKey } from 'tessera-mcp';
import { compiledFile, ROOT, stopAll } from '../helpers/child-processes.js';
import { runCli, startServe, type Background } from '../helpers/cli.js';
import { meta, rpc } from '../helpers/http.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { openStream, quietPeriod, type OpenStream } from '../helpers/sse-stream.js';
import { createTask, pollTask, tasksCancel, tasksGet, type Json } from '../helpers/tasks.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tessera-serve-redis-')));
const KEYS = generateStateKey('shared');
const FORM = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } });

/** A server made at import time: it cannot be handed the stores. */
const readyMade = join(dir, 'ready-made.mjs');
writeFileSync(
  readyMade,
  `import { McpServer } from ${JSON.stringify(pathToFileURL(`${ROOT}dist/src/index.js`).href)};
export default new McpServer({ name: 'ready-made', version: '1.0.0' });
`,
);

let redis: RedisServer;
let factoryModule: string;
const served: Array<{ url: string; server: Background }> = [];
/** Two processes of application A (prefix by flag, and by variable) and one of application B, on the same Redis. */
const apart: Record<'a1' | 'a2' | 'b', { url: string; server: Background }> = {} as never;

beforeAll(async () => {
  redis = await startRedis();
  factoryModule = compiledFile('examples/cluster-server.js', [`${ROOT}examples/cluster-server.ts`]);
  // One with the flag, one with the variable: the same stores either way.
  served.push(await startServe([factoryModule, '--redis', redis.url, '--keys', KEYS], { INSTANCE_NAME: 'flag' }));
  served.push(await startServe([factoryModule, '--keys', KEYS], { INSTANCE_NAME: 'env', TESSERA_REDIS_URL: redis.url }));
  apart.a1 = await startServe([factoryModule, '--redis', redis.url, '--redis-prefix', 'app-a:', '--keys', KEYS], { INSTANCE_NAME: 'a1' });
  apart.a2 = await startServe([factoryModule, '--keys', KEYS], { INSTANCE_NAME: 'a2', TESSERA_REDIS_URL: redis.url, TESSERA_REDIS_PREFIX: 'app-a:' });
  apart.b = await startServe([factoryModule, '--redis', redis.url, '--redis-prefix', 'app-b:', '--keys', KEYS], { INSTANCE_NAME: 'b' });
});

afterAll(async () => {
  for (const s of [...served, ...Object.values(apart)]) s.server.stop();
  await redis?.stop();
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('tessera serve --redis', () => {
  it('says the stores are on Redis', async () => {
    for (const { server } of served) {
      await server.waitFor(/Shared stores: Redis/);
      expect(server.stderr).toContain(`Shared stores: Redis at redis://127.0.0.1:${redis.port}`);
    }
  });

  it('shares single-use redemptions: a state redeemed through one process is refused by the other', async () => {
    const [flag, env] = served;
    const params = { name: 'confirm_payment', arguments: { amount: '5 EUR' } };
    const first = (await rpc(flag!.url, 'tools/call', { ...params, _meta: FORM })).response!.result as Json;
    const retry = { ...params, requestState: first.requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, _meta: FORM };
    const paid = (await rpc(env!.url, 'tools/call', retry)).response!;
    expect(paid.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: '5 EUR paid by env' }] });
    const replayed = (await rpc(flag!.url, 'tools/call', retry)).response!;
    expect(replayed.error).toMatchObject({ code: -32602 });
  });

  it('shares tasks: one made through one process is read through the other', async () => {
    const [flag, env] = served;
    const task = await createTask(flag!.url, 'long_job');
    const seen = await pollTask(env!.url, task.taskId as string, (t) => t.status === 'input_required');
    expect(Object.values(seen.inputRequests as Record<string, { params: { message: string } }>)[0]!.params.message).toBe('[flag] Start the job?');
  });

  it('refuses a module that exports a ready-made server, saying to export a factory', async () => {
    const run = await runCli(['serve', readyMade, '--port', '0', '--redis', redis.url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--redis: ');
    expect(run.stderr).toContain('exports a server made at import time, which cannot be given the shared stores');
    expect(run.stderr).toContain('export default (options) => new McpServer({ name, version }, options)');
    const fromEnv = await runCli(['serve', readyMade, '--port', '0'], { env: { TESSERA_REDIS_URL: redis.url } });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain('TESSERA_REDIS_URL: ');
  });

  it('refuses a URL that is not a Redis URL before starting', async () => {
    const run = await runCli(['serve', factoryModule, '--port', '0', '--redis', 'http://127.0.0.1:6379']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--redis takes a redis:// or rediss:// URL, not "http://127.0.0.1:6379"');
  });
});

describe('tessera serve --redis-prefix', () => {
  const touch = async (url: string): Promise<void> => {
    const reply = await rpc(url, 'tools/call', { name: 'touch_notes', arguments: {} });
    expect(reply.response!.result).toMatchObject({ resultType: 'complete' });
  };
  const updates = (stream: OpenStream): number => stream.messages.filter((m) => m.method === 'notifications/resources/updated').length;

  it('says the key prefix on start-up', async () => {
    await apart.a2.server.waitFor(/Shared stores: Redis/);
    expect(apart.a1.server.stderr).toContain(`Shared stores: Redis at redis://127.0.0.1:${redis.port}, key prefix app-a:`);
    expect(apart.a2.server.stderr).toContain('key prefix app-a:');
  });

  it("keeps one application's tasks from another on the same Redis: unknown by id there, shared within the application", async () => {
    const task = await createTask(apart.a1.url, 'long_job');
    const taskId = task.taskId as string;
    // The same application (the same prefix, given by the variable) reads it.
    const seen = await pollTask(apart.a2.url, taskId, (t) => t.status === 'input_required');
    expect(seen.taskId).toBe(taskId);
    // Another application, or one on the default prefix, knows no such task, and cannot cancel it.
    for (const other of [apart.b.url, served[0]!.url]) {
      const got = (await tasksGet(other, taskId)).response!;
      expect(got.result, JSON.stringify(got)).toBeUndefined();
      expect(got.error).toMatchObject({ code: -32602 });
      expect((await tasksCancel(other, taskId)).response!.error).toMatchObject({ code: -32602 });
    }
    expect(((await tasksGet(apart.a1.url, taskId)).response!.result as Json).status).toBe('input_required');
  });

  it("keeps one application's change notifications from another's listen streams", async () => {
    const stream = await openStream(apart.a2.url, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['notes://shared'] } });
    try {
      expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged');
      // The stream hears its own application's change made on another process (a bounded number of tries:
      // the acknowledgement may come before Redis confirmed the subscription).
      let ownTouches = 0;
      for (; ownTouches < 20 && updates(stream) === 0; ownTouches++) {
        await touch(apart.a1.url);
        for (let wait = 0; wait < 10 && updates(stream) === 0; wait++) await quietPeriod(50);
      }
      expect(updates(stream)).toBeGreaterThan(0);
      const heard = updates(stream);
      // Changes of the same resource in application B and on the default prefix: nothing arrives.
      await touch(apart.b.url);
      await touch(served[0]!.url);
      await quietPeriod(300);
      // One more change of its own arrives, and it is the only one after the others'.
      await touch(apart.a1.url);
      await stream.nextMatching((m) => m.method === 'notifications/resources/updated' && updates(stream) > heard);
      await quietPeriod(300);
      expect(updates(stream)).toBe(heard + 1);
    } finally {
      stream.close();
    }
  });

  it('refuses --redis-prefix without a Redis, and a prefix with spaces', async () => {
    const alone = await runCli(['serve', factoryModule, '--port', '0', '--redis-prefix', 'app-a:'], { env: { TESSERA_REDIS_URL: '' } });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--redis-prefix needs --redis <url> (or TESSERA_REDIS_URL)');
    const spaced = await runCli(['serve', factoryModule, '--port', '0', '--redis', redis.url, '--redis-prefix', 'my app']);
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain('--redis-prefix takes up to 64 printable characters without spaces');
  });

  it('refuses --redis-cluster without a Redis, and a TESSERA_REDIS_CLUSTER that is neither 1 nor 0', async () => {
    const alone = await runCli(['serve', factoryModule, '--port', '0', '--redis-cluster'], { env: { TESSERA_REDIS_URL: '' } });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--redis-cluster needs --redis <url> (or TESSERA_REDIS_URL)');
    const vague = await runCli(['serve', factoryModule, '--port', '0', '--redis', redis.url], { env: { TESSERA_REDIS_CLUSTER: 'yes please' } });
    expect(vague.code).toBe(2);
    expect(vague.stderr).toContain('TESSERA_REDIS_CLUSTER takes 1 or 0 (true or false), not "yes please"');
  });
});
