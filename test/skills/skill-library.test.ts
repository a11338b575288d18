/**
 * Publishing skills from memory (SEP-2640 "Skill Entries", "Resource
 * Mapping", "Limits"): each file's digest is the SHA-256 of its raw bytes
 * and its size their length; `resources` is complete (SKILL.md included,
 * a nested skill's files in its enclosing skill too); the last segment of
 * the skill path is the skill's name, which keeps the Agent Skills naming
 * rules; a skill past 512 files or 16 MiB is not served.
 */

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { skillLibrary, SkillSourceError } from '../../src/skills.js';

const skillMd = (name: string, description = `The ${name} skill`, extra = ''): string => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\nDo the ${name} thing.\n`;
const sha256 = (bytes: Uint8Array | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('a skill library from memory', () => {
  it('publishes each file with the SHA-256 and length of its raw bytes, SKILL.md first and listed as the skill itself', async () => {
    const binary = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]);
    const text = 'Zürich — naïve ✓\n';
    const library = await skillLibrary([{ files: { 'SKILL.md': skillMd('pdf-tools'), 'references/GUIDE.md': text, 'assets/logo.png': binary } }]);
    const [skill] = library.skills;
    expect(skill!.uri).toBe('skill://pdf-tools/SKILL.md');
    expect(skill!.frontmatter).toEqual({ name: 'pdf-tools', description: 'The pdf-tools skill' });
    expect(skill!.resources).toEqual([
      { uri: 'skill://pdf-tools/SKILL.md', digest: sha256(skillMd('pdf-tools')), size: Buffer.byteLength(skillMd('pdf-tools')) },
      { uri: 'skill://pdf-tools/assets/logo.png', digest: sha256(binary), size: 6 },
      { uri: 'skill://pdf-tools/references/GUIDE.md', digest: sha256(text), size: Buffer.byteLength(text) },
    ]);
    expect(library.files.get('skill://pdf-tools/SKILL.md')!.resource).toMatchObject({ name: 'pdf-tools', description: 'The pdf-tools skill', mimeType: 'text/markdown' });
    // Binary goes out as bytes, UTF-8 text as text that encodes back to the same bytes.
    expect(library.files.get('skill://pdf-tools/assets/logo.png')).toMatchObject({ text: undefined, resource: { mimeType: 'image/png', size: 6 } });
    expect(library.files.get('skill://pdf-tools/references/GUIDE.md')!.text).toBe(text);
  });

  it('keeps a byte-order mark in text, so the text served still has the digest of the file', async () => {
    const withBom = '\uFEFFnotes\n';
    const library = await skillLibrary([{ files: { 'SKILL.md': skillMd('bom'), 'notes.txt': withBom } }]);
    const file = library.files.get('skill://bom/notes.txt')!;
    expect(file.text).toBe(withBom);
    expect(sha256(new TextEncoder().encode(file.text!))).toBe(file.digest);
  });

  it('places a skill under its path (a prefix, then its name) and percent-encodes what a URI cannot hold', async () => {
    const library = await skillLibrary([{ path: 'acme/billing/refunds', files: { 'SKILL.md': skillMd('refunds'), 'examples/first email.md': 'Hi' } }]);
    expect(library.skills[0]!.uri).toBe('skill://acme/billing/refunds/SKILL.md');
    expect(library.skills[0]!.resources).toContainEqual(expect.objectContaining({ uri: 'skill://acme/billing/refunds/examples/first%20email.md' }));
  });

  it("lists a nested skill's files in its enclosing skill too, and the nested skill on its own", async () => {
    const library = await skillLibrary([
      { path: 'outer', files: { 'SKILL.md': skillMd('outer'), 'guide.md': 'outer guide' } },
      { path: 'outer/parts/inner', files: { 'SKILL.md': skillMd('inner'), 'inner.md': 'inner notes' } },
    ]);
    const [outer, inner] = library.skills;
    expect((outer!.resources as { uri: string }[]).map((r) => r.uri)).toEqual([
      'skill://outer/SKILL.md',
      'skill://outer/guide.md',
      'skill://outer/parts/inner/SKILL.md',
      'skill://outer/parts/inner/inner.md',
    ]);
    expect((inner!.resources as { uri: string }[]).map((r) => r.uri)).toEqual(['skill://outer/parts/inner/SKILL.md', 'skill://outer/parts/inner/inner.md']);
  });

  it('serves another URI scheme when asked', async () => {
    const library = await skillLibrary([{ files: { 'SKILL.md': skillMd('git-flow') } }], { scheme: 'docs' });
    expect(library.skills[0]!.uri).toBe('docs://git-flow/SKILL.md');
  });

  it.each([
    ['no SKILL.md', [{ files: { 'README.md': 'x' } }], /has no SKILL\.md/],
    ['a name against the naming rules', [{ files: { 'SKILL.md': skillMd('PDF--Tools') } }], /breaks the Agent Skills naming rules/],
    ['a name longer than 64 characters', [{ files: { 'SKILL.md': skillMd('a'.repeat(65)) } }], /naming rules/],
    ['a path whose last segment is not the name', [{ path: 'tools/pdf', files: { 'SKILL.md': skillMd('pdf-tools') } }], /last segment of its path must be its name/],
    ['a file path that climbs out of the skill', [{ files: { 'SKILL.md': skillMd('a'), '../b/secret.md': 'x' } }], /not a plain relative path/],
    ['an absolute file path', [{ files: { 'SKILL.md': skillMd('a'), '/etc/passwd': 'x' } }], /not a plain relative path/],
    ['a backslash in a file path', [{ files: { 'SKILL.md': skillMd('a'), 'a\\..\\b.md': 'x' } }], /not a plain relative path/],
    ['a skill path with a dot segment', [{ path: 'x/../a', files: { 'SKILL.md': skillMd('a') } }], /not a plain relative path/],
    ['two skills at one path', [{ files: { 'SKILL.md': skillMd('a') } }, { path: 'a', files: { 'SKILL.md': skillMd('a', 'other') } }], /Two skills are at a/],
    ['frontmatter without a description', [{ files: { 'SKILL.md': '---\nname: a\n---\n' } }], /no description/],
  ])('refuses %s, saying so', async (_what, sources, message) => {
    const made = skillLibrary(sources as never);
    await expect(made).rejects.toThrow(SkillSourceError);
    await expect(made).rejects.toThrow(message);
  });

  it('refuses one file given twice with different content (a nested skill and its enclosing skill must agree)', async () => {
    const made = skillLibrary([
      { path: 'outer', files: { 'SKILL.md': skillMd('outer'), 'inner/SKILL.md': skillMd('inner') } },
      { path: 'outer/inner', files: { 'SKILL.md': skillMd('inner', 'changed') } },
    ]);
    await expect(made).rejects.toThrow(/skill:\/\/outer\/inner\/SKILL\.md is given twice with different content/);
  });

  it('refuses a skill of more than 512 files, and one of more than 16 MiB, and takes one at both limits', async () => {
    const files = (count: number): Record<string, string> => Object.fromEntries(Array.from({ length: count }, (_, i) => [`f/${i}.txt`, 'x']));
    await expect(skillLibrary([{ files: { 'SKILL.md': skillMd('many'), ...files(512) } }])).rejects.toThrow(/513 files; hosts need accept no more than 512/);
    const atLimit = await skillLibrary([{ files: { 'SKILL.md': skillMd('many'), ...files(511) } }]);
    expect(atLimit.skills[0]!.resources).toHaveLength(512);
    const md = skillMd('big');
    const big = new Uint8Array(16 * 1024 * 1024 - Buffer.byteLength(md));
    const exact = await skillLibrary([{ files: { 'SKILL.md': md, 'blob.bin': big } }]);
    expect((exact.skills[0]!.resources as { size: number }[]).reduce((sum, r) => sum + r.size, 0)).toBe(16 * 1024 * 1024);
    await expect(skillLibrary([{ files: { 'SKILL.md': md, 'blob.bin': new Uint8Array(big.length + 1) } }])).rejects.toThrow(/holds 16777217 bytes/);
  });
});
