/** What the client refuses about a skill, each with the reason a host can act on. */

import { ClientError } from '../../client/errors.js';

/**
 * Why a skill, or one of its files, was refused:
 * - `not-offered`: the server does not declare the Skills extension (or `directoryRead`, for a directory read);
 * - `entry`: the server's entry for the skill breaks the extension's rules (it must not be loaded);
 * - `too-large`: the entry lists more files or bytes than this client accepts (512 files, 16 MiB by default);
 * - `dynamic`: the skill's `resources` is `"dynamic"` (no digests) and the client was not told to accept that;
 * - `unlisted`: a file the held entry does not list, so it was not read;
 * - `size`, `digest`: what the server sent is not what the entry describes;
 * - `frontmatter`: SKILL.md's frontmatter is unreadable or differs from the entry's;
 * - `content`: the read returned no usable contents for the file.
 */
export type SkillFailure = 'not-offered' | 'entry' | 'too-large' | 'dynamic' | 'unlisted' | 'size' | 'digest' | 'frontmatter' | 'content';

export class SkillError extends ClientError {
  constructor(
    message: string,
    readonly reason: SkillFailure,
    /** The skill's or the file's URI. */
    readonly uri: string,
  ) {
    super(message);
    this.name = 'SkillError';
  }
}
