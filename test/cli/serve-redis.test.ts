/**
 * `tessera serve <module> --redis <url>` (and TESSERA_REDIS_URL) against a
 * real redis-server: two served processes share the stores, so a single-use
 * state redeemed through one is refused by the other, and a task made on one
 * is read on the other; a module that exports a server made at import time is
 * refused with the factory to write; a URL that is not a Redis URL is a usage
 * error. Every child is stopped by PID.
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
import { createTask, pollTask, type Json } from '../helpers/tasks.js';

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

beforeAll(async () => {
  redis = await startRedis();
  factoryModule = compiledFile('examples/cluster-server.js', [`${ROOT}examples/cluster-server.ts`]);
  // One with the flag, one with the variable: the same stores either way.
  served.push(await startServe([factoryModule, '--redis', redis.url, '--keys', KEYS], { INSTANCE_NAME: 'flag' }));
  served.push(await startServe([factoryModule, '--keys', KEYS], { INSTANCE_NAME: 'env', TESSERA_REDIS_URL: redis.url }));
});

afterAll(async () => {
  for (const s of served) s.server.stop();
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
