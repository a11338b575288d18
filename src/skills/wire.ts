/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) on the
 * wire: its identifier, methods, entry shapes and the per-skill limits both
 * sides work to. Shared by the server (skills/server/) and the client
 * (skills/client/).
 */

import type { CacheHints, Resource, Result } from '../protocol/types.js';

/** The extension's identifier in `capabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

export const SkillsMethod = {
  List: 'skills/list',
  Get: 'skills/get',
  /** Defined by the extension, served when the server declares `directoryRead: true`. */
  ReadDirectory: 'resources/directory/read',
} as const;

/** The file every skill has at its root. */
export const SKILL_FILE = 'SKILL.md';
export const SKILL_MIME_TYPE = 'text/markdown';
/** The `mimeType` of a directory resource. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** What every host must accept of one skill, and servers should not exceed. */
export const SKILL_LIMITS = {
  /** Entries of a skill's `resources`, SKILL.md included. */
  maxResources: 512,
  /** The sum of `size` over a skill's `resources`: 16 MiB. */
  maxTotalBytes: 16 * 1024 * 1024,
} as const;

/** What the server declares under `capabilities.extensions["io.modelcontextprotocol/skills"]`. */
export interface SkillsCapability {
  /** The server serves `resources/directory/read`. */
  directoryRead?: boolean;
}

/** A file of a skill: its resource URI, the SHA-256 of its raw bytes (`sha256:<64 hex>`) and its length in bytes. */
export interface SkillResource {
  uri: string;
  digest: string;
  size: number;
}

/** A SKILL.md's YAML frontmatter as a JSON object: `name` and `description` always, every other field as the author wrote it. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [field: string]: unknown;
}

/** One skill, as `skills/list` and `skills/get` describe it. */
export interface Skill {
  /** The resource URI of its SKILL.md. */
  uri: string;
  frontmatter: SkillFrontmatter;
  /** Every file of the skill (SKILL.md included), or `"dynamic"` when its content is generated and has no stable digests. */
  resources: SkillResource[] | 'dynamic';
}

export interface ListSkillsResult extends Result, Partial<CacheHints> {
  skills: Skill[];
  nextCursor?: string;
}

export interface GetSkillResult extends Result, Partial<CacheHints> {
  skill: Skill;
}

/** `resources/directory/read`: the directory's direct children (subdirectories with `mimeType: "inode/directory"`). */
export interface ReadDirectoryResult extends Result {
  resources: Resource[];
  nextCursor?: string;
}
