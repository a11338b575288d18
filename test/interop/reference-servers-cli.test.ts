/**
 * `tessera` against the reference servers people run today (server-everything,
 * -filesystem, -memory from npm; 2025-11-25 on the official SDK 1.x), the way
 * a person runs it: a URL for server-everything over Streamable HTTP, or the
 * server's command after `--` (stdio). Where what reaches the server matters,
 * a tap between the CLI and the server (fixtures/stdio-tap.ts) records it.
 */

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledFixture, ROOT, stopAll } from '../helpers/child-processes.js';
import { Background, cliPath, runCli, TerminalSession } from '../helpers/cli.js';
import { eventually, startEverythingHttp, stdioCommand, tapped, tappedCommand, type HttpReferenceServer } from '../helpers/reference-servers.js';

const work = mkdtempSync(join(tmpdir(), 'tessera-reference-cli-'));
let http: HttpReferenceServer;
let taps = 0;

/** The words after `--` that start a server (through the tap when `record` is given). */
function serverWords(server: { command: string; args: string[] }, record?: string): string[] {
  const run = record === undefined ? server : tappedCommand(record, server);
  return ['--', run.command, ...run.args];
}

function newRecord(): string {
  return join(work, `tap-${++taps}.jsonl`);
}

beforeAll(async () => {
  http = await startEverythingHttp();
});

afterAll(() => {
  http?.stop();
  stopAll();
  rmSync(work, { recursive: true, force: true });
});

