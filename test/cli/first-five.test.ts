/**
 * What a new user meets in the command's first minutes (issue 24): messages
 * that say what happened (a wrong path, a web page, TLS to plain HTTP, a
 * server that is down), arguments checked against the tool's schema before
 * anything is sent, one answers file at both revisions, `--era` by date,
 * local failures kept local, FastMCP's refusal to ask at 2026-07-28, short
 * usage errors, help that offers only what a command takes, FastMCP's
 * `{ "result": … }` wrapper shown once, and a spawned server's stderr kept
 * out of the command's output.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reachFailure } from '../../src/client/reach-failure.js';
import { freePort } from '../../fixtures/ports.js';
import { compiledFixture, stopAll } from '../helpers/child-processes.js';
import { cliPath, KEY, runCli, startExampleServer, TerminalSession, type Background } from '../helpers/cli.js';
import { responseTo, startScriptedHttp, type Json, type ScriptedHttp } from '../helpers/scripted-http.js';

let example: { url: string; server: Background };
const dir = mkdtempSync(join(tmpdir(), 'tessera-first-five-'));
const servers: Server[] = [];
const scripted: ScriptedHttp[] = [];

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

/** A plain web server on 127.0.0.1 answering every request with `status`, `type` and `body`. */
async function webServer(status: number, type: string, body: string): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(status, { 'content-type': type }).end(body));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A scripted 2026-07-28 server with one tool answering `result`. */
async function oneToolServer(tool: Json, result: Json): Promise<ScriptedHttp> {
  const server = await startScriptedHttp((message) => {
    if (message.method === 'server/discover') return { result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1' } } };
    if (message.method === 'tools/list') return { result: { resultType: 'complete', tools: [tool] } };
    if (message.method === 'tools/call') return { result: { resultType: 'complete', ...result } };
    return { error: { code: -32601, message: 'Method not found' } };
  });
  scripted.push(server);
  return server;
}

beforeAll(async () => {
  example = await startExampleServer(['--trace']);
});

afterAll(async () => {
  example?.server.stop();
  stopAll();
  for (const server of servers) server.close();
  await Promise.all(scripted.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('what went wrong, in words', () => {
  it('a path where no MCP endpoint is: "not an MCP endpoint (HTTP 404, text/plain)", not a JSON parse error', async () => {
    const base = await webServer(404, 'text/plain', 'Not found');
    const run = await runCli(['list', `${base}/wrong`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${base}/wrong is not an MCP endpoint (HTTP 404, text/plain)`);
    expect(run.stderr).not.toMatch(/Unexpected token|is not valid JSON/);
  });

  it('a web site: "not an MCP endpoint (HTTP 501, text/html)"', async () => {
    const base = await webServer(501, 'text/html; charset=utf-8', '<!DOCTYPE html><html><body>Unsupported method</body></html>');
    const run = await runCli(['list', `${base}/`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not an MCP endpoint (HTTP 501, text/html)');
    expect(run.stderr).not.toContain('DOCTYPE');
  });

  it('https:// to a plain-HTTP server: says so, and that something answered', async () => {
    const https = example.url.replace('http://', 'https://');
    const run = await runCli(['list', https]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Could not reach ${https}: TLS to a plain-HTTP server`);
    expect(run.stderr).toContain('try http://');
    expect(run.stderr).not.toContain('is the server running');
  });

  it('a server that is down: the URL once and ECONNREFUSED once', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const run = await runCli(['list', url]);
    expect(run.code).toBe(1);
    expect(run.stderr.split(url)).toHaveLength(2);
    expect(run.stderr.split('ECONNREFUSED')).toHaveLength(2);
  });

  it('resolver and certificate failures are named as such', () => {
    const fetchError = (code: string, message = code): Error => new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
    expect(reachFailure('http://mcp.example.invalid/mcp', fetchError('ENOTFOUND', 'getaddrinfo ENOTFOUND mcp.example.invalid'))).toBe('no such host: mcp.example.invalid (ENOTFOUND)');
    expect(reachFailure('http://mcp.example.com/mcp', fetchError('EAI_AGAIN'))).toContain('could not be looked up right now');
    expect(reachFailure('https://mcp.example.com/mcp', fetchError('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe("the server's TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)");
  });
});

describe("arguments checked against the tool's input schema", () => {
  it('a name the tool does not have is refused before anything is sent (exit 2)', async () => {
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', 'color=red', '--trace']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('The tool "deploy" has no argument "color". Its arguments: service env');
    expect(run.stderr).not.toMatch(/→ .*"tools\/call"/);
  });

  it('missing required arguments without a terminal are named, with an example (exit 2)', async () => {
    for (const extra of [[], ['--no-input']]) {
      const run = await runCli(['call', example.url, 'deploy', ...extra, '--trace']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('The tool "deploy" needs "service" and "env": e.g. deploy');
      expect(run.stderr).not.toMatch(/→ .*"tools\/call"/);
    }
  });

  it('missing required arguments in a terminal are asked for, then the call goes on', async () => {
    const session = new TerminalSession(['call', example.url, 'deploy'], { env: { NO_COLOR: '1' } });
    try {
      await session.waitFor('deploy needs "service" and "env"');
      await session.waitFor('service');
      session.type(`api${KEY.enter}`);
      await session.waitFor('env');
      session.type(KEY.down + KEY.enter); // prod
      await session.waitFor('Deploy api to prod?');
      await session.waitFor('Cancel');
      session.type(KEY.enter);
      await session.waitFor('Approve the deployment');
      session.type(`y${KEY.enter}`);
      expect(await session.exited).toBe(0);
      expect(session.transcript).toContain('Deployed api to prod');
    } finally {
      session.stop();
    }
  });
});

describe('one answers file at both revisions', () => {
  const byKey = (): string => file('by-key.json', { confirm: { approve: true } });

  for (const era of ['2026-07-28', '2025-11-25', 'modern', 'legacy']) {
    it(`--era ${era}: the question is found by its key`, async () => {
      const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--era', era, '--answers', byKey()]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Deployed api to prod \(deployment api-prod-\d+\)\.$/m);
    });
  }

  it('an era that is not one names the choices, dates first', async () => {
    const run = await runCli(['call', example.url, 'deploy', '--era', '2024-11-05']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('2026-07-28');
    expect(run.stderr).toContain('2025-11-25');
  });

  it('at 2025-11-25, an answer that does not fit fails here; the server learns nothing of the file', async () => {
    const path = file('wrong.json', { confirm: { approve: 'maybe' } });
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--era', '2025-11-25', '--answers', path]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('does not fit the form');
    // What the example server received (its trace): an error for its elicitation/create, without the path or the reason.
    await example.server.waitFor(/→ .*"error":\{"code":-32603,"message":"The client could not answer this request"/);
    const received = example.server.stdout.split('\n').filter((line) => line.startsWith('→ '));
    expect(received.some((line) => line.includes(path) || line.includes('wrong.json') || line.includes('does not fit'))).toBe(false);
  });
});

describe('servers that cannot ask over 2026-07-28 (FastMCP 4)', () => {
  it('a tool error saying so suggests --era 2025-11-25', async () => {
    const server = await oneToolServer(
      { name: 'confirm', inputSchema: { type: 'object', properties: {} } },
      { content: [{ type: 'text', text: 'Error: elicitation via server-initiated requests is unavailable on 2026-07-28 connections' }], isError: true },
    );
    const run = await runCli(['call', server.url, 'confirm']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('try again with --era 2025-11-25');
  });

  it('any other tool error does not', async () => {
    const server = await oneToolServer({ name: 'fail', inputSchema: { type: 'object', properties: {} } }, { content: [{ type: 'text', text: 'Disk full' }], isError: true });
    const run = await runCli(['call', server.url, 'fail']);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('--era');
  });
});

describe('less noise', () => {
  it("a usage error shows that command's usage, not every command's", async () => {
    const run = await runCli(['call', example.url, 'deploy', '--no-such-option']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: tessera call <url> <tool>');
    expect(run.stderr).toContain('tessera help call');
    expect(run.stderr).not.toContain('tessera serve <module>');
    expect(run.stderr).not.toContain('tessera keygen');
  });

  it('call --help names one default for --root (none), not two', async () => {
    const run = await runCli(['call', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('none by default');
    expect(run.stdout).not.toContain('(default: [])');
  });

  it('list --help offers no question options (it asks nothing)', async () => {
    const run = await runCli(['list', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--era');
    for (const option of ['--answers', '--sampling-command', '--root', '--no-input']) expect(run.stdout).not.toContain(option);
  });

  it('a structured result that only wraps the text ({ "result": … }, as FastMCP sends) is shown once', async () => {
    const server = await oneToolServer({ name: 'answer', inputSchema: { type: 'object', properties: {} } }, { content: [{ type: 'text', text: '42' }], structuredContent: { result: 42 } });
    const run = await runCli(['call', server.url, 'answer']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('42\n');
  });

  it("a spawned server's stderr stays out of the output, and shows when the command fails", async () => {
    const serve = [process.execPath, cliPath(), 'serve', compiledFixture('cli-demo-server'), '--stdio'];
    const ok = await runCli(['call', 'echo_args', 'name=Ada', '--', ...serve]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    const failed = await runCli(['call', 'no_such_tool', '--', ...serve]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("The server's stderr");
    expect(failed.stderr).toContain('serving');
    // Over stdio the retry always comes back to the same process: no warning about a per-process key.
    expect(failed.stderr).not.toContain('no requestState key');
  });
});

describe('the example server, as npm start prints it', () => {
  it("warns about its per-process key once a state can reach another instance (HTTP), and names this folder in its hint", async () => {
    const run = await runCli(['call', example.url, 'deploy', 'service=api', 'env=prod', '--answers', file('yes.json', { confirm: { approve: true } })]);
    expect(run.code).toBe(0);
    await example.server.waitFor(/no requestState key is configured/);
    expect(example.server.stdout).toContain(`Try it from this folder (${process.cwd()})`);
  });
});
