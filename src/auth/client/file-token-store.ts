/**
 * A TokenStore in one JSON file that only the user can read (0600, in a
 * 0700 directory), for the CLI and other desktop tools. Writes go to a
 * temporary file first and are renamed into place, so a crash never leaves
 * half a file. Node only.
 */

import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StoredAuthorization, TokenStore } from './token-store.js';

interface TokenFile {
  version: 1;
  servers: Record<string, StoredAuthorization>;
}

export class FileTokenStore implements TokenStore {
  /** One write at a time, so two saves in one process never interleave. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

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

  private async read(): Promise<TokenFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as Partial<TokenFile>;
      return { version: 1, servers: typeof parsed.servers === 'object' && parsed.servers !== null ? parsed.servers : {} };
    } catch {
      // An unreadable file holds nothing usable; the next save replaces it.
      return { version: 1, servers: {} };
    }
  }

  private update(change: (file: TokenFile) => void): Promise<void> {
    const run = this.queue.then(async () => {
      const file = await this.read();
      change(file);
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      await chmod(temporary, 0o600); // the mode above is masked by the umask
      await rename(temporary, this.path);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
