/**
 * The token file under attack, with real files in a temporary directory: what
 * another local user could plant (a symlink at the temporary file's name, a
 * symlinked tokens.json, a directory anyone may write to, a directory or file
 * of someone else) never receives the tokens nor feeds the client tokens of
 * its own; each refusal names the path and says what to do. A directory
 * others may read is made private (0700), a missing one is made 0700.
 * Through the CLI too: `tessera logout` and `tessera call` on a world-writable
 * config directory fail with that message, exit 1.
 *
 * Seen failing before the fix (writes through `<file>.<pid>.tmp`, no checks):
 * the planted temporary file received the tokens, the symlinked tokens.json
 * was read, every unsafe directory and foreign file was used, 0755 stayed.
 * The POSIX rules (owner, modes) do not exist on Windows: those tests run
 * elsewhere only.
 */

import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileTokenStore } from '../../../src/node.js';
import type { StoredAuthorization } from '../../../src/auth/client/token-store.js';
import { freePort } from '../../../fixtures/ports.js';
import { runCli } from '../../helpers/cli.js';

const posix = process.platform !== 'win32';
const root = process.getuid?.() === 0;
const SERVER = 'https://mcp.example.com/mcp';
const SIGNED_IN: StoredAuthorization = { clients: {}, issuer: 'https://as.example.com', tokens: { accessToken: 'secret-access', tokenType: 'bearer', refreshToken: 'secret-refresh' } };
const PLANTED = JSON.stringify({ version: 1, servers: { [SERVER]: { clients: {}, issuer: 'https://evil.example', tokens: { accessToken: 'planted', tokenType: 'bearer' } } } });

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A fresh private directory (0700, ours) for one test, with `tokens/` inside as the store's directory. */
function scene(dirMode?: number): { base: string; dir: string; file: string } {
  const base = mkdtempSync(join(tmpdir(), 'tessera-token-file-'));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const dir = join(base, 'tokens');
  mkdirSync(dir, { mode: 0o700 });
  if (dirMode !== undefined) chmodSync(dir, dirMode);
  return { base, dir, file: join(dir, 'tokens.json') };
}

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('the token file refuses what another user could have planted', () => {
  it('a symlink planted at the old temporary name <file>.<pid>.tmp receives nothing', async () => {
    const { base, dir, file } = scene();
    const target = join(base, 'attacker-reads-this');
    writeFileSync(target, 'untouched', { mode: 0o644 });
    symlinkSync(target, `${file}.${process.pid}.tmp`);
    await new FileTokenStore(file).set(SERVER, SIGNED_IN);
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    expect(modeOf(target)).toBe(0o644);
    // The tokens are in a regular 0600 file at the path, and no temporary file is left behind.
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(file, 'utf8')).servers[SERVER].tokens.refreshToken).toBe('secret-refresh');
    if (posix) expect(modeOf(file)).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual([`tokens.json.${process.pid}.tmp`, 'tokens.json'].sort());
  });

  it('a tokens.json that is a symlink is neither read nor replaced', async () => {
    const { base, file } = scene();
    const target = join(base, 'planted.json');
    writeFileSync(target, PLANTED);
    symlinkSync(target, file);
    const store = new FileTokenStore(file);
    await expect(store.get(SERVER)).rejects.toThrow(`${file} is a symbolic link`);
    await expect(store.set(SERVER, SIGNED_IN)).rejects.toThrow(/symbolic link.*remove it/);
    expect(readFileSync(target, 'utf8')).toBe(PLANTED);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

  it('a token directory that is a symlink is not used', async () => {
    const { base } = scene();
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    const linked = join(base, 'linked');
    symlinkSync(elsewhere, linked);
    const store = new FileTokenStore(join(linked, 'tokens.json'));
    await expect(store.set(SERVER, SIGNED_IN)).rejects.toThrow(`${linked} is a symbolic link`);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it.skipIf(!posix).each([
    ['world-writable', 0o777],
    ['group-writable', 0o770],
    ['world-writable with the sticky bit', 0o1777],
  ])('a %s directory is refused, and nothing is written there', async (_name, mode) => {
    const { dir, file } = scene(mode);
    writeFileSync(file, PLANTED, { mode: 0o600 });
    const store = new FileTokenStore(file);
    await expect(store.get(SERVER)).rejects.toThrow(`${dir} can be written by other users`);
    await expect(store.set(SERVER, SIGNED_IN)).rejects.toThrow(`chmod 700 ${dir}`);
    expect(readdirSync(dir)).toEqual(['tokens.json']);
    expect(readFileSync(file, 'utf8')).toBe(PLANTED);
  });

  it.skipIf(!posix)('a token file others may write to is refused', async () => {
    const { file } = scene();
    writeFileSync(file, PLANTED);
    chmodSync(file, 0o666);
    await expect(new FileTokenStore(file).get(SERVER)).rejects.toThrow(`${file} can be written by other users`);
  });

  it.skipIf(!posix || !root)('a directory or a token file that belongs to another user is refused', async () => {
    const { dir, file } = scene();
    writeFileSync(file, PLANTED, { mode: 0o600 });
    chownSync(file, 65534, 65534);
    await expect(new FileTokenStore(file).get(SERVER)).rejects.toThrow(`${file} belongs to another user (uid 65534)`);
    chownSync(file, 0, 0);
    chownSync(dir, 65534, 65534);
    await expect(new FileTokenStore(file).set(SERVER, SIGNED_IN)).rejects.toThrow(`${dir} belongs to another user (uid 65534)`);
    expect(readFileSync(file, 'utf8')).toBe(PLANTED);
  });
});

describe('the token file is private', () => {
  it.skipIf(!posix)('an existing 0755 directory is made 0700 and a 0644 file 0600', async () => {
    const { dir, file } = scene(0o755);
    writeFileSync(file, JSON.stringify({ version: 1, servers: {} }));
    chmodSync(file, 0o644);
    const store = new FileTokenStore(file);
    expect(await store.get(SERVER)).toBeUndefined();
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(file)).toBe(0o600);
    await store.set(SERVER, SIGNED_IN);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(file)).toBe(0o600);
  });

  it.skipIf(!posix)('a missing directory is made 0700', async () => {
    const { base } = scene();
    const file = join(base, 'new', 'deeper', 'tokens.json');
    await new FileTokenStore(file).set(SERVER, SIGNED_IN);
    expect(modeOf(join(base, 'new', 'deeper'))).toBe(0o700);
    expect(modeOf(file)).toBe(0o600);
    expect((await new FileTokenStore(file).get(SERVER))?.tokens?.accessToken).toBe('secret-access');
  });
});

