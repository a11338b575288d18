/**
 * The first five minutes, walked as a new user walks them (issue 24): this
 * repository cloned into a temporary folder with nothing beside it; the
 * README's set-up command run exactly as written; every `npx tessera …`
 * command `npm start` prints then run, literally, in a pseudo-terminal from
 * the clone's folder, answering what it asks; `npm start -- --trace` too.
 * Then docs/getting-started.md in a new project beside the clone: its pack
 * step in the clone (so the tarballs are what a fresh clone packs), then
 * every marked step in order, the command included, installing nothing of
 * Tessera's from the registry.
 *
 * (The README's other set-up command, `npm test`, is what `.ci/run` runs on a
 * fresh checkout: running it here would run this test inside itself.)
 */

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../fixtures/ports.js';
import { ROOT, stopAll, stopGroup, trackGroup } from '../helpers/child-processes.js';
import { KEY, stripAnsi, TerminalSession } from '../helpers/cli.js';

/** A new user's shell: none of the npm_* variables `npm test` sets for this repository, no colours forced. */
const userEnv: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter((entry): entry is [string, string] => !entry[0].toLowerCase().startsWith('npm_') && entry[1] !== undefined && entry[0] !== 'FORCE_COLOR'),
);
const quietNpm = { ...userEnv, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

const parent = mkdtempSync(join(tmpdir(), 'tessera-fresh-'));
const clone = join(parent, 'tessera');
const project = join(parent, 'hello-mcp');

/** A long-running command line in its own process group, its output watched. */
class Started {
  output = '';
  readonly child: ChildProcess;

  constructor(commandLine: string, options: { cwd: string; env: Record<string, string> }) {
    this.child = spawn('bash', ['-c', commandLine], { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    trackGroup(this.child.pid);
    this.child.stdout!.setEncoding('utf8').on('data', (text: string) => (this.output += text));
    this.child.stderr!.setEncoding('utf8').on('data', (text: string) => (this.output += text));
  }

  /** The first match of `pattern` in what it printed; a guard against a hang, not a timing check. */
  async waitFor(pattern: RegExp, guardMs: number): Promise<RegExpMatchArray> {
    const deadline = Date.now() + guardMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match) return match;
      if (this.child.exitCode !== null) throw new Error(`exited (${this.child.exitCode}) before printing ${pattern}:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${pattern}:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  stop(): void {
    stopGroup(this.child.pid);
  }
}

/** The fenced block that follows `heading` in a markdown text. */
function blockAfter(markdown: string, heading: string, language: string): string {
  const from = markdown.indexOf(heading);
  expect(from, heading).toBeGreaterThanOrEqual(0);
  const match = new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'm').exec(markdown.slice(from));
  expect(match, `a ${language} block after ${heading}`).not.toBeNull();
  return match![1]!;
}

/** Runs a command printed by `npm start` in a terminal, from the clone, answering its questions. */
async function runPrinted(command: string, example: { url: string }): Promise<string> {
  const session = new TerminalSession([], { shell: command, cwd: clone, env: { ...userEnv, NO_COLOR: '1' } });
  try {
    const tool = /npx tessera (\S+) \S+ ?(\S*)/.exec(command)!;
    const [, verb, name] = tool;
    if (verb === 'call' && name === 'deploy') {
      await session.waitFor('Deploy api to prod? [confirm]');
      await session.waitFor('Cancel');
      session.type(KEY.enter);
      await session.waitFor('Approve the deployment');
      session.type(`y${KEY.enter}`);
    } else if (verb === 'call' && name === 'create_project') {
      await session.waitFor('Create repo demo, ci demo, dashboard demo?');
      await session.waitFor('Cancel');
      session.type(KEY.enter);
      await session.waitFor('approve');
      session.type(`y${KEY.enter}`);
    } else if (verb === 'call' && name === 'connect_calendar') {
      await session.waitFor('Domain: 127.0.0.1');
      await session.waitFor('Open this URL in your browser: ');
      await session.waitFor('Cancel');
      const page = /Open this URL in your browser: (\S+)/.exec(session.transcript)![1]!;
      expect(new URL(page).origin).toBe(new URL(example.url).origin);
      expect((await fetch(page)).status).toBe(200); // the person signs in
      session.type(KEY.enter);
    } else if (verb === 'call' && name === 'summarize') {
      await session.waitFor('Answer as the model (sampling)');
      await session.waitFor('The answer');
      session.type(`Servers ask before they act.${KEY.enter}`);
    }
    expect(await session.exited, `${command}\n${session.transcript}`).toBe(0);
    return session.transcript;
  } finally {
    session.stop();
  }
}

beforeAll(() => {
  execFileSync('git', ['clone', '--quiet', ROOT, clone], { env: userEnv });
  expect(readdirSync(parent)).toEqual(['tessera']); // nothing beside it
}, 120_000);

afterAll(() => {
  stopAll();
  rmSync(parent, { recursive: true, force: true }); // two node_modules trees and a clone's: more than the default hook time on a busy machine
}, 180_000);

describe('a fresh clone, as the README says', () => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  let url = '';
  let server: Started | undefined;

  it('its set-up command installs quietly on this Node and starts the example server, printing what the README shows', async () => {
    const setUp = blockAfter(readme, '## Set up', 'sh').split('\n')[0]!.replace(/#.*$/, '').trim();
    expect(setUp).toBe('npm ci && npm start');
    const port = await freePort();
    server = new Started(setUp, { cwd: clone, env: { ...quietNpm, PORT: String(port) } });
    [, url] = (await server.waitFor(/Tessera example server on (http:\/\/\S+\/mcp)/, 600_000)) as [string, string];
    await server.waitFor(/See the JSON-RPC messages: npm start -- --trace/, 10_000);
    // No EBADENGINE or other warning from the install on the Node the README names.
    expect(server.output).not.toMatch(/npm warn|EBADENGINE/i);
    // The README's transcript of what it prints, with this run's port and folder.
    const shown = blockAfter(readme, '## Set up', 'text').replaceAll('3000', String(port)).replaceAll('/path/to/tessera', clone);
    for (const line of shown.split('\n').filter((l) => l.trim() !== '')) expect(server.output).toContain(line);
    expect(existsSync(join(clone, 'node_modules', '.bin', 'tessera'))).toBe(true);
  }, 700_000);

  it('every npx tessera command it prints works, literally, from the clone', async () => {
    const commands = [...server!.output.matchAll(/^ {2}(npx tessera .*)$/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThanOrEqual(5);
    const transcripts = new Map<string, string>();
    for (const command of commands) transcripts.set(command, await runPrinted(command, { url }));
    const outcome = (tool: string): string => stripAnsi([...transcripts].find(([command]) => command.includes(` ${tool}`))?.[1] ?? '');
    expect(outcome('deploy')).toContain('Deployed api to prod (deployment api-prod-');
    expect(outcome('list')).toContain('create_project name=<string>');
    expect(outcome('create_project')).toContain('Created project demo: repo demo, ci demo, dashboard demo.');
    expect(outcome('connect_calendar')).toContain('Calendar connected.');
    expect(outcome('summarize')).toContain('Servers ask before they act.');
  }, 300_000);

  it('npm start -- --trace, as printed, shows the messages of a call', async () => {
    const port = await freePort();
    const traced = new Started('npm start -- --trace', { cwd: clone, env: { ...quietNpm, PORT: String(port) } });
    try {
      const [, tracedUrl] = (await traced.waitFor(/Tessera example server on (http:\/\/\S+\/mcp)/, 300_000)) as [string, string];
      const session = new TerminalSession([], { shell: `npx tessera list ${tracedUrl}`, cwd: clone, env: userEnv });
      expect(await session.exited).toBe(0);
      await traced.waitFor(/^→ \{.*"method":"tools\/list"/m, 10_000);
      await traced.waitFor(/^← \{.*"result":\{.*"tools":\[/m, 10_000);
    } finally {
      traced.stop();
    }
  }, 400_000);

  // The pack step below rebuilds the clone's dist/: the server started from it stops first.
  afterAll(() => server?.stop());
});

describe('docs/getting-started.md beside the fresh clone, from the tarballs it packs', () => {
  const guide = readFileSync(`${ROOT}docs/getting-started.md`, 'utf8');
  interface Step {
    kind: 'pack' | 'run' | 'start' | 'cli' | 'client' | 'file';
    name?: string;
    code: string;
    output?: string;
  }
  const steps: Step[] = [];
  const marked = /^<!-- guide: (pack|run|start|cli|client|file ([^\s]+)) -->\n```[a-z]*\n([\s\S]*?)^```$/gm;
  for (let match = marked.exec(guide); match; match = marked.exec(guide)) {
    const kind = match[1]!.split(' ')[0] as Step['kind'];
    const step: Step = { kind, code: match[3]!, ...(match[2] ? { name: match[2] } : {}) };
    if (kind === 'client') step.output = /^```text\n([\s\S]*?)^```$/m.exec(guide.slice(marked.lastIndex))?.[1];
    steps.push(step);
  }
  const tarballs: Record<string, string[]> = {};

  it('marks its steps: pack, installs, files, a server to start, the command, a client', () => {
    expect(steps.map((s) => (s.kind === 'file' ? `file ${s.name}` : s.kind))).toEqual(['pack', 'run', 'file tsconfig.json', 'file server.ts', 'run', 'start', 'cli', 'file client.ts', 'client']);
  });

  it('npm pack on the fresh clone packs the whole library and the command', () => {
    execFileSync('bash', ['-euo', 'pipefail', '-c', steps[0]!.code], { cwd: clone, env: quietNpm, stdio: 'ignore' });
    for (const name of ['tessera-mcp-0.1.0.tgz', 'tessera-mcp-cli-0.1.0.tgz']) {
      expect(existsSync(join(clone, name)), name).toBe(true);
      tarballs[name] = execFileSync('tar', ['-tzf', join(clone, name)], { encoding: 'utf8' }).split('\n').filter(Boolean);
    }
    const library = tarballs['tessera-mcp-0.1.0.tgz']!;
    for (const entry of ['index', 'client', 'protocol', 'node', 'fetch', 'stdio', 'express', 'fastify', 'hono', 'redis', 'testing', 'skills', 'skills-node']) {
      expect(library).toContain(`package/dist/src/${entry}.js`);
      expect(library).toContain(`package/dist/src/${entry}.d.ts`);
    }
    expect(library).toContain('package/LICENSE');
    expect(library.filter((f) => f.endsWith('.map') || f.includes('tsbuildinfo'))).toEqual([]);
    expect(library.length).toBeGreaterThan(100);
    const command = tarballs['tessera-mcp-cli-0.1.0.tgz']!;
    expect(command).toEqual(expect.arrayContaining(['package/bin/tessera.js', 'package/dist/main.js', 'package/package.json']));
    expect(command.filter((f) => f.includes('tsbuildinfo'))).toEqual([]);
  }, 300_000);

  it('works as written: the server asks through the command and through the client', async () => {
    mkdirSync(project);
    let url = '';
    let server: Started | undefined;
    try {
      for (const step of steps.slice(1)) {
        if (step.kind === 'file') {
          writeFileSync(join(project, step.name!), step.code);
        } else if (step.kind === 'run') {
          execFileSync('bash', ['-euo', 'pipefail', '-c', step.code], { cwd: project, env: quietNpm, stdio: ['ignore', 'pipe', 'pipe'] });
        } else if (step.kind === 'start') {
          // PORT=0: any free port (the guide's server reads PORT); the URL it prints is the one to call.
          server = new Started(step.code.split('\n')[0]!, { cwd: project, env: { ...userEnv, PORT: '0' } });
          [, url] = (await server.waitFor(/^hello-server on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m, 30_000)) as [string, string];
        } else if (step.kind === 'cli') {
          const session = new TerminalSession([], { shell: step.code.trim().replace('http://127.0.0.1:3000/mcp', url), cwd: project, env: { ...userEnv, NO_COLOR: '1' } });
          try {
            await session.waitFor('What is your name?');
            await session.waitFor('Cancel');
            session.type(KEY.enter);
            await session.waitFor('name');
            session.type(`Ada${KEY.enter}`);
            expect(await session.exited, session.transcript).toBe(0);
            // (npx may leave its spinner's glyph in the transcript; the result is a line of its own.)
            expect(session.transcript.split('\n').map((line) => line.replace(/^[\u2800-\u28ff]+/, '').trim())).toContain('Hi, Ada!');
          } finally {
            session.stop();
          }
        } else if (step.kind === 'client') {
          const script = step.code.replace(/node dist\/client\.js\s*$/m, `node dist/client.js ${url}`);
          const stdout = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: project, env: userEnv, encoding: 'utf8' });
          expect(stdout.trim()).toBe(step.output!.trim());
        }
      }
    } finally {
      server?.stop();
    }
    expect(url).not.toBe('');
    // Tessera came from the tarballs, not from the registry under its names.
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    expect(lock.packages['node_modules/tessera-mcp']?.resolved).toMatch(/^file:.*tessera-mcp-0\.1\.0\.tgz$/);
    expect(lock.packages['node_modules/tessera-mcp-cli']?.resolved).toMatch(/^file:.*tessera-mcp-cli-0\.1\.0\.tgz$/);
  }, 600_000);

  it("the library alone brings none of the command's dependencies and no framework (they are optional peers)", () => {
    const cli = JSON.parse(readFileSync(`${ROOT}cli/package.json`, 'utf8')) as { dependencies: Record<string, string> };
    const cliOnly = Object.keys(cli.dependencies).filter((name) => name !== 'tessera-mcp');
    expect(cliOnly).toEqual(expect.arrayContaining(['@inquirer/prompts', 'commander', 'cli-progress', 'picocolors']));
    // An app that installs the library alone (the guide's project also has the command, as a dev dependency).
    const app = join(parent, 'library-only');
    mkdirSync(app);
    execFileSync('bash', ['-euo', 'pipefail', '-c', 'npm init -y && npm install ../tessera/tessera-mcp-0.1.0.tgz zod'], { cwd: app, env: quietNpm, stdio: 'ignore' });
    expect(existsSync(join(app, 'node_modules', 'tessera-mcp', 'package.json'))).toBe(true);
    expect([...cliOnly, 'express', 'fastify', 'hono'].filter((name) => existsSync(join(app, 'node_modules', name)))).toEqual([]);
  }, 120_000);
});
