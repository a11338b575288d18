/**
 * `tessera skills`: a server's skills (the Skills extension, SEP-2640).
 * Without a name it lists them (nothing is read); with a name or a SKILL.md
 * URI it loads that skill — SKILL.md verified against its entry (size,
 * digest, frontmatter) — and prints it; with a file path after the name it
 * prints that file of the skill, verified too. A skill that fails
 * verification is refused with the reason, exit code 1.
 */

import type { Client } from 'tessera-mcp/client';
import { SkillError, SkillsClient, type Skill, type SkillFile } from 'tessera-mcp/skills';
import { CliError, EXIT_OK } from './errors.js';
import { printJson, printSkills } from './print-result.js';
import { inert, inertLine } from './inert-text.js';
import { print } from './terminal.js';

/** The skills a server lists (entries that break the rules are left out, and counted). */
export async function listSkills(client: Client): Promise<{ skills: Skill[]; refused: number }> {
  const { skills, invalid } = await new SkillsClient(client).listAll();
  return { skills, refused: invalid.length };
}

/** The skill a name (or a SKILL.md URI) means: exactly one listed skill, else an error that names the choices. */
function pick(skills: readonly Skill[], wanted: string): Skill | string {
  if (wanted.includes('://')) return skills.find((s) => s.uri === wanted) ?? wanted;
  const named = skills.filter((s) => s.frontmatter.name === wanted);
  if (named.length === 1) return named[0]!;
  // Names are labels, not identifiers: two skills may share one, and neither is preferred.
  if (named.length > 1) throw new CliError(`${named.length} skills are named "${wanted}"; give one by its URI:\n${named.map((s) => `  ${s.uri}`).join('\n')}`);
  const names = skills.map((s) => s.frontmatter.name).join(', ') || '(none listed)';
  throw new CliError(`The server lists no skill named "${wanted}". Its skills: ${names} (a skill it does not list can be given by its SKILL.md URI)`);
}

function printFile(file: SkillFile, json: boolean): void {
  if (json) {
    printJson({ uri: file.uri, mimeType: file.mimeType, size: file.bytes.length, ...(file.text === undefined ? { blob: Buffer.from(file.bytes).toString('base64') } : { text: file.text }) });
  } else if (file.text !== undefined) {
    print(inert(file.text));
  } else {
    print(`[binary ${inertLine(file.mimeType ?? 'data')}, ${file.bytes.length} bytes, verified; use --json to get it]`);
  }
}

export async function skillsCommand(client: Client, rest: readonly string[], json: boolean): Promise<() => number> {
  const skillsClient = new SkillsClient(client);
  if (!(await skillsClient.capability())) throw new CliError('The server does not offer skills (it does not declare io.modelcontextprotocol/skills)');
  const [wanted, path] = rest;
  if (wanted === undefined) {
    const listing = await listSkills(client);
    return () => {
      if (json) printJson(listing.skills);
      else printSkills(listing.skills, listing.refused);
      return EXIT_OK;
    };
  }
  const { skills } = await skillsClient.listAll();
  const chosen = pick(skills, wanted);
  try {
    const skill = await skillsClient.load(chosen);
    if (path !== undefined) {
      const file = await skill.read(path);
      return () => {
        printFile(file, json);
        return EXIT_OK;
      };
    }
    return () => {
      if (json) printJson({ skill: skill.entry, text: skill.skillFile.text });
      else print(inert(skill.skillFile.text));
      return EXIT_OK;
    };
  } catch (error) {
    if (error instanceof SkillError) throw new CliError(`Refused ${error.uri || (typeof chosen === 'string' ? chosen : chosen.uri)} (${error.reason}): ${error.message}`);
    throw error;
  }
}
