/**
 * Where a skill's files live: `<scheme>://<skill-path>/<file-path>`, the
 * skill's root being its SKILL.md URI without `/SKILL.md`, and the last
 * segment of the skill path being the skill's name (Agent Skills naming:
 * 1-64 lowercase letters, digits and single hyphens inside).
 */

import { SKILL_FILE } from './wire.js';

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Whether `name` satisfies the Agent Skills naming rules. */
export function isSkillName(name: string): boolean {
  return name.length >= 1 && name.length <= 64 && NAME.test(name);
}

/** The skill's root directory URI: its SKILL.md URI without `/SKILL.md`, or undefined when `uri` is not a SKILL.md URI. */
export function skillRootOf(uri: string): string | undefined {
  const suffix = `/${SKILL_FILE}`;
  if (!uri.endsWith(suffix)) return undefined;
  const root = uri.slice(0, -suffix.length);
  const scheme = root.indexOf('://');
  // At least one segment after the scheme: the skill path is never empty.
  return scheme > 0 && root.length > scheme + 3 && !root.endsWith('/') ? root : undefined;
}

/** The skill's name as its URI says it: the last segment of the skill path (percent-decoded), or undefined. */
export function skillNameOf(uri: string): string | undefined {
  const root = skillRootOf(uri);
  if (root === undefined) return undefined;
  return decodeSegment(root.slice(root.lastIndexOf('/') + 1));
}

/** Whether `fileUri` is the skill's SKILL.md or a file within its directory. */
export function isWithinSkill(skillUri: string, fileUri: string): boolean {
  if (fileUri === skillUri) return true;
  const root = skillRootOf(skillUri);
  if (root === undefined || !fileUri.startsWith(`${root}/`)) return false;
  // No dot segments, plain or percent-encoded: `root/../other` names a file outside the skill.
  return fileUri
    .slice(root.length + 1)
    .split('/')
    .every((segment) => {
      const decoded = decodeSegment(segment);
      return decoded !== undefined && decoded !== '' && decoded !== '.' && decoded !== '..' && !decoded.includes('/');
    });
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The URI of a path relative to a skill's root (`references/GUIDE.md`), as
 * a relative reference inside SKILL.md resolves; undefined when the path
 * leaves the skill's directory or is not a plain relative path.
 */
export function resolveInSkill(skillUri: string, path: string): string | undefined {
  const root = skillRootOf(skillUri);
  if (root === undefined || path === '' || path.startsWith('/') || path.includes('\\') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) return undefined;
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return undefined;
      segments.pop();
    } else {
      segments.push(encodeSegment(segment));
    }
  }
  return segments.length === 0 ? undefined : `${root}/${segments.join('/')}`;
}

/** A path segment as it appears in a URI: characters outside the unreserved set percent-encoded. */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
