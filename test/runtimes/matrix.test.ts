/**
 * The runtime matrix (issue 17): fixtures/runtime-worker.ts bundled once, then
 * run unchanged on Node, Bun, Deno and workerd (compatibility date 2024-09-23,
 * no compatibility flags: no nodejs_compat). On each, Tessera's client from
 * Node lists the tools and calls both — `deploy` on zod schemas, `order` on
 * raw JSON Schema (validated without code generation where Workers refuse
 * it) — through MRTR: the server asks a form question, the client answers it
 * and retries with the sealed requestState. No request may make the runtime
 * write to stderr (Deno warned about `request.signal` once).
 *
 * workerd also proves the module does no work at global scope a Worker
 * refuses (random values, keys, timers): it would not start otherwise.
 * Run with `npm run test:runtimes` after `npm ci --prefix runtimes`.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'tessera-mcp/client';
import type { ElicitRequestFormParams, ElicitResult } from 'tessera-mcp/client';
import { bundle, type Bundle } from '../helpers/bundle.js';
import { stopAll } from '../helpers/child-processes.js';
import { KEYLESS_BUNDLE, startRuntime, WORKER_BUNDLE, type RunningRuntime, type RuntimeName } from '../helpers/runtimes.js';

let built: Bundle;

beforeAll(async () => {
  built = await bundle('fixtures/runtime-worker.ts', WORKER_BUNDLE);
  await bundle('fixtures/runtime-worker-keyless.ts', KEYLESS_BUNDLE);
});
afterAll(() => stopAll());

it('the bundle is one web module: nothing imported from node:*, nothing left for a runtime to resolve', () => {
  expect(built.warnings).toEqual([]);
  expect(built.imports).toEqual([]);
  expect(built.code).not.toMatch(/\b(?:from|import|require)\s*\(?\s*["']node:/);
  expect(built.code).toMatch(/export \{ \w+ as default \}/);
});

/** A client that answers every form with `answer`, remembering each question. */
function clientAnswering(answer: ElicitResult, asked: ElicitRequestFormParams[]): Client {
  const form = (params: ElicitRequestFormParams): ElicitResult => {
    asked.push(params);
    return answer;
  };
  return new Client({ name: 'runtime-matrix', version: '1.0.0' }, { era: 'modern', elicitation: { form } });
}

const textOf = (result: { content: Array<{ type: string; text?: string }> }): string | undefined => result.content.find((c) => c.type === 'text')?.text;

describe.each<RuntimeName>(['node', 'bun', 'deno', 'workerd'])('on %s', (name) => {
  let runtime: RunningRuntime;
  /** stderr is checked after each request: it must not have grown. */
  let seen = 0;
  const quiet = (): void => {
    expect(runtime.stderr().slice(seen)).toBe('');
    seen = runtime.stderr().length;
  };

  beforeAll(async () => {
    runtime = await startRuntime(name);
    seen = runtime.stderr().length;
  });
  afterAll(async () => {
    await runtime?.stop();
  });

  it('starts with nothing on stderr and lists both tools', async () => {
    expect(runtime.stderr()).toBe('');
    const client = await clientAnswering({ action: 'decline' }, []).connect(runtime.url);
    const tools = await client.listAllTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['deploy', 'order']);
    expect(tools.find((t) => t.name === 'order')!.inputSchema).toMatchObject({ required: ['item', 'quantity'] });
    quiet();
    await client.close();
  });

  it('deploy (zod): asks a form with the requested schema, then completes with the answer', async () => {
    const asked: ElicitRequestFormParams[] = [];
    const client = await clientAnswering({ action: 'accept', content: { approve: true } }, asked).connect(runtime.url);
    const result = await client.callTool('deploy', { service: 'api', env: 'staging' });
    expect(asked.map((q) => q.message)).toEqual(['Deploy api to staging?']);
    expect(asked[0]!.requestedSchema).toMatchObject({ type: 'object', properties: { approve: { type: 'boolean' } } });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toBe('Deployed api to staging.');
    quiet();
    await client.close();
  });

  it('deploy (zod): a declined form gives the cancelled result', async () => {
    const client = await clientAnswering({ action: 'decline' }, []).connect(runtime.url);
    expect(textOf(await client.callTool('deploy', { service: 'api', env: 'prod' }))).toBe('Deployment cancelled.');
    quiet();
    await client.close();
  });

  it('order (raw JSON Schema): asks, then completes with the answer', async () => {
    const asked: ElicitRequestFormParams[] = [];
    const client = await clientAnswering({ action: 'accept', content: { approve: true } }, asked).connect(runtime.url);
    const result = await client.callTool('order', { item: 'tea', quantity: 2 });
    expect(asked.map((q) => q.message)).toEqual(['Order 2 x tea?']);
    expect(asked[0]!.requestedSchema).toMatchObject({ required: ['approve'] });
    expect(textOf(result)).toBe('Ordered 2 x tea.');
    quiet();
    await client.close();
  });

  it('order (raw JSON Schema): arguments the schema refuses are a tool error, and the server keeps serving', async () => {
    const asked: ElicitRequestFormParams[] = [];
    const client = await clientAnswering({ action: 'accept', content: { approve: true } }, asked).connect(runtime.url);
    const refused = await client.callTool('order', { item: 'tea', quantity: 0 });
    expect(refused.isError).toBe(true);
    expect(asked).toEqual([]);
    expect(textOf(await client.callTool('order', { item: 'jam', quantity: 1 }))).toBe('Ordered 1 x jam.');
    quiet();
    await client.close();
  });

  it('wrote nothing to stderr, all of it read once the process is stopped', async () => {
    await runtime.stop();
    expect(runtime.stderr()).toBe('');
  });
});

describe('on workerd, a server made at module scope with no state key configured', () => {
  let runtime: RunningRuntime;
  beforeAll(async () => {
    runtime = await startRuntime('workerd', 'workerd-keyless.capnp');
  });
  afterAll(async () => {
    await runtime?.stop();
  });

  it('starts (its key is made on first use, not at load) and completes a call through MRTR', async () => {
    const asked: ElicitRequestFormParams[] = [];
    const client = await clientAnswering({ action: 'accept', content: { approve: true } }, asked).connect(runtime.url);
    expect(textOf(await client.callTool('deploy', { service: 'api' }))).toBe('Deployed api.');
    expect(asked.map((q) => q.message)).toEqual(['Deploy api?']);
    await client.close();
  });

  it("writes only Tessera's own warning about a per-process key, once", async () => {
    await runtime.stop();
    const lines = runtime.stderr().split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[tessera\] WARNING: no requestState key is configured, so this process made its own\./);
  });
});
