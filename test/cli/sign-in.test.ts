/**
 * `tessera call` against a server that requires OAuth, in a pseudo-terminal
 * as a person runs it: it prints the sign-in URL, the test follows it (login
 * and consent over HTTP, then the redirect to the CLI's 127.0.0.1 listener),
 * the call completes; the next run uses the stored token without signing in;
 * `tessera logout` forgets it. The config directory is a temporary one. Run
 * against the small raw protected server and against Tessera's own.
 */

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../helpers/child-processes.js';
import { runCli, TerminalSession } from '../helpers/cli.js';
import { startAuthorizationServer, TestBrowser, type RunningAuthorizationServer } from '../helpers/authorization-server.js';
import { startProtectedServer } from '../helpers/protected-mcp-server.js';
import { startProtectedTessera } from '../helpers/protected-tessera.js';

/** What the tests need of a protected server and its authorization server. */
interface Protected {
  url: string;
  resource: string;
  as: RunningAuthorizationServer;
  /** Whether any request was a 2025-11-25 initialize. */
  sawInitialize(): boolean;
  close(): Promise<void>;
}

const SERVERS: Record<string, () => Promise<Protected>> = {
  'the raw protected server': async () => {
    const as = await startAuthorizationServer();
    const server = await startProtectedServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
    return {
      url: server.url,
      resource: server.resource,
      as,
      sawInitialize: () => server.log.requests.some((r) => r.method === 'initialize'),
      close: async () => {
        await server.close();
        await as.close();
      },
    };
  },
  "Tessera's protected server": async () => {
    const t = await startProtectedTessera({
      tools: (server) => server.tool('whoami', { description: 'Says hello.' }, async (_args, ctx) => `hello from a protected server (${ctx.auth?.subject})`),
    });
    return {
      url: t.url,
      resource: t.url,
      as: t.as,
      // A 2025 initialize is a POST without Mcp-Method.
      sawInitialize: () => t.requests.some((r) => r.httpMethod === 'POST' && r.method === undefined),
      close: () => t.close(),
    };
  },
};

afterAll(() => {
  stopAll();
});

describe.each(Object.keys(SERVERS))('tessera call against %s', (kind) => {
  let server: Protected;
  let as: RunningAuthorizationServer;
  let configDir: string;

  beforeAll(async () => {
    server = await SERVERS[kind]!();
    as = server.as;
    configDir = mkdtempSync(join(tmpdir(), 'tessera-config-'));
  });

  afterAll(async () => {
    await server?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('prints the sign-in URL, receives the redirect on 127.0.0.1, completes the call, and keeps the tokens in a 0600 file', async () => {
    const session = new TerminalSession(['call', server.url, 'whoami'], { env: { TESSERA_CONFIG_DIR: configDir } });
    try {
      await session.waitFor('open this URL in a browser');
      await session.waitFor('Waiting for the sign-in to finish');
      const printed = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(session.transcript)?.[1];
      expect(printed).toBeDefined();
      const url = new URL(printed!);
      const redirectUri = url.searchParams.get('redirect_uri')!;
      expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect(url.searchParams.get('resource')).toBe(server.resource);

      // The person's browser: sign in and consent, then land on the CLI's loopback listener.
      const landing = await new TestBrowser().follow(url, redirectUri);
      const page = await fetch(landing);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Signed in');

      expect(await session.exited).toBe(0);
      expect(session.transcript).toContain('hello from a protected server');
    } finally {
      session.stop();
    }
    const file = join(configDir, 'tokens.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(as.log.authorizations).toHaveLength(1);
  });

  it('uses the stored token next time without signing in', async () => {
    const run = await runCli(['call', server.url, 'whoami'], { env: { TESSERA_CONFIG_DIR: configDir } });
    expect(run.stderr).not.toContain('Sign in');
    expect(run.stdout).toContain('hello from a protected server');
    expect(run.code).toBe(0);
    expect(as.log.authorizations).toHaveLength(1);
  });

  it('forgets the sign-in on logout; then, without a terminal, says in one line what to do', async () => {
    const logout = await runCli(['logout', server.url], { env: { TESSERA_CONFIG_DIR: configDir } });
    expect(logout.stdout).toContain(`Signed out of ${server.url}.`);
    expect(logout.code).toBe(0);

    const run = await runCli(['call', server.url, 'whoami'], { env: { TESSERA_CONFIG_DIR: configDir } });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('requires signing in, and there is no terminal');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // Not a 2025 server: the CLI never tried initialize; and it registered nothing it could not use.
    expect(server.sawInitialize()).toBe(false);
    expect(as.log.registrations).toHaveLength(1);
  });
});
