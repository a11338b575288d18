/**
 * A published set of skills: each skill's entry (frontmatter read from its
 * SKILL.md, every file with its digest and size) and the files themselves,
 * checked once when the library is made, so serving it is only looking up.
 * Skills come from memory (`skillLibrary`) or from a directory on disk
 * (`loadSkillDirectory`, directory-source.ts).
 */

import type { Resource } from '../../protocol/types.js';
import { digestOf } from '../digest.js';
import { FrontmatterError, readFrontmatter } from '../frontmatter.js';
import { encodeSegment, isSkillName, isWithinSkill } from '../skill-uri.js';
import { SKILL_FILE, SKILL_LIMITS, SKILL_MIME_TYPE, type Skill, type SkillFrontmatter } from '../wire.js';
import { isTextual, mediaTypeOf, utf8Text } from './media-types.js';

/** One skill as its author gives it. */
export interface SkillSource {
  /**
   * Where the skill sits in the server's skill namespace, `/`-separated
   * (`git-workflow`, `acme/billing/refunds`); its last segment must be the
   * skill's name. Default: the name in its SKILL.md frontmatter.
   */
  path?: string;
  /** The skill's files by their path from the skill's root, `/`-separated; `SKILL.md` is required. Text is stored as UTF-8. */
  files: Readonly<Record<string, string | Uint8Array>>;
}

export interface SkillLibraryOptions {
  /** The URI scheme the skills are served under (default `skill`). */
  scheme?: string;
}

/** A skill could not be published as given: the message names the skill and what is wrong. */
export class SkillSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SkillSourceError';
  }
}

/** A file as served: its resource metadata, its bytes, and its text when it goes out as text. */
export interface PublishedFile {
  readonly resource: Resource & { mimeType: string; size: number };
  readonly bytes: Uint8Array;
  readonly text: string | undefined;
  readonly digest: string;
}

export interface SkillLibrary {
  /** The skills' entries, in the order given. */
  readonly skills: readonly Skill[];
  /** Every file of every skill, by URI (a nested skill's files are also its enclosing skill's). */
  readonly files: ReadonlyMap<string, PublishedFile>;
}

const SCHEME = /^[a-z][a-z0-9+.-]*$/;
const encoder = new TextEncoder();

/** A relative path's segments, refusing anything that could name a file outside the skill. */
function pathSegments(path: string, what: string): string[] {
  const segments = path.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..' || segment.includes('\\') || /[\u0000-\u001f\u007f]/.test(segment)) {
      throw new SkillSourceError(`${what} "${path}" is not a plain relative path (empty, "." or ".." segments, backslashes and control characters are refused)`);
    }
  }
  return segments;
}

interface GivenSkill {
  root: string;
  uri: string;
  frontmatter: SkillFrontmatter;
}

/**
 * Publishes skills from memory: reads each SKILL.md's frontmatter, checks
 * names, paths and the per-skill limits (512 files, 16 MiB), and computes
 * every file's digest. Throws SkillSourceError saying what is wrong.
 */
