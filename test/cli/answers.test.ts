/**
 * `tessera call … --answers file.json`, without a terminal, against the
 * example server: the documented file format (full answers, shorthand
 * content, actions alone, sampling text, lookup by message), what is printed,
 * the exit codes, and a clear failure instead of a hang when a question has
 * no answer.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../helpers/child-processes.js';
import { runCli, startExampleServer, type Background } from '../helpers/cli.js';

let example: { url: string; server: Background };
const dir = mkdtempSync(join(tmpdir(), 'tessera-answers-'));
let files = 0;

function answers(content: unknown): string {
  const path = join(dir, `answers-${++files}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

beforeAll(async () => {
  example = await startExampleServer();
});

afterAll(() => {
  example?.server.stop();
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('the deploy confirmation answered from a file', () => {
  it('deploys with the full answer form, prints the text and exits 0', async () => {
    const file = answers({ confirm: { action: 'accept', content: { approve: true } } });
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', file]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^Deployed api to prod \(deployment api-prod-\d+\)\.\n$/);
    expect(run.code).toBe(0);
  });

  it('takes the shorthand (the content alone means accept) and prints JSON with --json', async () => {
    const file = answers({ confirm: { approve: true } });
    const run = await runCli(['call', example.url, 'deploy', 'service=web', 'env=staging', '--answers', file, '--json']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { content: Array<{ type: string; text: string }>; isError?: boolean };
    expect(result.content[0]?.text).toMatch(/^Deployed web to staging/);
    expect(result.isError).toBeUndefined();
  });

  it('declines with an action alone', async () => {
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', answers({ confirm: 'decline' })]);
    expect(run.stdout).toBe('Deployment cancelled.\n');
    expect(run.code).toBe(0);
  });

  it('finds an answer by the question text when the key is not in the file', async () => {
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', answers({ 'Deploy api to prod?': { approve: true } })]);
    expect(run.stdout).toMatch(/^Deployed api to prod/);
    expect(run.code).toBe(0);
  });

  it('fails with exit 2, naming the question and an entry that would answer it, when the file has no answer', async () => {
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', answers({ other: { approve: true } })]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('The server asked "confirm" ("Deploy api to prod?")');
    expect(run.stderr).toContain('has no answer for it. Add e.g. {"confirm":{"approve":true}}');
  });

  it('fails with exit 2 when an answer does not fit the form', async () => {
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', answers({ confirm: { approve: 'yes' } })]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the answer to "confirm" does not fit the form: "approve": must be true or false');
  });

  it('fails with exit 2, not a hang, when there is neither a terminal nor an answers file', async () => {
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('there is no terminal to ask in');
    expect(run.stderr).toContain('--answers');
  });

  it('refuses an answers file that is not JSON (exit 2)', async () => {
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', answers('{ not json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--answers .* is not valid JSON/);
  });
});

describe('the other example tools, answered from a file', () => {
  it('runs the wizard through its state-only rounds to the final approval', async () => {
    const run = await runCli(['call', example.url, 'create_project', 'name=demo', '--answers', answers({ approve_plan: { approve: true } })]);
    expect(run.stdout).toBe('Created project demo: repo demo, ci demo, dashboard demo.\n');
    expect(run.code).toBe(0);
  });

  it('answers URL-mode sign-ins with actions (accept three times: the sign-in never finishes)', async () => {
    const file = answers({ sign_in_1: 'accept', sign_in_2: { action: 'accept' }, sign_in_3: {} });
    const run = await runCli(['call', example.url, 'connect_calendar', '--answers', file]);
    expect(run.stdout).toBe('Sign-in did not finish; try again later.\n');
    expect(run.code).toBe(0);
  });

  it('answers sampling with the text in the file', async () => {
    const run = await runCli(['call', example.url, 'summarize', 'text=MCP servers can ask.', '--answers', answers({ summary: 'Servers ask.' })]);
    expect(run.stdout).toBe('Servers ask.\n');
    expect(run.code).toBe(0);
  });

  it('answers sampling with --sampling-command, which gets the request as JSON on stdin', async () => {
    const script = join(dir, 'model.mjs');
    writeFileSync(
      script,
      "let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => { const r = JSON.parse(s); console.log(`${r.messages.length} message, ${r.maxTokens} tokens: ${r.messages[0].content.text.split('\\n').pop()}`); });",
    );
    const run = await runCli(['call', example.url, 'summarize', 'text=Hello there', '--sampling-command', `"${process.execPath}" "${script}"`]);
    expect(run.stdout).toBe('1 message, 200 tokens: Hello there\n');
    expect(run.code).toBe(0);
  });

  it('reports a failing --sampling-command with exit 1', async () => {
    const run = await runCli(['call', example.url, 'summarize', 'text=x', '--sampling-command', `"${process.execPath}" -e "process.exit(3)"`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('exited with code 3');
  });
});
