/**
 * The Skills extension on the client, composed over a connected `Client`:
 * list and get entries (checked, nothing fetched), load a skill (SKILL.md
 * read and verified: size, digest, frontmatter against the entry), then
 * read its files one by one as they are needed, each verified. Nothing is
 * read ahead of need: listing reads no file, loading reads SKILL.md only.
 */

import type { Client } from '../../client/client.js';
import type { RequestOptions } from '../../client/requester.js';
import { FrontmatterError, frontmatterDifferences, readFrontmatter } from '../frontmatter.js';
import { SKILL_LIMITS, SKILLS_EXTENSION, SkillsMethod, type ReadDirectoryResult, type Skill, type SkillsCapability } from '../wire.js';
import { checkEntry, checkLimits, type SkillLimits } from './entry-checks.js';
import { LoadedSkill } from './loaded-skill.js';
import { SkillError } from './skill-error.js';
import { readSkillFile } from './verified-read.js';

export interface SkillsClientOptions extends SkillLimits {
  /** Load skills whose `resources` is `"dynamic"` (no digests to verify against; default false: refused). */
  allowDynamic?: boolean;
}

/** An entry the server listed that breaks the extension's rules, with why; it is never loaded. */
export interface InvalidSkillEntry {
  entry: unknown;
  problem: string;
}

export interface SkillPage {
  skills: Skill[];
  invalid: InvalidSkillEntry[];
  nextCursor?: string;
}

/** Most pages `listAll` follows. */
const MAX_PAGES = 10_000;

const textDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class SkillsClient {
  private declared: Promise<SkillsCapability | undefined> | undefined;

  constructor(
    readonly client: Client,
    private readonly options: SkillsClientOptions = {},
  ) {}

  /** What the server declares for the extension (from `server/discover`, or a 2025 server's `initialize`), or undefined when it does not declare it. */
  capability(options?: RequestOptions): Promise<SkillsCapability | undefined> {
    this.declared ??= this.client.discover(options).then(
      (discovered) => {
        const value = (discovered.capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions?.[SKILLS_EXTENSION];
        return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as SkillsCapability) : undefined;
      },
      (error: unknown) => {
        this.declared = undefined;
        throw error;
      },
    );
    return this.declared;
  }

  private async requireExtension(options?: RequestOptions): Promise<SkillsCapability> {
    const capability = await this.capability(options);
    if (!capability) throw new SkillError(`The server does not declare ${SKILLS_EXTENSION}`, 'not-offered', '');
    return capability;
  }

  /** One page of `skills/list`: the entries that keep the rules, and those that do not (with why). */
  async list(cursor?: string, options?: RequestOptions): Promise<SkillPage> {
    await this.requireExtension(options);
    const result = await this.client.request(SkillsMethod.List, cursor === undefined ? {} : { cursor }, options);
    const page: SkillPage = { skills: [], invalid: [] };
    for (const entry of Array.isArray(result.skills) ? result.skills : []) {
      try {
        page.skills.push(checkEntry(entry));
      } catch (error) {
        if (!(error instanceof SkillError)) throw error;
        page.invalid.push({ entry, problem: error.message });
      }
    }
    if (typeof result.nextCursor === 'string' && result.nextCursor !== '') page.nextCursor = result.nextCursor;
    return page;
  }

  /** Every page of `skills/list` (a listing may be partial: a skill missing from it can still be loaded by its URI). */
  async listAll(options?: RequestOptions): Promise<{ skills: Skill[]; invalid: InvalidSkillEntry[] }> {
    const all: { skills: Skill[]; invalid: InvalidSkillEntry[] } = { skills: [], invalid: [] };
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const page = await this.list(cursor, options);
      all.skills.push(...page.skills);
      all.invalid.push(...page.invalid);
      if (page.nextCursor === undefined || cursors.has(page.nextCursor)) return all;
      cursors.add(page.nextCursor);
      cursor = page.nextCursor;
    }
    return all;
  }

  /** `skills/get`: the current entry of the skill whose SKILL.md is at `uri` (-32602 from the server when it serves none). */
  async get(uri: string, options?: RequestOptions): Promise<Skill> {
    await this.requireExtension(options);
    const result = await this.client.request(SkillsMethod.Get, { uri }, options);
    const skill = checkEntry(result.skill);
    if (skill.uri !== uri) throw new SkillError(`Asked for ${uri}, the server answered with the entry of ${skill.uri}`, 'entry', uri);
    return skill;
  }

  /**
   * Loads a skill: from an entry already held (a listing's), or by its URI
   * (`skills/get` first). Reads SKILL.md and verifies it against the entry —
   * size, digest, then its frontmatter field by field — and refuses the skill
   * (SkillError) on any difference. Its other files are read later, through
   * the returned LoadedSkill, as they are needed.
   */
  async load(skill: Skill | string, options?: RequestOptions): Promise<LoadedSkill> {
    const entry = typeof skill === 'string' ? await this.get(skill, options) : checkEntry(skill);
    checkLimits(entry, this.options);
    if (entry.resources === 'dynamic' && !this.options.allowDynamic) {
      throw new SkillError(`Skill ${entry.uri} is dynamic (no digests to verify it against); pass allowDynamic to load such skills`, 'dynamic', entry.uri);
    }
    const listed = entry.resources === 'dynamic' ? undefined : entry.resources.find((file) => file.uri === entry.uri);
    const file = await readSkillFile(this.client, entry.uri, listed, options);
    let text = file.text;
    if (text === undefined) {
      try {
        text = textDecoder.decode(file.bytes);
      } catch {
        throw new SkillError(`${entry.uri} is not UTF-8 text`, 'content', entry.uri);
      }
    }
    let frontmatter;
    try {
      frontmatter = readFrontmatter(text);
    } catch (error) {
      if (error instanceof FrontmatterError) throw new SkillError(`${entry.uri}: ${error.message}; the skill is not loaded`, 'frontmatter', entry.uri);
      throw error;
    }
    const differences = frontmatterDifferences(frontmatter, entry.frontmatter);
    if (differences.length > 0) {
      throw new SkillError(`${entry.uri}: its frontmatter differs from the entry's in ${differences.join(', ')}; the skill is not loaded`, 'frontmatter', entry.uri);
    }
    const maxBytes = this.options.maxTotalBytes ?? SKILL_LIMITS.maxTotalBytes;
    if (entry.resources === 'dynamic' && file.bytes.length > maxBytes) {
      throw new SkillError(`Dynamic skill ${entry.uri} sent a SKILL.md of ${file.bytes.length} bytes, more than ${maxBytes}: not used`, 'too-large', entry.uri);
    }
    return new LoadedSkill(this.client, entry, { ...file, text }, maxBytes);
  }

  /** `resources/directory/read`: a directory's direct children (only when the server declares `directoryRead`). */
  async readDirectory(uri: string, cursor?: string, options?: RequestOptions): Promise<ReadDirectoryResult> {
    const capability = await this.requireExtension(options);
    if (capability.directoryRead !== true) throw new SkillError(`The server does not declare directoryRead for ${SKILLS_EXTENSION}`, 'not-offered', uri);
    const result = await this.client.request(SkillsMethod.ReadDirectory, cursor === undefined ? { uri } : { uri, cursor }, options);
    return { ...result, resources: Array.isArray(result.resources) ? result.resources : [] } as ReadDirectoryResult;
  }
}
