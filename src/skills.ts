/**
 * `tessera-mcp/skills`: the Skills extension (`io.modelcontextprotocol/skills`,
 * SEP-2640) for both sides. A server publishes a library of skills with
 * `skills(library)` in McpServer's `extensions` option (a library from
 * memory: `skillLibrary`; from a directory: `loadSkillDirectory` in
 * `tessera-mcp/skills/node`); a client lists, loads and reads them, verified,
 * with `SkillsClient`. Web-standard; nothing here loads unless imported.
 */

export { skills, type SkillsOptions } from './skills/server/skills-extension.js';
export { skillLibrary, SkillSourceError, type SkillLibrary, type SkillLibraryOptions, type SkillSource, type PublishedFile } from './skills/server/skill-library.js';
export { SkillsClient, type SkillsClientOptions, type SkillPage, type InvalidSkillEntry } from './skills/client/skills-client.js';
export { LoadedSkill } from './skills/client/loaded-skill.js';
export type { SkillFile } from './skills/client/verified-read.js';
export type { SkillLimits } from './skills/client/entry-checks.js';
export { SkillError, type SkillFailure } from './skills/client/skill-error.js';
export { readFrontmatter, FrontmatterError } from './skills/frontmatter.js';
export { digestOf } from './skills/digest.js';
export {
  SKILLS_EXTENSION,
  SkillsMethod,
  SKILL_FILE,
  SKILL_LIMITS,
  DIRECTORY_MIME_TYPE,
  type Skill,
  type SkillResource,
  type SkillFrontmatter,
  type SkillsCapability,
  type ListSkillsResult,
  type GetSkillResult,
  type ReadDirectoryResult,
} from './skills/wire.js';
