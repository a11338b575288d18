/**
 * A TokenStore in one JSON file that only the user can read (0600, in a
 * 0700 directory), for the CLI and other desktop tools. Node only.
 *
 * Another local user must neither receive the tokens nor hand the client
 * tokens of their own, so before anything is read or written:
 * - the directory is refused when it is a symlink, belongs to someone else
 *   or others may write to it (they could plant or swap files in it); one
 *   others may only read is made 0700; a missing one is made 0700;
 * - the file is opened without following a symlink, and refused when it
 *   belongs to someone else or others may write to it (0644 is made 0600);
 * - writes go to a temporary file with an unpredictable name, created
 *   exclusively and never through a symlink, then renamed into place, so a
 *   crash never leaves half a file and nothing planted receives the tokens.
 * On Windows owners and modes are not POSIX: the symlink checks and the
 * exclusive creation hold, and privacy comes from the profile's ACL.
 */

import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, lstat, mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StoredAuthorization, TokenStore } from './token-store.js';

interface TokenFile {
  version: 1;
  servers: Record<string, StoredAuthorization>;
}

/** The token file or its directory cannot be used safely; the message names the path and what to do. */
export class TokenFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'TokenFileError';
  }
}

const POSIX = process.platform !== 'win32';
/** 0 where the platform has no such flag (Windows): the lstat checks stand in for it there. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const GROUP_OTHER_WRITE = 0o022;
const GROUP_OTHER_ANY = 0o077;

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/** Refuses what another user may have made or may change: a file or directory not ours, or writable by others. */
function checkOwner(path: string, stats: Stats, kind: 'file' | 'directory'): void {
  if (!POSIX) return;
  const uid = process.getuid!();
  if (stats.uid !== uid) {
    throw new TokenFileError(path, `${path} belongs to another user (uid ${stats.uid}), so the sign-in ${kind} cannot be trusted: use a ${kind} of your own`);
  }
  if ((stats.mode & GROUP_OTHER_WRITE) !== 0) {
    const fix = kind === 'directory' ? `chmod 700 ${path}` : `rm ${path}`;
    throw new TokenFileError(
      path,
      `${path} can be written by other users (mode ${octal(stats.mode)}), who could have planted or swapped sign-in files: check what is there, then ${fix}`,
    );
  }
}

export class FileTokenStore implements TokenStore {
  /** One write at a time, so two saves in one process never interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly directory: string;

  constructor(readonly path: string) {
    this.directory = dirname(path);
  }

  async get(server: string): Promise<StoredAuthorization | undefined> {
    return (await this.read()).servers[server];
  }

  set(server: string, value: StoredAuthorization): Promise<void> {
    return this.update((file) => {
      file.servers[server] = value;
    });
  }

  delete(server: string): Promise<void> {
    return this.update((file) => {
      delete file.servers[server];
    });
  }

  /** The servers with a stored sign-in. */
  async servers(): Promise<string[]> {
    return Object.keys((await this.read()).servers);
  }

  /** The directory, checked and made private; false when it does not exist and `create` is false. */
  private async checkDirectory(create: boolean): Promise<boolean> {
    let stats: Stats;
    try {
      stats = await lstat(this.directory);
    } catch (error) {
      if (code(error) !== 'ENOENT') throw error;
      if (!create) return false;
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      stats = await lstat(this.directory);
    }
    if (stats.isSymbolicLink()) {
      throw new TokenFileError(this.directory, `${this.directory} is a symbolic link, so the sign-in directory cannot be trusted: give the real directory instead`);
    }
    if (!stats.isDirectory()) throw new TokenFileError(this.directory, `${this.directory} is not a directory: the sign-in file needs a directory of its own`);
    checkOwner(this.directory, stats, 'directory');
    // Others may list it and read what it holds: it is ours, so it becomes private.
    if (POSIX && (stats.mode & GROUP_OTHER_ANY) !== 0) await chmod(this.directory, 0o700);
    return true;
  }

  /** The file opened for reading, never through a symlink; undefined when there is none. */
  private async openFile(): Promise<FileHandle | undefined> {
    // Windows has no O_NOFOLLOW: look first (a race only a local administrator could run there).
    if (!POSIX && (await lstat(this.path).catch(() => undefined))?.isSymbolicLink()) throw this.symlinked();
    let handle: FileHandle;
    try {
      handle = await open(this.path, constants.O_RDONLY | NO_FOLLOW);
    } catch (error) {
      if (code(error) === 'ENOENT') return undefined;
      if (code(error) === 'ELOOP') throw this.symlinked();
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new TokenFileError(this.path, `${this.path} is not a regular file: remove it and sign in again`);
      checkOwner(this.path, stats, 'file');
      if (POSIX && (stats.mode & GROUP_OTHER_ANY) !== 0) await handle.chmod(0o600);
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  private symlinked(): TokenFileError {
    return new TokenFileError(this.path, `${this.path} is a symbolic link, so the sign-in file cannot be trusted: remove it (rm ${this.path}) and sign in again`);
  }

  /** The file's content, after the checks (`create`: the directory too, when it is missing). */
  private async read(create = false): Promise<TokenFile> {
    const empty: TokenFile = { version: 1, servers: {} };
    if (!(await this.checkDirectory(create))) return empty;
    const handle = await this.openFile();
    if (!handle) return empty;
    let text: string;
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    try {
      const parsed = JSON.parse(text) as Partial<TokenFile>;
      return { version: 1, servers: typeof parsed.servers === 'object' && parsed.servers !== null ? parsed.servers : {} };
    } catch {
      // An unreadable file holds nothing usable; the next save replaces it.
      return empty;
    }
  }

  private update(change: (file: TokenFile) => void): Promise<void> {
    const run = this.queue.then(async () => {
      const file = await this.read(true);
      change(file);
      await this.write(`${JSON.stringify(file, null, 2)}\n`);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Writes a fresh file beside the old one (exclusively, never through a symlink), then renames it into place. */
  private async write(text: string): Promise<void> {
    const temporary = `${this.path}.${randomBytes(12).toString('hex')}.tmp`;
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
    try {
      try {
        await handle.chmod(0o600); // the mode above is masked by the umask
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }
}
