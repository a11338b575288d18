/**
 * `tessera call` against servers built with the official TypeScript SDK v2
 * (2.4.0): its 2026-07-28 server over HTTP and over stdio (spawned after
 * `--`), and a 2025-11-25-only server whose questions arrive as real
 * elicitation/create requests. The client's era detection picks the era; the
 * answers come from --answers files, by key (2026) and by message (2025).
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledFixture, stopAll } from '../helpers/child-processes.js';
import { runCli, startOfficialServer, type Background } from '../helpers/cli.js';

const EXPECTED = 'Hello Ada, your favourite color is teal.\n';
let modern: { url: string; server: Background };
let legacy: { url: string; server: Background };
const dir = mkdtempSync(join(tmpdir(), 'tessera-official-'));
const byKey = join(dir, 'by-key.json');
const byMessage = join(dir, 'by-message.json');

beforeAll(async () => {
  writeFileSync(byKey, JSON.stringify({ name: { name: 'Ada' }, color: { action: 'accept', content: { color: 'teal' } } }));
  writeFileSync(byMessage, JSON.stringify({ 'What is your name?': { name: 'Ada' }, 'What is your favourite color?': { color: 'teal' } }));
  [modern, legacy] = await Promise.all([startOfficialServer('official-sdk-server'), startOfficialServer('official-sdk-legacy-server')]);
});

afterAll(() => {
  modern?.server.stop();
  legacy?.server.stop();
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('the official SDK 2026-07-28 server', () => {
  it('over HTTP: a plain tool', async () => {
    const run = await runCli(['call', modern.url, 'echo', 'text=hi there']);
    expect(run).toMatchObject({ code: 0, stdout: 'hi there\n' });
  });

  it('over HTTP: a tool that asks twice, answered by key', async () => {
    const run = await runCli(['call', modern.url, 'profile', 'greeting=Hello', '--answers', byKey]);
    expect(run.stderr).toBe('');
    expect(run).toMatchObject({ code: 0, stdout: EXPECTED });
  });

  it('over stdio, spawned after "--"', async () => {
    const run = await runCli(['call', 'profile', 'greeting=Hello', '--answers', byKey, '--', process.execPath, compiledFixture('official-sdk-server'), '--stdio']);
    expect(run).toMatchObject({ code: 0, stdout: EXPECTED });
  });

  it('lists its tools over stdio', async () => {
    const run = await runCli(['list', '--', process.execPath, compiledFixture('official-sdk-server'), '--stdio']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('echo text=<string>');
    expect(run.stdout).toContain('profile greeting=<string>');
  });

  it('over stdio: an unanswered second question fails with exit 2', async () => {
    const file = join(dir, 'name-only.json');
    writeFileSync(file, JSON.stringify({ name: { name: 'Ada' } }));
    const run = await runCli(['call', 'profile', 'greeting=Hello', '--answers', file, '--', process.execPath, compiledFixture('official-sdk-server'), '--stdio']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('The server asked "color" ("What is your favourite color?")');
    expect(run.stdout).toBe('');
  });
});

describe('the official SDK 2025-11-25 server', () => {
  it('asks through elicitation/create; the answers are found by their message', async () => {
    const run = await runCli(['call', legacy.url, 'profile', 'greeting=Hello', '--answers', byMessage]);
    expect(run.stderr).toBe('');
    expect(run).toMatchObject({ code: 0, stdout: EXPECTED });
  });

  it('fails with exit 2 when a question has no answer, even though the server turns it into its own error', async () => {
    const file = join(dir, 'half.json');
    writeFileSync(file, JSON.stringify({ 'What is your name?': { name: 'Ada' } }));
    const run = await runCli(['call', legacy.url, 'profile', 'greeting=Hello', '--answers', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('What is your favourite color?');
    expect(run.stdout).toBe('');
  });
});
