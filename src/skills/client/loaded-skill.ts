/**
 * A skill the client has loaded: the entry it was loaded from (held while
 * the host acts on the skill), SKILL.md as verified, and reads of its other
 * files, each resolved against the skill's root, refused unless the held
 * entry lists it, verified, and kept once verified.
 */

import type { Client } from '../../client/client.js';
import type { RequestOptions } from '../../client/requester.js';
import { splitFrontmatter } from '../frontmatter.js';
import { isWithinSkill, resolveInSkill, skillRootOf } from '../skill-uri.js';
import type { Skill, SkillFrontmatter, SkillResource } from '../wire.js';
import { SkillError } from './skill-error.js';
import { readSkillFile, type SkillFile } from './verified-read.js';

export class LoadedSkill {
  /** SKILL.md's text after its frontmatter block. */
  readonly body: string;
  private readonly verified = new Map<string, SkillFile>();
  /** Bytes read so far (a `"dynamic"` skill has no sizes to check up front). */
  private bytesRead: number;

  constructor(
    private readonly client: Client,
    /** The entry the skill was loaded from. */
    readonly entry: Skill,
    /** SKILL.md, verified. */
    readonly skillFile: SkillFile & { text: string },
    private readonly maxDynamicBytes: number,
  ) {
    this.body = splitFrontmatter(skillFile.text)?.body ?? '';
    this.verified.set(entry.uri, skillFile);
    this.bytesRead = skillFile.bytes.length;
  }

  get uri(): string {
    return this.entry.uri;
  }

  get frontmatter(): SkillFrontmatter {
    return this.entry.frontmatter;
  }

  /** The skill's files as paths from its root (`references/FORMS.md`), SKILL.md first; undefined for a `"dynamic"` skill. */
  get files(): string[] | undefined {
    if (this.entry.resources === 'dynamic') return undefined;
    const root = skillRootOf(this.entry.uri)!;
    return this.entry.resources.map((file) => decodeURIComponent(file.uri.slice(root.length + 1)));
  }

  /**
   * Reads one file of the skill by its path from the skill's root (a relative
   * reference in SKILL.md) or its URI. A file the held entry does not list is
   * refused without a request (SkillError `unlisted`); what is read is
   * verified against the entry (`size`, `digest`), and served again from
   * memory afterwards.
   */
  async read(pathOrUri: string, options?: RequestOptions): Promise<SkillFile> {
    const uri = pathOrUri.includes('://') ? pathOrUri : resolveInSkill(this.entry.uri, pathOrUri);
    if (uri === undefined) throw new SkillError(`"${pathOrUri}" does not name a file inside skill ${this.entry.uri}`, 'unlisted', this.entry.uri);
    const known = this.verified.get(uri);
    if (known) return known;
    const file = await this.fetch(uri, options);
    this.verified.set(uri, file);
    return file;
  }

  private async fetch(uri: string, options: RequestOptions | undefined): Promise<SkillFile> {
    if (this.entry.resources !== 'dynamic') {
      const listed: SkillResource | undefined = this.entry.resources.find((file) => file.uri === uri);
      // The entry is complete: a file it does not list is a change to the skill, never read under this entry.
      if (!listed) throw new SkillError(`${uri} is not listed in the entry of skill ${this.entry.uri}: not read (refresh the entry with skills/get to see a changed skill)`, 'unlisted', uri);
      return readSkillFile(this.client, uri, listed, options);
    }
    if (!isWithinSkill(this.entry.uri, uri)) {
      throw new SkillError(`${uri} is not a file inside skill ${this.entry.uri}`, 'unlisted', uri);
    }
    const file = await readSkillFile(this.client, uri, undefined, options);
    this.bytesRead += file.bytes.length;
    if (this.bytesRead > this.maxDynamicBytes) throw new SkillError(`Dynamic skill ${this.entry.uri} has sent more than ${this.maxDynamicBytes} bytes: not used`, 'too-large', uri);
    return file;
  }
}
