/**
 * Every relative link in the README and docs/ points at a file that exists
 * (and every #anchor into a markdown file at one of its headings), so a
 * reader following the docs never lands on a 404.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), 'bench/README.md'];

/** GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped, spaces as '-'. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.*)$/gm)].map((m) => anchorOf(m[1]!)));
}

describe('links in the docs', () => {
  it('every relative link resolves to a file, and every anchor to a heading', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(root, page), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? join(root, page) : normalize(join(root, dirname(page), path));
        if (!existsSync(file)) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor && file.endsWith('.md') && !anchorsIn(file).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README's deploy tool is examples/deploy.ts's, whose run the wire trace below it shows", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = readFileSync(join(root, 'examples/deploy.ts'), 'utf8');
    const squash = (code: string): string => code.replace(/\s+/g, '');
    const askIn = (code: string): string => /ctx\.ask\(([\s\S]*?)\);\n/.exec(code)![1]!;
    expect(squash(askIn(readme))).toBe(squash(askIn(example)));
    expect(readme).toContain('"description":"Approve the deployment"');
  });
});
