/**
 * `tessera serve <module> --auth-issuer <url>`: any module served as an
 * OAuth protected resource trusting a real authorization server
 * (oidc-provider) — its metadata, a 401 without a token, the caller seen by
 * the module's tool, `--auth-scopes` enforced, and `tessera call` signing in
 * to it with client credentials. Misuse is a usage error (exit 2).
 */

import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceClient, startAuthorizationServer, type RunningAuthorizationServer } from '../helpers/authorization-server.js';
import { ROOT, stopAll } from '../helpers/child-processes.js';
import { runCli, startServe, type Background } from '../helpers/cli.js';
import { rpc } from '../helpers/http.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tessera-serve-auth-')));
const INDEX = pathToFileURL(`${ROOT}dist/src/index.js`).href;
const moduleFile = join(dir, 'who-server.mjs');
writeFileSync(
  moduleFile,
  `import { McpServer } from ${JSON.stringify(INDEX)};
export const server = new McpServer({ name: 'who', version: '0.0.1' });
server.tool('who', {}, async (_args, ctx) => \`you are \${ctx.auth?.subject} via \${ctx.auth?.clientId}\`);
`,
);

let as: RunningAuthorizationServer;
let served: { url: string; server: Background };

beforeAll(async () => {
  as = await startAuthorizationServer({ resourceScopes: ['mcp:read', 'mcp:write'], clients: [serviceClient('script')] });
  served = await startServe([moduleFile, '--auth-issuer', as.issuer, '--auth-scopes', 'mcp:read']);
});

afterAll(async () => {
  stopAll();
  await as?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tessera serve --auth-issuer', () => {
  it('says it is protected, and serves the metadata naming the issuer and the served URL as the resource', async () => {
    const [line] = await served.server.waitFor(/Protected: .*/);
    expect(line).toBe(`Protected: access tokens (JWTs from ${as.issuer}) for ${served.url}, scopes mcp:read`);
    const metadata = await (await fetch(`${new URL(served.url).origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: served.url, authorization_servers: [as.issuer], scopes_supported: ['mcp:read'] });
  });

  it('answers 401 without a token, and lets the module see the caller of a valid one', async () => {
    expect((await rpc(served.url, 'tools/list', {}, { skipValidation: true })).status).toBe(401);
    const token = await as.clientCredentialsToken({ clientId: 'script', resource: served.url, scope: 'mcp:read' });
    const reply = await rpc(served.url, 'tools/call', { name: 'who', arguments: {} }, { headers: { authorization: `Bearer ${token.accessToken}` } });
    expect(JSON.stringify(reply.response)).toContain('you are script via script');
    const unscoped = await as.clientCredentialsToken({ clientId: 'script', resource: served.url, scope: 'mcp:write' });
    expect((await rpc(served.url, 'tools/list', {}, { headers: { authorization: `Bearer ${unscoped.accessToken}` }, skipValidation: true })).status).toBe(403);
  });

  it('is what `tessera call --client-credentials` signs in to', async () => {
    const config = mkdtempSync(join(tmpdir(), 'tessera-config-'));
    try {
      const run = await runCli(['call', served.url, 'who', '--client-credentials', '--client-id', 'script', '--client-secret', 'script-secret'], { env: { TESSERA_CONFIG_DIR: config } });
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain('you are script via script');
      expect(run.code).toBe(0);
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });

  it.each([
    [['--stdio', '--auth-issuer', 'https://as.example.com'], 'stdio'],
    [['--auth-scopes', 'mcp:read'], 'need --auth-issuer'],
    [['--host', '0.0.0.0', '--auth-issuer', 'https://as.example.com'], '--auth-resource'],
    [['--auth-issuer', 'not a url'], 'not an http(s) URL'],
    [['--auth-issuer', 'https://as.example.com', '--auth-introspection-client', 'rs'], 'TESSERA_AUTH_CLIENT_SECRET'],
  ])('refuses %j with a usage error', async (args, says) => {
    const run = await runCli(['serve', moduleFile, ...args], { env: { TESSERA_AUTH_CLIENT_SECRET: '' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(says);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
