/**
 * The Node-only pieces: the loopback redirect listener (127.0.0.1 only, its
 * callback path only, cancellable) and the file token store (0600, atomic,
 * no lost writes when saves overlap).
 */

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileTokenStore, LoopbackRedirect } from '../../../src/node.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('LoopbackRedirect', () => {
  it('listens on 127.0.0.1, answers only its callback path, and hands over the redirect', async () => {
    let shown: URL | undefined;
    const redirect = new LoopbackRedirect({ show: (url) => void (shown = url) });
    cleanups.push(() => redirect.close());
    const uri = await redirect.redirectUri();
    expect(uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    const waiting = redirect.authorize({ url: new URL('https://as.example.com/authorize?x=1'), redirectUri: uri, signal: undefined });
    expect((await fetch(new URL('/elsewhere?code=nope', uri))).status).toBe(404);
    const page = await fetch(`${uri}?code=abc&state=s1`);
    expect(page.status).toBe(200);
    const received = await waiting;
    expect(received.searchParams.get('code')).toBe('abc');
    expect(shown?.href).toBe('https://as.example.com/authorize?x=1');
    // Nobody is waiting any more: a second redirect is not taken.
    expect((await fetch(`${uri}?code=again`)).status).toBe(404);
  });

  it('reuses the port of an earlier registration when it is free, and takes any free one when it is not', async () => {
    const first = new LoopbackRedirect({ show: () => undefined });
    const earlier = await first.redirectUri();
    await first.close();
    const again = new LoopbackRedirect({ show: () => undefined });
    cleanups.push(() => again.close());
    expect(await again.redirectUri([earlier])).toBe(earlier);
    const busy = new LoopbackRedirect({ show: () => undefined });
    cleanups.push(() => busy.close());
    const other = await busy.redirectUri([earlier]);
    expect(other).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(other).not.toBe(earlier);
  });

  it('stops waiting when the signal aborts', async () => {
    const redirect = new LoopbackRedirect({ show: () => undefined });
    cleanups.push(() => redirect.close());
    const controller = new AbortController();
    const waiting = redirect.authorize({ url: new URL('https://as.example.com/a'), redirectUri: await redirect.redirectUri(), signal: controller.signal });
    controller.abort(new Error('cancelled by the user'));
    await expect(waiting).rejects.toThrow('cancelled by the user');
  });
});

describe('FileTokenStore', () => {
  it('keeps entries in a 0600 file, loses none when saves overlap, and deletes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-store-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'nested', 'tokens.json');
    const store = new FileTokenStore(path);
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.set(`https://s${i}.example/mcp`, { clients: {}, issuer: `https://as${i}.example` })));
    expect((await store.servers()).sort()).toHaveLength(10);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect((await store.get('https://s3.example/mcp'))?.issuer).toBe('https://as3.example');
    await store.delete('https://s3.example/mcp');
    expect(await store.get('https://s3.example/mcp')).toBeUndefined();
    expect(JSON.parse(readFileSync(path, 'utf8')).version).toBe(1);
  });

  it('reads a missing or damaged file as empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-store-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    expect(await new FileTokenStore(join(dir, 'none.json')).get('x')).toBeUndefined();
    writeFileSync(join(dir, 'bad.json'), '{not json');
    const damaged = new FileTokenStore(join(dir, 'bad.json'));
    expect(await damaged.get('x')).toBeUndefined();
    await damaged.set('x', { clients: {} });
    expect(await damaged.get('x')).toEqual({ clients: {} });
  });
});
