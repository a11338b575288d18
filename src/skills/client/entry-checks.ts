/**
 * A skill entry read from untrusted JSON (`skills/list`, `skills/get`): the
 * shape and the rules the extension puts on it, checked before anything is
 * fetched, and the per-skill limits this client accepts.
 */

import { isObject } from '../../protocol/guards.js';
import { DIGEST_FORMAT } from '../digest.js';
import { isSkillName, isWithinSkill, skillNameOf } from '../skill-uri.js';
import { SKILL_LIMITS, type Skill, type SkillResource } from '../wire.js';
import { SkillError } from './skill-error.js';

export interface SkillLimits {
  /** Most entries a skill's `resources` may have (default 512, what every host must accept). */
  maxResources?: number;
  /** Most bytes a skill's files may add up to (default 16 MiB). */
  maxTotalBytes?: number;
}

/** `value` as a skill entry, or a SkillError (`entry`) saying which rule it breaks. */
export function checkEntry(value: unknown): Skill {
  if (!isObject(value)) throw new SkillError('A skill entry is not an object', 'entry', '');
  const uri = value.uri;
  if (typeof uri !== 'string' || uri === '') throw new SkillError('A skill entry has no uri', 'entry', '');
  const refuse = (problem: string): never => {
    throw new SkillError(`The entry for ${uri} ${problem}`, 'entry', uri);
  };
  const name = skillNameOf(uri);
  if (name === undefined) refuse('does not name a SKILL.md (<scheme>://<skill-path>/SKILL.md)');
  const frontmatter = value.frontmatter;
  if (!isObject(frontmatter)) return refuse('has no frontmatter object');
  for (const field of ['name', 'description']) {
    if (typeof frontmatter[field] !== 'string' || frontmatter[field] === '') refuse(`has no frontmatter.${field}`);
  }
  if (frontmatter.name !== name) refuse(`says its name is "${String(frontmatter.name)}" but its URI ends in "${name}"`);
  if (!isSkillName(name!)) refuse(`names the skill "${name}", which breaks the Agent Skills naming rules`);
  const resources = value.resources;
  if (resources === 'dynamic') return { uri, frontmatter: frontmatter as Skill['frontmatter'], resources };
  if (!Array.isArray(resources)) return refuse('has no resources (an array of files, or "dynamic")');
  const seen = new Set<string>();
  for (const [i, file] of resources.entries()) {
    if (!isObject(file) || typeof file.uri !== 'string') refuse(`has a resources[${i}] without a uri`);
    const item = file as Record<string, unknown>;
    const at = String(item.uri);
    if (!isWithinSkill(uri, at)) refuse(`lists ${at}, which is outside the skill's directory`);
    if (seen.has(at)) refuse(`lists ${at} twice`);
    seen.add(at);
    if (typeof item.digest !== 'string' || !DIGEST_FORMAT.test(item.digest)) refuse(`gives ${at} a digest that is not sha256:<64 lowercase hex>`);
    if (typeof item.size !== 'number' || !Number.isSafeInteger(item.size) || item.size < 0) refuse(`gives ${at} a size that is not a byte count`);
  }
  if (!seen.has(uri)) refuse('does not list its own SKILL.md among its resources');
  return { uri, frontmatter: frontmatter as Skill['frontmatter'], resources: resources as SkillResource[] };
}

/** Refuses (SkillError `too-large`) a skill whose entry lists more than the client accepts, before any file is read. */
export function checkLimits(skill: Skill, limits: SkillLimits): void {
  if (skill.resources === 'dynamic') return;
  const maxResources = limits.maxResources ?? SKILL_LIMITS.maxResources;
  const maxTotalBytes = limits.maxTotalBytes ?? SKILL_LIMITS.maxTotalBytes;
  if (skill.resources.length > maxResources) {
    throw new SkillError(`Skill ${skill.uri} lists ${skill.resources.length} files; this client accepts at most ${maxResources}`, 'too-large', skill.uri);
  }
  const total = skill.resources.reduce((sum, file) => sum + file.size, 0);
  if (total > maxTotalBytes) throw new SkillError(`Skill ${skill.uri} lists ${total} bytes of files; this client accepts at most ${maxTotalBytes}`, 'too-large', skill.uri);
}
