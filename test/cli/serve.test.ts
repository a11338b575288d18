/**
 * `tessera serve` (HTTP and stdio, both module shapes, state keys), the
 * `list`, `read` and `prompt` commands, typed key=value arguments end to end,
 * `keygen`, and the errors a person meets: unknown commands, a server that is
 * not there, a tool that reports an error. Every child is stopped by PID.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../../fixtures/ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRing, generateStateKey } from 'tessera-mcp';
import { Client } from 'tessera-mcp/client';
import { compiledFixture, ROOT, stopAll } from '../helpers/child-processes.js';
import { Background, cliPath, runCli, startServe } from '../helpers/cli.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tessera-serve-')));
const INDEX = pathToFileURL(`${ROOT}dist/src/index.js`).href;
let demo: { url: string; server: Background };
let demoModule: string;

/** A server object made at import time (not a factory), which also logs to the console. */
const instanceModule = join(dir, 'instance-server.mjs');
writeFileSync(
  instanceModule,
  `import { McpServer, ask } from ${JSON.stringify(INDEX)};
console.log('instance module loaded');
export const server = new McpServer({ name: 'instance', version: '0.0.1' });
server.tool('hello', {}, async (_args, ctx) => {
  console.info('hello was called');
  const answer = await ctx.ask(ask.form('Proceed?', { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }, { key: 'proceed' }));
  return answer.action === 'accept' ? 'Hello!' : 'Bye.';
});
`,
);

/** The state key id inside a sealed requestState (t2.<key id>.…). */
async function sealingKeyId(url: string): Promise<string | undefined> {
  const client = new Client({ name: 'key-probe', version: '0' }, { elicitation: { form: async () => ({ action: 'cancel' }) } });
  await client.connect(url);
  try {
    const tools = await client.listAllTools();
    const tool = tools.find((t) => t.name === 'survey' || t.name === 'hello')!.name;
    const step = await client.begin('tools/call', { name: tool, arguments: {} });
    if (step.status !== 'input_required') return undefined;
    return step.pending.requestState?.split('.')[1];
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  demoModule = compiledFixture('cli-demo-server');
  demo = await startServe([demoModule, '--keys', generateStateKey('kflag')]);
});

