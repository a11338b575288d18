/**
 * Skills from a directory on disk: every directory with a SKILL.md is a
 * skill, at its path from the root. Attacks from a planted file: a symbolic
 * link that leads out of the skills root (to a secret elsewhere) is refused
 * by name and the secret never read; a FIFO is never opened (it would block);
 * a link loop ends; sizes are refused from the listing before reading.
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillSourceError } from '../../src/skills.js';
import { loadSkillDirectory } from '../../src/skills-node.js';

const skillMd = (name: string): string => `---\nname: ${name}\ndescription: The ${name} skill\n---\n\nBody.\n`;

let base: string;
let root: string;
let outside: string;

function write(path: string, content: string | Uint8Array): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'tessera-skills-'));
  root = join(base, 'skills');
  outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  write(join(outside, 'secret.txt'), 'TOP SECRET');
  write(join(root, 'deploy', 'SKILL.md'), skillMd('deploy'));
  write(join(root, 'deploy', 'scripts', 'run.sh'), '#!/bin/sh\necho deploy\n');
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const uris = (library: Awaited<ReturnType<typeof loadSkillDirectory>>): string[] => [...library.files.keys()].sort();

describe('loading a skills directory', () => {
  it('publishes each directory holding a SKILL.md at its path from the root, with every file under it', async () => {
    write(join(root, 'acme', 'billing', 'refunds', 'SKILL.md'), skillMd('refunds'));
    write(join(root, 'acme', 'billing', 'refunds', 'examples', 'email.md'), 'Dear customer');
    write(join(root, 'acme', 'README.md'), 'not part of any skill');
    const library = await loadSkillDirectory(pathToFileURL(root));
    expect(library.skills.map((s) => s.uri)).toEqual(['skill://acme/billing/refunds/SKILL.md', 'skill://deploy/SKILL.md']);
    expect(uris(library)).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
      'skill://acme/billing/refunds/examples/email.md',
      'skill://deploy/SKILL.md',
      'skill://deploy/scripts/run.sh',
    ]);
  });

  it('leaves out names starting with "." (a .git directory, editor files)', async () => {
    write(join(root, 'deploy', '.git', 'config'), '[core]');
    write(join(root, 'deploy', '.DS_Store'), 'x');
    expect(uris(await loadSkillDirectory(root))).toEqual(['skill://deploy/SKILL.md', 'skill://deploy/scripts/run.sh']);
  });

  it('follows a symbolic link that stays inside the root', async () => {
    write(join(root, 'shared', 'notes.md'), 'shared notes');
    symlinkSync(join(root, 'shared', 'notes.md'), join(root, 'deploy', 'notes.md'));
    const library = await loadSkillDirectory(root);
    expect(new TextDecoder().decode(library.files.get('skill://deploy/notes.md')!.bytes)).toBe('shared notes');
  });

  it('refuses a planted symbolic link to a file outside the root, naming it; the secret is never served', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'deploy', 'scripts', 'config.txt'));
    const loading = loadSkillDirectory(root);
    await expect(loading).rejects.toThrow(SkillSourceError);
    await expect(loading).rejects.toThrow(/deploy\/scripts\/config\.txt is a symbolic link to .*outside\/secret\.txt, outside the skills root/);
  });

  it('refuses a planted link to a directory outside the root, and a relative link that climbs out', async () => {
    symlinkSync(outside, join(root, 'deploy', 'more'));
    await expect(loadSkillDirectory(root)).rejects.toThrow(/deploy\/more is a symbolic link to .*outside, outside the skills root/);
    rmSync(join(root, 'deploy', 'more'));
    symlinkSync('../../outside/secret.txt', join(root, 'deploy', 'up.txt'));
    await expect(loadSkillDirectory(root)).rejects.toThrow(/deploy\/up\.txt is a symbolic link to .*outside\/secret\.txt/);
  });

  it('refuses a link that leads nowhere, and ends a link loop', async () => {
    symlinkSync(join(root, 'missing'), join(root, 'deploy', 'dangling'));
    await expect(loadSkillDirectory(root)).rejects.toThrow(/deploy\/dangling is a symbolic link that leads nowhere/);
    rmSync(join(root, 'deploy', 'dangling'));
    symlinkSync(join(root, 'deploy'), join(root, 'deploy', 'scripts', 'again'));
    await expect(loadSkillDirectory(root)).rejects.toThrow(/symbolic link loop/);
  });

  it('never opens a FIFO planted among the files (reading it would block)', async () => {
    execFileSync('mkfifo', [join(root, 'deploy', 'pipe')]);
    const library = await loadSkillDirectory(root);
    expect(uris(library)).toEqual(['skill://deploy/SKILL.md', 'skill://deploy/scripts/run.sh']);
  });

  it('refuses a skill past 16 MiB from the listing, before reading it (a sparse 1 GiB file)', async () => {
    writeFileSync(join(root, 'deploy', 'huge.bin'), '');
    truncateSync(join(root, 'deploy', 'huge.bin'), 1024 ** 3);
    await expect(loadSkillDirectory(root)).rejects.toThrow(/Skill deploy holds 1073741\d+ bytes; hosts need accept no more than 16777216/);
  });

  it('refuses a root that is not a directory, one that is itself a skill, and nesting past the bound', async () => {
    await expect(loadSkillDirectory(join(base, 'nowhere'))).rejects.toThrow(/is not a readable directory/);
    write(join(outside, 'SKILL.md'), skillMd('outside'));
    await expect(loadSkillDirectory(outside)).rejects.toThrow(/itself holds a SKILL\.md/);
    write(join(root, 'deploy', 'a', 'b', 'c', 'd.md'), 'deep');
    await expect(loadSkillDirectory(root, { maxDepth: 2 })).rejects.toThrow(/deploy\/a\/b is nested deeper than 2 directories/);
  });

  it('takes a broken SKILL.md as an error naming the skill', async () => {
    write(join(root, 'broken', 'SKILL.md'), '# no frontmatter\n');
    await expect(loadSkillDirectory(root)).rejects.toThrow(/Skill broken: SKILL\.md does not begin with a YAML frontmatter block/);
  });
});
