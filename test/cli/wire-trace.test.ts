/**
 * The wire trace the README's "On the wire" shows (issue 17): `npm start --
 * --trace` (and TESSERA_TRACE=1) prints every JSON-RPC message the example
 * server receives (→) and sends (←), one a line; `tessera call --trace`
 * prints what the client sends and receives on stderr. Both show the deploy
 * flow: the call, its input_required round with the elicitation and a
 * requestState, the retry carrying the answer and that same state, and the
 * complete result. Without the flag, nothing of the wire is printed.
 * `tessera serve --trace` prints what its server receives and sends on stderr.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledFixture, stopAll } from '../helpers/child-processes.js';
import { runCli, startExampleServer, startServe } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tessera-trace-'));
const answers = join(dir, 'answers.json');
writeFileSync(answers, JSON.stringify({ confirm: { approve: true } }));
afterAll(() => {
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

type Message = Record<string, any>;

/** The trace lines of `text`: each `→ {…}` / `← {…}` line parsed (a line that is not one JSON-RPC message fails the test). */
function traceOf(text: string): { arrow: string; message: Message }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('→ ') || line.startsWith('← '))
    .map((line) => {
      const message = JSON.parse(line.slice(2)) as Message;
      expect(message.jsonrpc).toBe('2.0');
      return { arrow: line[0]!, message };
    });
}

/** Checks that `trace` shows the deploy flow as the README does: two tools/call requests and the two results. */
function expectDeployFlow(trace: { arrow: string; message: Message }[]): void {
  const calls = trace.filter((t) => t.arrow === '→' && t.message.method === 'tools/call');
  expect(calls).toHaveLength(2);
  const [first, retry] = calls.map((c) => c.message);
  expect(first!.params).toMatchObject({ name: 'deploy', arguments: { service: 'api', env: 'prod' } });
  const replyTo = (id: unknown): Message => trace.find((t) => t.arrow === '←' && t.message.id === id)!.message;
  const round = replyTo(first!.id).result;
  expect(round.resultType).toBe('input_required');
  expect(round.inputRequests.confirm).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: 'Deploy api to prod?' } });
  expect(typeof round.requestState).toBe('string');
  expect(retry!.params).toMatchObject({ name: 'deploy', inputResponses: { confirm: { action: 'accept', content: { approve: true } } }, requestState: round.requestState });
  const done = replyTo(retry!.id).result;
  expect(done).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: expect.stringMatching(/^Deployed api to prod \(deployment api-prod-\d+\)\.$/) }] });
}

describe('the wire trace', () => {
  it('npm start -- --trace: the example server prints each message received (→) and sent (←)', async () => {
    const example = await startExampleServer(['--trace']);
    try {
      const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', answers]);
      expect(run.code).toBe(0);
      await example.server.waitFor(/"resultType":"complete"/);
      expectDeployFlow(traceOf(example.server.stdout));
    } finally {
      example.server.stop();
    }
  });

  it('TESSERA_TRACE=1 turns it on too; without either, no message is printed', async () => {
    for (const [env, traced] of [['1', true], ['', false]] as const) {
      process.env.TESSERA_TRACE = env;
      const example = await startExampleServer();
      delete process.env.TESSERA_TRACE;
      try {
        expect((await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', answers])).code).toBe(0);
        if (traced) await example.server.waitFor(/"resultType":"complete"/);
        expect(traceOf(example.server.stdout).length > 0).toBe(traced);
      } finally {
        example.server.stop();
      }
    }
  });

  it('tessera call --trace prints what the client sends and receives on stderr, the result still on stdout', async () => {
    const example = await startExampleServer();
    try {
      const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', answers, '--trace']);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Deployed api to prod/);
      expect(traceOf(run.stdout)).toEqual([]);
      expectDeployFlow(traceOf(run.stderr));
      const plain = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', answers]);
      expect(traceOf(plain.stderr)).toEqual([]);
    } finally {
      example.server.stop();
    }
  });

  it('tessera serve --trace prints each message its server receives and sends on stderr', async () => {
    const served = await startServe([compiledFixture('cli-demo-server'), '--trace']);
    try {
      expect((await runCli(['list', served.url])).code).toBe(0);
      await served.server.waitFor(/^← .*"tools":/m);
      const trace = traceOf(served.server.stderr);
      const list = trace.find((t) => t.arrow === '→' && t.message.method === 'tools/list')!.message;
      expect(trace.find((t) => t.arrow === '←' && t.message.id === list.id)!.message.result.tools.length).toBeGreaterThan(0);
    } finally {
      served.server.stop();
    }
  });
});