afterAll(() => {
  demo?.server.stop();
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('tessera serve over HTTP', () => {
  it('says how to connect, with the exact tessera call to try', async () => {
    // startServe returns at the URL line; the hints are separate writes that may arrive later.
    await demo.server.waitFor(/List: {5}npx tessera list/);
    expect(demo.server.stderr).toContain(`tessera: serving "cli-demo" 1.2.3 on ${demo.url}`);
    expect(demo.server.stderr).toContain(`Try it:   npx tessera call ${demo.url} echo_args`);
    expect(demo.server.stderr).toContain(`List:     npx tessera list ${demo.url}`);
    expect(demo.server.stdout).toBe('');
  });

  it('hands --keys to a factory export: states are sealed with that key, and no made-up key is announced', async () => {
    expect(await sealingKeyId(demo.url)).toBe('kflag');
    expect(demo.server.stderr).not.toContain('no requestState key is configured');
  });

  it('serves a server object made at import time, with keys from TESSERA_STATE_KEYS', async () => {
    const served = await startServe([instanceModule], { TESSERA_STATE_KEYS: `${generateStateKey('kenv')},${generateStateKey('kold')}` });
    try {
      expect(served.server.stderr).toContain('serving "instance" 0.0.1');
      expect(await sealingKeyId(served.url)).toBe('kenv');
    } finally {
      served.server.stop();
    }
  });

  it('--keys wins over the environment, for a server made at import time too', async () => {
    const served = await startServe([instanceModule, '--keys', generateStateKey('kcli')], { TESSERA_STATE_KEYS: generateStateKey('kenv') });
    try {
      expect(await sealingKeyId(served.url)).toBe('kcli');
    } finally {
      served.server.stop();
    }
  });

  it('--log writes one line per request on stderr; --log wire adds what crossed the wire (issue 14)', async () => {
    const served = await startServe([instanceModule, '--log', '--keys', generateStateKey('klog')]);
    try {
      await sealingKeyId(served.url);
      await served.server.waitFor(/tools\/call hello {2}input_required {2}[\d.]+ ms {2}flow [\w-]{12} round 1 {2}state \d+ B/);
      expect(served.server.stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}tools\/call hello/m);
    } finally {
      served.server.stop();
    }
    const wire = await startServe([instanceModule, '--log', 'wire']);
    try {
      await sealingKeyId(wire.url);
      const [json] = await wire.server.waitFor(/\{"time".*"method":"tools\/call".*\}/);
      expect(JSON.parse(json!)).toMatchObject({ method: 'tools/call', name: 'hello', status: 'input_required', round: 1, arguments: {}, result: { resultType: 'input_required' } });
    } finally {
      wire.server.stop();
    }
    const wrong = await runCli(['serve', instanceModule, '--log', 'xml']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--log takes text, json, wire, not "xml"');
  });

  it('refuses keys that are not keys (exit 2)', async () => {
    const run = await runCli(['serve', demoModule, '--keys', 'not-a-key']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--keys: A state key must look like');
  });

  it('explains a module that cannot be loaded, or exports no server (exit 1)', async () => {
    const missing = await runCli(['serve', join(dir, 'nope.mjs')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Could not load');
    const empty = join(dir, 'empty.mjs');
    writeFileSync(empty, 'export const answer = 42;\n');
    const none = await runCli(['serve', empty]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('exports no server: export it as the default export or as "server"');
  });
});

describe('tessera serve --stdio', () => {
  it('writes nothing but MCP messages on stdout, even when the module logs', async () => {
    const child = new Background(spawn(process.execPath, [cliPath(), 'serve', instanceModule, '--stdio'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] }));
    try {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      };
      child.proc.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } })}\n`);
      child.proc.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: meta, name: 'hello', arguments: {} } })}\n`);
      await child.waitFor(/"id":2/);
      await child.waitFor(/hello was called/);
      child.proc.stdin!.end();
      expect(await child.exited).toBe(0);
      const lines = child.stdout.split('\n').filter((line) => line !== '');
      expect(lines).toHaveLength(2);
      const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: Record<string, unknown> });
      expect(messages.map((m) => [m.jsonrpc, m.id])).toEqual([
        ['2.0', 1],
        ['2.0', 2],
      ]);
      expect(messages[1]!.result.resultType).toBe('input_required');
      expect(child.stderr).toContain('instance module loaded');
      expect(child.stderr).toContain('serving "instance" 0.0.1 over stdio');
    } finally {
      child.stop();
    }
  });

  it('is a target for tessera call (spawned after "--"), with typed key=value arguments', async () => {
    const run = await runCli([
      'call',
      'echo_args',
      'name=007',
      'count=3',
      'ratio=0.25',
      'verbose=yes',
      'tags=["a","b"]',
      'meta:={"deep":{"x":null}}',
      'level=3',
      '--json',
      '--',
      process.execPath,
      cliPath(),
      'serve',
      demoModule,
      '--stdio',
    ]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { structuredContent: unknown };
    expect(result.structuredContent).toEqual({ name: '007', count: 3, ratio: 0.25, verbose: true, tags: ['a', 'b'], meta: { deep: { x: null } }, level: 3 });
  });
});

