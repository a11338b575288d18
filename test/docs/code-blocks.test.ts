/**
 * Every TypeScript code block in the README and docs/ compiles against the
 * project as it is, so the docs cannot drift from the API: each block is
 * written out as a module and the lot is type-checked with the project's
 * compiler settings (`tessera-mcp` resolves to src/).
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = `${root}test/docs/.generated`;

interface Block {
  source: string;
  line: number;
  code: string;
}

function blocksOf(file: string): Block[] {
  const text = readFileSync(`${root}${file}`, 'utf8');
  const blocks: Block[] = [];
  const fence = /^```(ts|typescript)\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    blocks.push({ source: file, line: text.slice(0, match.index).split('\n').length, code: match[2]! });
  }
  return blocks;
}

const files = ['README.md', ...readdirSync(`${root}docs`).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const blocks = files.flatMap(blocksOf);

describe('code blocks in the docs', () => {
  it('finds TypeScript blocks in the README and every guide that shows code', () => {
    expect(blocks.filter((b) => b.source === 'README.md').length).toBeGreaterThan(0);
    for (const guide of ['docs/mrtr.md', 'docs/client.md', 'docs/getting-started.md', 'docs/migrating.md', 'docs/deploying.md', 'docs/resources-and-prompts.md', 'docs/logging.md', 'docs/skills.md', 'docs/apps.md']) {
      expect(blocks.some((b) => b.source === guide), guide).toBe(true);
    }
  });

  it('compiles every block (as its own module) with the project settings', () => {
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const names = new Map<string, Block>();
    blocks.forEach((block, i) => {
      const name = `${block.source.replace(/[^A-Za-z0-9]+/g, '-')}-${i}.ts`;
      names.set(name, block);
      // `export {}` keeps a block without imports a module (top-level await, no global clashes).
      writeFileSync(`${out}/${name}`, `${block.code}\nexport {};\n`);
    });
    writeFileSync(
      `${out}/tsconfig.json`,
      JSON.stringify({ extends: '../../../tsconfig.json', compilerOptions: { noEmit: true, rootDir: '../../..' }, include: ['*.ts', '../../../src/types/*.d.ts'] }),
    );
    let report = '';
    try {
      execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${out}/tsconfig.json`], { encoding: 'utf8' });
    } catch (error) {
      report = String((error as { stdout?: string }).stdout ?? error);
    }
    // Point each compiler error at the doc and line it came from.
    const readable = report.replace(/test\/docs\/\.generated\/([^(]+)\((\d+),(\d+)\)/g, (_all, name: string, line: string) => {
      const block = names.get(name);
      return block ? `${block.source}:${block.line + Number(line)}` : name;
    });
    expect(readable).toBe('');
  }, 120_000);
});
