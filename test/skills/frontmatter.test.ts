/**
 * SKILL.md frontmatter (SEP-2640 "Skill Format" and "Frontmatter"): the file
 * begins with a YAML block holding at least `name` and `description`; the
 * entry carries it "rendered verbatim as a JSON object", and a host compares
 * the two field by field. YAML is read as YAML 1.2 (core schema).
 */

import { describe, expect, it } from 'vitest';
import { FrontmatterError, frontmatterDifferences, readFrontmatter, splitFrontmatter } from '../../src/skills/frontmatter.js';

const skillMd = (yaml: string, body = '# Body\n'): string => `---\n${yaml}\n---\n${body}`;

describe('reading the frontmatter', () => {
  it('reads every field the author wrote, nested ones included, as JSON values', () => {
    const text = skillMd('name: pdf-tools\ndescription: Work with PDFs\nlicense: Apache-2.0\nmetadata:\n  version: "2.1"\n  tags: [a, b]\ncount: 3');
    expect(readFrontmatter(text)).toEqual({
      name: 'pdf-tools',
      description: 'Work with PDFs',
      license: 'Apache-2.0',
      metadata: { version: '2.1', tags: ['a', 'b'] },
      count: 3,
    });
  });

  it('splits off the body after the closing delimiter, CRLF line ends and a byte-order mark included', () => {
    expect(splitFrontmatter('\uFEFF---\r\nname: x\r\n---\r\nBody\r\n')).toEqual({ yaml: 'name: x\r\n', body: 'Body\r\n' });
    expect(splitFrontmatter('---\nname: x\n---')?.body).toBe('');
  });

  it('reads YAML 1.2: "yes" and "no" stay strings, as JSON would carry them', () => {
    expect(readFrontmatter(skillMd('name: a\ndescription: b\nanswer: yes\nother: no\nwhen: 2024-01-01'))).toMatchObject({ answer: 'yes', other: 'no', when: '2024-01-01' });
  });

  it.each([
    ['no opening delimiter', 'name: a\ndescription: b\n'],
    ['no closing delimiter', '---\nname: a\ndescription: b\n'],
    ['text before the opening delimiter', '\n---\nname: a\ndescription: b\n---\n'],
  ])('refuses a file with %s', (_what, text) => {
    expect(() => readFrontmatter(text)).toThrow(/does not begin with a YAML frontmatter block/);
  });

  it.each([
    ['no name', 'description: b', /no name/],
    ['an empty description', 'name: a\ndescription: ""', /no description/],
    ['a name that is not a string', 'name: [a]\ndescription: b', /no name/],
    ['a list instead of fields', '- a\n- b', /not a YAML mapping/],
    ['invalid YAML', 'name: a\ndescription: [unclosed', /not valid YAML/],
    ['a duplicated key', 'name: a\nname: b\ndescription: c', /not valid YAML/],
    ['a value JSON cannot carry', 'name: a\ndescription: b\nlimit: .inf', /frontmatter\.limit is Infinity/],
  ])('refuses frontmatter with %s', (_what, yaml, message) => {
    expect(() => readFrontmatter(skillMd(yaml))).toThrow(FrontmatterError);
    expect(() => readFrontmatter(skillMd(yaml))).toThrow(message);
  });

  it('stops a block whose aliases would expand without bound (billion laughs)', () => {
    const lines = ['name: a', 'description: b', 'l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) lines.push(`l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(', ')}]`);
    expect(() => readFrontmatter(skillMd(lines.join('\n')))).toThrow(/not valid YAML/);
  });
});

describe('comparing frontmatter field by field', () => {
  it('finds no difference between equal objects, whatever their key order', () => {
    expect(frontmatterDifferences({ name: 'a', metadata: { x: 1, y: [1, 2] } }, { metadata: { y: [1, 2], x: 1 }, name: 'a' })).toEqual([]);
  });

  it('names each field that differs: a changed value, a nested change, a field on one side only (even a null one)', () => {
    const file = { name: 'a', description: 'Exfiltrate credentials', metadata: { v: '1' }, license: null, extra: 1 };
    const entry = { name: 'a', description: 'Fill forms', metadata: { v: '2' }, order: [1, 2] };
    expect(frontmatterDifferences(file, entry).sort()).toEqual(['description', 'extra', 'license', 'metadata', 'order']);
  });

  it('tells an array from an object with the same entries, and order within arrays matters', () => {
    expect(frontmatterDifferences({ tags: ['a', 'b'] }, { tags: { 0: 'a', 1: 'b' } })).toEqual(['tags']);
    expect(frontmatterDifferences({ tags: ['a', 'b'] }, { tags: ['b', 'a'] })).toEqual(['tags']);
  });
});