describe('list, read, prompt', () => {
  it('lists tools with their arguments, resources, templates and prompts', async () => {
    const run = await runCli(['list', demo.url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Tools\n  echo_args [name=<string>] [count=<integer>]');
    expect(run.stdout).toContain('  count_up steps=<integer>\n      Counts, with progress.');
    expect(run.stdout).toContain('Resources\n  memo://greeting (greeting)\n      A friendly line.');
    expect(run.stdout).toContain('Resource templates\n  memo://notes/{id} (note)');
    expect(run.stdout).toContain('Prompts\n  greet name=<string>\n      Greets someone.');
  });

  it('lists as JSON', async () => {
    const run = await runCli(['list', demo.url, '--json']);
    const listing = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; prompts: Array<{ name: string }> };
    expect(listing.tools.map((t) => t.name)).toEqual(['echo_args', 'survey', 'count_up', 'fail', 'where']);
    expect(listing.prompts.map((p) => p.name)).toEqual(['greet']);
  });

  it('reads a resource as text, or as JSON', async () => {
    expect(await runCli(['read', demo.url, 'memo://greeting'])).toMatchObject({ code: 0, stdout: 'Hello from the demo server.\n' });
    const run = await runCli(['read', demo.url, 'memo://notes/7', '--json']);
    expect((JSON.parse(run.stdout) as { contents: unknown[] }).contents).toEqual([{ uri: 'memo://notes/7', text: 'Note 7.' }]);
  });

  it('gets a prompt, answering the question it asks first', async () => {
    const answers = join(dir, 'tone.json');
    writeFileSync(answers, JSON.stringify({ tone: { tone: 'warm' } }));
    const run = await runCli(['prompt', demo.url, 'greet', 'name=Ada', '--answers', answers]);
    expect(run).toMatchObject({ code: 0, stdout: 'user: Say hello to Ada, in a warm tone.\n' });
  });

  it('offers no root unless asked (not the working directory), and each --root', async () => {
    const plain = await runCli(['call', demo.url, 'where'], { cwd: dir });
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toContain('error -32021');
    expect(plain.stderr).toContain('The server needs roots (directories you grant it): pass --root <dir>.');
    expect(plain.stderr).not.toContain(pathToFileURL(dir).href);
    const given = await runCli(['call', demo.url, 'where', '--root', '/srv/app', '--root', 'file:///srv/repo']);
    expect(given.stdout).toBe('file:///srv/app\nfile:///srv/repo\n');
    // Roots are file:// URIs: anything else is refused before connecting.
    const web = await runCli(['call', demo.url, 'where', '--root', 'https://example.com/repo']);
    expect(web.code).toBe(2);
    expect(web.stderr).toContain('a root is a directory path or a file:// URI');
  });

  it('prints only the result when stderr is no terminal (no progress bar)', async () => {
    const run = await runCli(['call', demo.url, 'count_up', 'steps=3']);
    expect(run).toMatchObject({ code: 0, stdout: 'Counted to 3.\n', stderr: '' });
  });
});

describe('keygen', () => {
  it('prints a key the key ring reads', async () => {
    const run = await runCli(['keygen']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^k[0-9a-f]{6}:[A-Za-z0-9_-]{43}\n$/);
    expect(KeyRing.parse(run.stdout.trim()).keys).toHaveLength(1);
  });

  it('takes an id, and refuses a bad one (exit 2)', async () => {
    expect((await runCli(['keygen', 'prod-2026'])).stdout).toMatch(/^prod-2026:/);
    const bad = await runCli(['keygen', 'no spaces']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Key ids hold letters');
  });
});

describe('errors', () => {
  it('an unknown command: exit 2, with the usage', async () => {
    const run = await runCli(['deploy']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("error: unknown command 'deploy'");
    expect(run.stderr).toContain('Usage:\n  tessera serve <module>');
    expect(run.stderr).toContain('tessera call <url> <tool> [key=value…]');
    expect(run.stdout).toBe('');
  });

  it('an unknown option: exit 2', async () => {
    const run = await runCli(['call', demo.url, 'fail', '--colour']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option '--colour'");
  });

  it('help: exit 0, with the call syntax, the answers file format and the exit codes', async () => {
    for (const args of [['help'], [], ['--help']]) {
      const run = await runCli(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('tessera call http://127.0.0.1:3000/mcp deploy service=api env=prod');
      expect(run.stdout).toContain('tessera call deploy service=api env=prod -- node server.js');
      expect(run.stdout).toContain('{ "confirm": { "action": "accept", "content": { "approve": true } },');
      expect(run.stdout).toContain('Exit codes:');
    }
    const call = await runCli(['help', 'call']);
    expect(call.stdout).toContain('Usage: tessera call <url> <tool> [key=value…] [options]');
    expect(call.stdout).toContain('--sampling-command <cmd>');
  });

  it('a target that is not a URL, and no "--": exit 2, saying how to give one', async () => {
    const run = await runCli(['call', 'deploy', 'service=api']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"deploy" is not a URL');
    expect(run.stderr).toContain('-- node server.js');
  });

  it('a server that is not there: exit 1, with a clear message', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const run = await runCli(['call', url, 'deploy']);
    expect(run.code).toBe(1);
    // Once, what happened and what to check: not the URL twice, not fetch's "fetch failed".
    expect(run.stderr).toContain(`tessera: Could not reach ${url}: nothing is listening on ${new URL(url).host} (ECONNREFUSED): is the server running`);
    expect(run.stderr.split(url)).toHaveLength(2);
    expect(run.stderr).not.toContain('fetch failed');
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('a server command that cannot start: exit 1', async () => {
    const run = await runCli(['list', '--', join(dir, 'no-such-server')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Could not connect to');
  });

  it('a tool the server does not have: exit 1, listing the ones it has', async () => {
    const run = await runCli(['call', demo.url, 'deploy']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The server has no tool "deploy". Its tools: echo_args, survey, count_up, fail, where');
  });

  it('a value the tool schema does not allow: exit 2', async () => {
    const run = await runCli(['call', demo.url, 'count_up', 'steps=many']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("steps=many: the tool's schema wants integer");
  });

  it('a tool that reports an error: marked, exit 1 (also with --json)', async () => {
    const run = await runCli(['call', demo.url, 'fail']);
    expect(run).toMatchObject({ code: 1, stdout: 'Tool error (isError):\nSomething went wrong on purpose.\n' });
    const json = await runCli(['call', demo.url, 'fail', '--json']);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as { isError: boolean }).isError).toBe(true);
  });

  it('a JSON-RPC error from the server: exit 1 with its code and message', async () => {
    const run = await runCli(['read', demo.url, 'memo://nothing-here']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/The server answered with error -?\d+: /);
  });
});
