/**
 * docs/getting-started.md, run as a new user runs it (issue 17): the library
 * packed as it would be published, a new folder, then every marked step of
 * the guide in order — `<!-- guide: run -->` blocks run in bash, `<!-- guide:
 * file NAME -->` blocks written as NAME, `<!-- guide: start -->` started and
 * waited for, `<!-- guide: client -->` run against it, its output compared
 * with the guide's. The one change: `npm install tessera-mcp` installs the
 * packed tarball (the rest comes from the registry, as for a user). Then what
 * the user got: none of the CLI's dependencies, no framework peer installed,
 * and a tarball with LICENSE and no source maps.
 */

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledFile, ROOT, stopAll, trackPid } from '../helpers/child-processes.js';

interface Step {
  kind: 'run' | 'start' | 'client' | 'file';
  name?: string;
  code: string;
  /** For `client`: the text block that follows it (the output the guide shows). */
  output?: string;
}

/** The marked steps of the guide, in order. */
function stepsOf(markdown: string): Step[] {
  const steps: Step[] = [];
  const marked = /^<!-- guide: (run|start|client|file ([^\s]+)) -->\n```[a-z]*\n([\s\S]*?)^```$/gm;
  for (let match = marked.exec(markdown); match; match = marked.exec(markdown)) {
    const kind = match[1]!.split(' ')[0] as Step['kind'];
    const step: Step = { kind, code: match[3]!, ...(match[2] ? { name: match[2] } : {}) };
    if (kind === 'client') step.output = /^```text\n([\s\S]*?)^```$/m.exec(markdown.slice(marked.lastIndex))?.[1];
    steps.push(step);
  }
  return steps;
}

/** The environment of a new user's shell: none of the npm_* variables `npm test` sets for this repository. */
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
const quietNpm = { ...userEnv, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

const parent = mkdtempSync(join(tmpdir(), 'tessera-getting-started-'));
const project = join(parent, 'hello-mcp');
let tarball = '';
let packed: { path: string }[] = [];

beforeAll(() => {
  compiledFile('src/index.js', [`${ROOT}src/index.ts`]);
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', parent], { cwd: ROOT, env: quietNpm, encoding: 'utf8' });
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  tarball = join(parent, info!.filename);
  packed = info!.files;
}, 120_000);

afterAll(() => {
  stopAll();
  rmSync(parent, { recursive: true, force: true });
});

describe('docs/getting-started.md in a new project', () => {
  const guide = readFileSync(`${ROOT}docs/getting-started.md`, 'utf8');
  const steps = stepsOf(guide);

  it('marks its steps: installs, files, a server to start and a client to run', () => {
    expect(steps.map((s) => (s.kind === 'file' ? `file ${s.name}` : s.kind))).toEqual(['run', 'file tsconfig.json', 'file server.ts', 'run', 'start', 'file client.ts', 'client']);
    expect(steps[0]!.code).toContain('npm install tessera-mcp ');
  });

  it('works as written: the server answers tools/call, asking through the client', async () => {
    mkdirSync(project);
    let url = '';
    for (const step of steps) {
      if (step.kind === 'file') {
        writeFileSync(join(project, step.name!), step.code);
      } else if (step.kind === 'run') {
        const script = step.code.replace(/^npm install tessera-mcp /m, `npm install ${tarball} `);
        execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: project, env: quietNpm, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } else if (step.kind === 'start') {
        const [command, ...args] = step.code.split('\n')[0]!.trim().split(/\s+/);
        expect(command).toBe('node');
        // PORT=0: any free port (the guide's server reads PORT); the URL it prints is the one to call.
        const child = spawn(process.execPath, args, { cwd: project, env: { ...userEnv, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
        trackPid(child.pid);
        url = await new Promise<string>((resolve, reject) => {
          let output = '';
          const seen = (text: string): void => {
            output += text;
            const match = /^hello-server on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(output);
            if (match) resolve(match[1]!);
          };
          child.stdout!.setEncoding('utf8').on('data', seen);
          child.stderr!.setEncoding('utf8').on('data', seen);
          child.once('exit', (code) => reject(new Error(`the guide's server exited (${code}) before listening: ${output}`)));
        });
      } else {
        const script = step.code.replace(/node dist\/client\.js\s*$/m, `node dist/client.js ${url}`);
        const stdout = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: project, env: userEnv, encoding: 'utf8' });
        expect(stdout.trim()).toBe(step.output!.trim());
      }
    }
    expect(url).not.toBe('');
    expect(existsSync(join(project, 'dist', 'server.js'))).toBe(true);
  }, 300_000);

  it("installed none of the CLI's dependencies and no framework (they are optional peers)", () => {
    const cli = JSON.parse(readFileSync(`${ROOT}cli/package.json`, 'utf8')) as { dependencies: Record<string, string> };
    const cliOnly = Object.keys(cli.dependencies).filter((name) => name !== 'tessera-mcp');
    expect(cliOnly).toEqual(expect.arrayContaining(['@inquirer/prompts', 'commander', 'cli-progress', 'picocolors']));
    expect(existsSync(join(project, 'node_modules', 'tessera-mcp', 'package.json'))).toBe(true);
    const present = [...cliOnly, 'express', 'fastify', 'hono'].filter((name) => existsSync(join(project, 'node_modules', name)));
    expect(present).toEqual([]);
  });

  it('packs LICENSE, every entry, and no source maps', () => {
    const files = packed.map((f) => f.path);
    expect(files).toContain('LICENSE');
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    for (const entry of ['index', 'client', 'node', 'fetch', 'stdio', 'express', 'fastify', 'hono', 'redis', 'testing', 'skills', 'skills-node']) expect(files).toContain(`dist/src/${entry}.js`);
  });
});