describe('tessera logout', () => {
  it.skipIf(!posix)('with a config directory anyone may write to: one line naming it and what to do, exit 1', async () => {
    const { dir, file } = scene(0o777);
    writeFileSync(file, PLANTED, { mode: 0o600 });
    const run = await runCli(['logout', SERVER], { env: { TESSERA_CONFIG_DIR: dir } });
    expect(run.stderr).toContain(`tessera: ${dir} can be written by other users`);
    expect(run.stderr).toContain(`chmod 700 ${dir}`);
    expect(run.stderr).not.toContain('    at '); // a message, not a stack trace
    expect(run.code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(PLANTED);
  });
});

describe('tessera call', () => {
  it.skipIf(!posix)('with a config directory anyone may write to: the same line before anything is sent, exit 1', async () => {
    const { dir, file } = scene(0o777);
    writeFileSync(file, PLANTED, { mode: 0o600 });
    const run = await runCli(['call', `http://127.0.0.1:${await freePort()}/mcp`, 'search'], { env: { TESSERA_CONFIG_DIR: dir } });
    expect(run.stderr.trim()).toBe(`tessera: ${dir} can be written by other users (mode 0777), who could have planted or swapped sign-in files: check what is there, then chmod 700 ${dir}`);
    expect(run.code).toBe(1);
  });
});
