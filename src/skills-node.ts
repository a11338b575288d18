/**
 * `tessera-mcp/skills/node`: skills from a directory on disk, for the Skills
 * extension of `tessera-mcp/skills` (Node: it reads files).
 */

export { loadSkillDirectory, type SkillDirectoryOptions } from './skills/server/directory-source.js';