describe('tessera and the tasks of 2025-11-25', () => {
  it('tessera list marks the tools that run as tasks', async () => {
    const run = await runCli(['list', http.url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}simulate-research-query topic=<string> \[ambiguous=<boolean>\] \(runs as a task\)$/m);
    expect(run.stdout).toMatch(/^ {2}echo message=<string>$/m);
  });

  it('tessera call follows a task-required tool to its result, showing its status', async () => {
    const run = await runCli(['call', http.url, 'simulate-research-query', 'topic=otters']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('# Research Report: otters');
    expect(run.stderr).toMatch(/The server runs this call as task \S+; following it/);
    expect(run.stderr).toContain('task working — Gathering sources...');
    expect(run.stderr).toContain('task completed');
  });
});

describe('tessera and the server’s log messages', () => {
  it('--log-level asks the server for its messages (logging/setLevel) and shows them on stderr', async () => {
    const record = newRecord();
    // server-everything sends one message at a random level at once, then one every 5 s.
    const run = await runCli(['call', 'toggle-simulated-logging', '--log-level', 'debug', ...serverWords(stdioCommand('everything'), record)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Started simulated, random-leveled logging');
    expect(run.stderr).toMatch(/^server log (debug|info|notice|warning|error|critical|alert|emergency): \w+[- ]level[- ]message$/im);
    expect(tapped(record).filter((m) => m.method === 'logging/setLevel').map((m) => m.params.level)).toEqual(['debug']);
  });

  it('without --log-level, asks for none and shows warnings and worse only', async () => {
    const record = newRecord();
    const run = await runCli(['call', 'echo', 'message=quiet', ...serverWords(stdioCommand('everything'), record)]);
    expect(run.code).toBe(0);
    expect(tapped(record).map((m) => m.method)).not.toContain('logging/setLevel');
    expect(run.stderr).not.toMatch(/^server log (debug|info|notice)/m);
  });

  it('--log-level takes only the levels MCP logging has', async () => {
    const run = await runCli(['call', http.url, 'echo', 'message=x', '--log-level', 'loud']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--log-level.*loud.*debug, info, notice, warning, error, critical, alert, emergency/s);
  });
});

describe('tessera --trace against a server that primes its SSE streams', () => {
  it('prints one line per JSON-RPC message and none for a priming event', async () => {
    const run = await runCli(['list', http.url, '--trace']);
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n').filter((line) => line.startsWith('→') || line.startsWith('←'));
    expect(lines.filter((line) => line.startsWith('← ')).length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatch(/^[→←] \{/);
      expect(() => JSON.parse(line.slice(2))).not.toThrow();
    }
  });
});

describe('tessera and roots', () => {
  const data = join(work, 'data');
  const elsewhere = join(work, 'elsewhere');

  beforeAll(() => {
    mkdirSync(data, { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
  });

  it('offers no root unless asked: server-filesystem keeps serving the directory it was started with', async () => {
    const record = newRecord();
    // Run from another directory: the working directory is not offered.
    const run = await runCli(['call', 'list_directory', `path=${data}`, ...serverWords(stdioCommand('filesystem', [data]), record)], { cwd: elsewhere });
    expect(run.code).toBe(0);
    const initialize = tapped(record).find((m) => m.method === 'initialize');
    expect(initialize?.params.capabilities).not.toHaveProperty('roots');
    const allowed = await runCli(['call', 'list_allowed_directories', ...serverWords(stdioCommand('filesystem', [data]))], { cwd: elsewhere });
    expect(allowed.stdout).toContain(data);
    expect(allowed.stdout).not.toContain(elsewhere);
  });

  it('offers each --root, and only those', async () => {
    const run = await runCli(['call', http.url, 'get-roots-list', '--root', elsewhere]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`URI: ${pathToFileURL(elsewhere).href}`);
    expect(run.stdout).toContain('Current MCP Roots (1 total)');
  });

  it('says in the help what a root grants', async () => {
    const run = await runCli(['help', 'call']);
    const help = run.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--root <path|uri> a directory to grant the server as a root (repeatable; none by default)');
    expect(help).toContain('a root is a directory you grant the server — it may read and change files under it');
    expect(help).toContain('tessera offers none unless you pass --root <dir>');
  });
});

describe('tessera and cancellation, both ways', () => {
  it('Ctrl-C during a call cancels it on the server (notifications/cancelled reaches it before stdin ends)', async () => {
    const record = newRecord();
    const cli = new Background(
      spawn(process.execPath, [cliPath(), 'call', 'trigger-long-running-operation', 'duration=30', 'steps=30', ...serverWords(stdioCommand('everything'), record)], {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const call = await eventually('the tools/call to reach the server', () => tapped(record).find((m) => m.method === 'tools/call'));
    cli.proc.kill('SIGINT');
    expect(await cli.exited).toBe(130);
    expect(cli.stderr).toContain('Interrupted.');
    // (A stdio era probe that ran out of time under load is cancelled too: only the call's cancellation counts here.)
    expect(tapped(record).filter((m) => m.method === 'notifications/cancelled' && m.params.requestId === call.id)).toHaveLength(1);
  });

  // fixtures/impatient-2025-server.ts: the SDK 1.x giving up on its sampling request, as server-everything does after 60 s.
  const impatient = { command: process.execPath, args: [compiledFixture('impatient-2025-server'), '--patience', '800'] };

  it('a question the server gave up on goes away with a line saying so, and is not answered', async () => {
    const record = newRecord();
    const slowModel = `"${process.execPath}" -e "setTimeout(() => console.log('too late'), 2500)"`;
    const run = await runCli(['call', 'ask_model', '--sampling-command', slowModel, ...serverWords(impatient, record)]);
    expect(run.stderr).toContain('impatient-2025 gave up on this question and no longer waits for the answer');
    // The server's own answer to its timeout: a tool error, exit 1.
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Tool error');
    // Nothing went back for the withdrawn request: no response reached the server.
    expect(tapped(record).filter((m) => m.method === undefined)).toEqual([]);
  });

  it('in a terminal, the question disappears and the line says the server gave up', async () => {
    const session = new TerminalSession(['call', 'ask_model', ...serverWords({ ...impatient, args: [...impatient.args.slice(0, -1), '2000'] })]);
    try {
      await session.waitFor('The answer');
      await session.waitFor('gave up on this question');
      expect(await session.exited).toBe(1);
      expect(session.transcript).toContain('impatient-2025 gave up on this question and no longer waits for the answer');
      expect(session.transcript).not.toMatch(/withdrawn|Interrupted/);
    } finally {
      session.stop();
    }
  });
});

describe('tessera and the errors of servers on the official SDK 1.x', () => {
  it('says the JSON-RPC error code once (the SDK already writes "MCP error <code>:" into its messages)', async () => {
    const run = await runCli(['read', http.url, 'demo://resource/nowhere']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The server answered with error -32602: Resource demo://resource/nowhere not found');
    expect(run.stderr).not.toContain('MCP error -32602');
  });
});
