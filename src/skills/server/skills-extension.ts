/**
 * The Skills extension on the server: `skills(library)` for McpServer's
 * `extensions` option. It declares `io.modelcontextprotocol/skills` (with
 * `directoryRead`) and the `resources` capability, answers `skills/list`,
 * `skills/get` and `resources/directory/read` from the library, and
 * registers every skill file as a resource, so `resources/read` (and
 * `resources/list`, scopes, subscriptions) serve them like any other.
 */

import { bytesToBase64 } from '../../protocol/base64.js';
import { McpError } from '../../protocol/errors.js';
import type { CacheHints, ServerCapabilities } from '../../protocol/types.js';
import { packagedExtension, type Extension, type MethodHandler, type ServerExtension, type ServerHost } from '../../server/extension.js';
import { paginate } from '../../server/pagination.js';
import { DIRECTORY_MIME_TYPE, SKILLS_EXTENSION, SkillsMethod, type GetSkillResult, type ListSkillsResult, type ReadDirectoryResult, type Skill } from '../wire.js';
import { directoriesOf, type Directories } from './skill-directories.js';
import type { PublishedFile, SkillLibrary } from './skill-library.js';

export interface SkillsOptions {
  /** Caching hints of `skills/list`, `skills/get` and reads of skill files (default: 60 s, public: skills are the same for every caller). */
  cache?: Partial<CacheHints>;
  /** Entries per page of `skills/list`, and children per page of `resources/directory/read` (default 50). */
  pageSize?: number;
  /** Serve `resources/directory/read` and declare `directoryRead` (default true). */
  directoryRead?: boolean;
}

const DEFAULT_CACHE: CacheHints = { ttlMs: 60_000, cacheScope: 'public' };

/** The Skills extension serving `library`, for `new McpServer(info, { extensions: [skills(library)] })`. */
export function skills(library: SkillLibrary, options: SkillsOptions = {}): Extension {
  return packagedExtension('skills', (host) => new SkillsExtension(host, library, options));
}

function uriParam(params: Record<string, unknown> | undefined): string {
  const uri = params?.uri;
  if (typeof uri !== 'string') throw McpError.invalidParams('Invalid params: uri must be a string');
  return uri;
}

class SkillsExtension implements ServerExtension {
  readonly name = 'skills';
  /** Skills are served in 2025-11-25 sessions too (their methods are plain requests), so 2025 clients are told. */
  readonly advertisedToLegacy = true;
  readonly methods: Readonly<Record<string, MethodHandler>>;
  private readonly settings: { directoryRead?: true };

  constructor(host: ServerHost, library: SkillLibrary, options: SkillsOptions) {
    const cache = { ...DEFAULT_CACHE, ...options.cache };
    const pageSize = options.pageSize ?? 50;
    const byUri = new Map<string, Skill>(library.skills.map((skill) => [skill.uri, skill]));
    const methods: Record<string, MethodHandler> = {
      [SkillsMethod.List]: async ({ params }) => {
        const page = paginate('skills', library.skills, (skill) => skill.uri, params.cursor, pageSize);
        const result: ListSkillsResult = { skills: page.items, ttlMs: cache.ttlMs, cacheScope: cache.cacheScope };
        if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
        return result;
      },
      [SkillsMethod.Get]: async ({ params }) => {
        const uri = uriParam(params);
        const skill = byUri.get(uri);
        if (!skill) throw McpError.invalidParams(`No skill is served at ${uri}`, { uri });
        const result: GetSkillResult = { skill, ttlMs: cache.ttlMs, cacheScope: cache.cacheScope };
        return result;
      },
    };
    if (options.directoryRead !== false) methods[SkillsMethod.ReadDirectory] = directoryReader(directoriesOf(library.files.values()), library.files, pageSize);
    this.methods = methods;
    this.settings = options.directoryRead !== false ? { directoryRead: true } : {};
    for (const file of library.files.values()) host.addResource({ ...file.resource, cache }, () => contentsOf(file));
  }

  capabilities(core: ServerCapabilities): ServerCapabilities {
    // Skill files are read through resources/read: a server with this extension declares resources, even with no skills.
    return { ...core, resources: core.resources ?? {}, extensions: { ...core.extensions, [SKILLS_EXTENSION]: this.settings } };
  }
}

/** What `resources/read` gives for a skill file: text when it is UTF-8 text, else the bytes as a blob. */
function contentsOf(file: PublishedFile): { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string } {
  const { uri, mimeType } = file.resource;
  return file.text !== undefined ? { uri, mimeType, text: file.text } : { uri, mimeType, blob: bytesToBase64(file.bytes) };
}

function directoryReader(directories: Directories, files: ReadonlyMap<string, PublishedFile>, pageSize: number): MethodHandler {
  return async ({ params }) => {
    const uri = uriParam(params);
    const children = directories.get(uri);
    if (!children) {
      const what = files.has(uri) ? `${uri} is not a directory resource (it is a file)` : `No directory is served at ${uri}`;
      throw McpError.invalidParams(what, { uri });
    }
    const page = paginate(`${DIRECTORY_MIME_TYPE} ${uri}`, children, (child) => child.uri, params.cursor, pageSize);
    const result: ReadDirectoryResult = { resources: page.items };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return result;
  };
}