export async function skillLibrary(sources: Iterable<SkillSource>, options: SkillLibraryOptions = {}): Promise<SkillLibrary> {
  const scheme = options.scheme ?? 'skill';
  if (!SCHEME.test(scheme)) throw new SkillSourceError(`"${scheme}" is not a URI scheme`);
  const given: GivenSkill[] = [];
  const contents = new Map<string, { path: string; bytes: Uint8Array }>();
  for (const source of sources) {
    const skillMd = source.files[SKILL_FILE];
    const label = source.path ?? '(a skill without a path)';
    if (skillMd === undefined) throw new SkillSourceError(`Skill ${label} has no ${SKILL_FILE}`);
    const frontmatter = frontmatterOf(skillMd, label);
    const path = source.path ?? frontmatter.name;
    const segments = pathSegments(path, 'Skill path');
    const name = segments[segments.length - 1]!;
    if (!isSkillName(frontmatter.name)) {
      throw new SkillSourceError(`Skill ${path}: the name "${frontmatter.name}" breaks the Agent Skills naming rules (1-64 lowercase letters, digits and single hyphens, not at either end)`);
    }
    if (name !== frontmatter.name) throw new SkillSourceError(`Skill ${path}: the last segment of its path must be its name "${frontmatter.name}"`);
    const root = `${scheme}://${segments.map(encodeSegment).join('/')}`;
    if (given.some((skill) => skill.root === root)) throw new SkillSourceError(`Two skills are at ${path}`);
    given.push({ root, uri: `${root}/${SKILL_FILE}`, frontmatter });
    for (const [file, content] of Object.entries(source.files)) {
      const uri = `${root}/${pathSegments(file, `Skill ${path}: the file`).map(encodeSegment).join('/')}`;
      const bytes = typeof content === 'string' ? encoder.encode(content) : content;
      const known = contents.get(uri);
      // A nested skill's files may be given with it and with its enclosing skill: the same file, the same bytes.
      if (known && !sameBytes(known.bytes, bytes)) throw new SkillSourceError(`${uri} is given twice with different content`);
      contents.set(uri, { path: `${path}/${file}`, bytes });
    }
  }
  const files = new Map<string, PublishedFile>();
  await Promise.all(
    [...contents].map(async ([uri, { path, bytes }]) => {
      const mimeType = uri.endsWith(`/${SKILL_FILE}`) ? SKILL_MIME_TYPE : mediaTypeOf(path, bytes);
      const resource = { uri, name: decodeURIComponent(uri.slice(uri.lastIndexOf('/') + 1)), mimeType, size: bytes.length };
      files.set(uri, { resource, bytes, text: isTextual(mimeType) ? utf8Text(bytes) : undefined, digest: await digestOf(bytes) });
    }),
  );
  const skills = given.map((skill) => entryOf(skill, files));
  for (const skill of given) {
    // A SKILL.md's resource carries the skill's name and description.
    const file = files.get(skill.uri)!;
    files.set(skill.uri, { ...file, resource: { ...file.resource, name: skill.frontmatter.name, description: skill.frontmatter.description } });
  }
  return { skills, files };
}

function frontmatterOf(skillMd: string | Uint8Array, label: string): SkillFrontmatter {
  const text = typeof skillMd === 'string' ? skillMd : utf8Text(skillMd);
  if (text === undefined) throw new SkillSourceError(`Skill ${label}: ${SKILL_FILE} is not UTF-8 text`);
  try {
    return readFrontmatter(text);
  } catch (error) {
    if (error instanceof FrontmatterError) throw new SkillSourceError(`Skill ${label}: ${error.message}`);
    throw error;
  }
}

/** The entry of a skill: every file within its directory (a nested skill's included), SKILL.md first, within the limits. */
function entryOf(skill: GivenSkill, files: ReadonlyMap<string, PublishedFile>): Skill {
  const resources = [...files.values()]
    .filter((file) => isWithinSkill(skill.uri, file.resource.uri))
    .sort((a, b) => (a.resource.uri === skill.uri ? -1 : b.resource.uri === skill.uri ? 1 : a.resource.uri < b.resource.uri ? -1 : 1))
    .map((file) => ({ uri: file.resource.uri, digest: file.digest, size: file.resource.size }));
  const total = resources.reduce((sum, file) => sum + file.size, 0);
  if (resources.length > SKILL_LIMITS.maxResources) {
    throw new SkillSourceError(`Skill ${skill.uri} has ${resources.length} files; hosts need accept no more than ${SKILL_LIMITS.maxResources}`);
  }
  if (total > SKILL_LIMITS.maxTotalBytes) {
    throw new SkillSourceError(`Skill ${skill.uri} holds ${total} bytes; hosts need accept no more than ${SKILL_LIMITS.maxTotalBytes} (16 MiB)`);
  }
  return { uri: skill.uri, frontmatter: skill.frontmatter, resources };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
