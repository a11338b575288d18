/**
 * Skills from a directory on disk (Node): every directory under the root
 * that holds a SKILL.md is a skill, its path from the root its skill path,
 * every file under it one of its files. Nothing outside the root is ever
 * read: a symbolic link is followed only when it resolves inside the root
 * (one that leads out is an error, not a silent skip), only regular files are
 * opened (never through a link swapped in meanwhile, never a FIFO that would
 * block), and sizes are checked before and while reading. Names starting
 * with "." (`.git`, `.DS_Store`) are not part of any skill.
 */

import { constants } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SKILL_FILE, SKILL_LIMITS } from '../wire.js';
import { skillLibrary, SkillSourceError, type SkillLibrary, type SkillLibraryOptions, type SkillSource } from './skill-library.js';

export interface SkillDirectoryOptions extends SkillLibraryOptions {
  /** Deepest directory nesting under the root (default 32). */
  maxDepth?: number;
  /** Most directory entries looked at in all (default 100,000): a root that is not a skills directory fails fast. */
  maxEntries?: number;
}

interface FoundFile {
  /** Path from the root, `/`-separated. */
  path: string;
  /** Where it really is (links resolved). */
  real: string;
  size: number;
}

/** Publishes every skill under `directory` (a path or a file: URL); throws SkillSourceError naming the file at fault. */
export async function loadSkillDirectory(directory: string | URL, options: SkillDirectoryOptions = {}): Promise<SkillLibrary> {
  const root = typeof directory === 'string' ? directory : fileURLToPath(directory);
  const files = await findFiles(root, options.maxDepth ?? 32, options.maxEntries ?? 100_000);
  const skillDirs = files.filter((f) => f.path === SKILL_FILE || f.path.endsWith(`/${SKILL_FILE}`)).map((f) => f.path.slice(0, -SKILL_FILE.length - 1));
  if (skillDirs.includes('')) throw new SkillSourceError(`${root} itself holds a ${SKILL_FILE}: give the directory that holds the skills' directories`);
  const contents = new Map<string, Uint8Array>();
  const sources: SkillSource[] = [];
  for (const dir of skillDirs) {
    const mine = files.filter((f) => f.path.startsWith(`${dir}/`));
    // Checked before anything is read: a skill past the limits is refused from its listing alone.
    const total = mine.reduce((sum, f) => sum + f.size, 0);
    if (mine.length > SKILL_LIMITS.maxResources) throw new SkillSourceError(`Skill ${dir} has ${mine.length} files; hosts need accept no more than ${SKILL_LIMITS.maxResources}`);
    if (total > SKILL_LIMITS.maxTotalBytes) throw new SkillSourceError(`Skill ${dir} holds ${total} bytes; hosts need accept no more than ${SKILL_LIMITS.maxTotalBytes} (16 MiB)`);
    const skillFiles: Record<string, Uint8Array> = {};
    for (const file of mine) {
      let bytes = contents.get(file.path);
      if (!bytes) contents.set(file.path, (bytes = await readRegularFile(file)));
      skillFiles[file.path.slice(dir.length + 1)] = bytes;
    }
    sources.push({ path: dir, files: skillFiles });
  }
  return skillLibrary(sources, options);
}

async function findFiles(root: string, maxDepth: number, maxEntries: number): Promise<FoundFile[]> {
  let rootReal: string;
  try {
    rootReal = await realpath(root);
    if (!(await stat(rootReal)).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw new SkillSourceError(`The skills root ${root} is not a readable directory (${(error as Error).message})`);
  }
  const inside = (path: string): boolean => path === rootReal || path.startsWith(rootReal + sep);
  const found: FoundFile[] = [];
  const visited = new Set<string>([rootReal]);
  let entries = 0;
  const walk = async (dirReal: string, dirPath: string, depth: number): Promise<void> => {
    if (depth > maxDepth) throw new SkillSourceError(`${dirPath} is nested deeper than ${maxDepth} directories under the skills root`);
    // In name order, so the same directory always publishes the same listing.
    const dirents = await readdir(dirReal, { withFileTypes: true }).catch((error: Error) => {
      throw new SkillSourceError(`${dirPath || root} could not be read (${error.message})`);
    });
    const listing = dirents.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of listing) {
      if (entry.name.startsWith('.')) continue;
      if (++entries > maxEntries) throw new SkillSourceError(`The skills root ${root} holds more than ${maxEntries} entries`);
      const path = dirPath === '' ? entry.name : `${dirPath}/${entry.name}`;
      let real = join(dirReal, entry.name);
      if ((await lstat(real)).isSymbolicLink()) {
        const target = await realpath(real).catch(() => undefined);
        if (target === undefined) throw new SkillSourceError(`${path} is a symbolic link that leads nowhere`);
        if (!inside(target)) throw new SkillSourceError(`${path} is a symbolic link to ${target}, outside the skills root ${rootReal}`);
        real = target;
      }
      const info = await stat(real);
      if (info.isDirectory()) {
        if (visited.has(real)) throw new SkillSourceError(`${path} leads back to a directory already read (a symbolic link loop)`);
        visited.add(real);
        await walk(real, path, depth + 1);
      } else if (info.isFile()) {
        found.push({ path, real, size: info.size });
      }
      // Anything else (a FIFO, a socket, a device) is not a file of a skill.
    }
  };
  await walk(rootReal, '', 0);
  return found;
}

/** The bytes of a regular file, opened without following a link and without blocking, no more than it had when found. */
async function readRegularFile(file: FoundFile): Promise<Uint8Array> {
  const handle = await open(file.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: Error) => {
    throw new SkillSourceError(`${file.path} could not be opened (${error.message})`);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new SkillSourceError(`${file.path} is no longer a regular file`);
    // One byte more than expected shows a file that grew since it was found.
    const buffer = new Uint8Array(file.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length !== file.size) throw new SkillSourceError(`${file.path} changed size while the skills were read (${file.size} bytes, then ${length > file.size ? 'more' : length})`);
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
