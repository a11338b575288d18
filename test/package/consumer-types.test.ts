/**
 * What a TypeScript user of the built package needs: the portable entries
 * (the root, /client, /protocol, /fetch, /skills, /apps, /apps-host) compile in a project with no @types/node (a
 * browser or Worker project) and no skipLibCheck; the Node entries compile
 * once @types/node is there, as the README says.
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledFile, ROOT } from '../helpers/child-processes.js';

const project = mkdtempSync(join(tmpdir(), 'tessera-consumer-'));
mkdirSync(join(project, 'node_modules'));
symlinkSync(ROOT, join(project, 'node_modules', 'tessera-mcp'));
// The frameworks an app of each adapter installs itself (they are the library's optional peers).
mkdirSync(join(project, 'node_modules', '@types'));
for (const name of ['express', 'fastify', 'hono', '@hono/node-server', '@types/express']) {
  if (name.startsWith('@hono/')) mkdirSync(join(project, 'node_modules', '@hono'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', name), join(project, 'node_modules', name));
}
afterAll(() => rmSync(project, { recursive: true, force: true }));

function compile(name: string, code: string, types: string[]): string {
  writeFileSync(join(project, `${name}.ts`), code);
  const config = { compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types, typeRoots: [`${ROOT}node_modules/@types`], noEmit: true, skipLibCheck: false }, files: [`${name}.ts`] };
  writeFileSync(join(project, `tsconfig.${name}.json`), JSON.stringify(config));
  try {
    execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', join(project, `tsconfig.${name}.json`)], { encoding: 'utf8' });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

describe('a TypeScript project using the built package', () => {
  compiledFile('src/index.d.ts', [`${ROOT}src/index.ts`]);

  it('needs no @types/node for the root, /client, /protocol, /fetch, /skills, /apps and /apps-host', () => {
    const code = [
      "import { McpServer, ask, McpError } from 'tessera-mcp';",
      "import { Client, HttpClientTransport } from 'tessera-mcp/client';",
      "import { isObject, LATEST_PROTOCOL_VERSION, type CallToolResult, type RequestHandler } from 'tessera-mcp/protocol';",
      "import { createFetchHandler } from 'tessera-mcp/fetch';",
      "import { skills, skillLibrary, SkillsClient } from 'tessera-mcp/skills';",
      "import { apps, registerApp } from 'tessera-mcp/apps';",
      "import { appsCapabilities, modelTools, openApp, sandboxProxyHtml, type AppView } from 'tessera-mcp/apps-host';",
      "const server = new McpServer({ name: 'x', version: '1.0.0' }, { extensions: [apps()] });",
      "export const withSkills = skillLibrary([{ files: { 'SKILL.md': '---\\nname: a\\ndescription: b\\n---\\n' } }]).then((library) => new McpServer({ name: 'y', version: '1.0.0' }, { extensions: [skills(library)] }));",
      "server.tool('t', { description: 'd', input: { type: 'object' } }, async () => 'ok');",
      "registerApp(server, { uri: 'ui://x/app', name: 'app', html: '<!doctype html>', csp: { connectDomains: ['https://api.example.com'] } }).tool('u', { visibility: ['app'] }, async () => 'ok');",
      'const handle: (request: Request) => Promise<Response> = createFetchHandler(server);',
      'const asHandler: RequestHandler = server;',
      "const result: CallToolResult = { content: [{ type: 'text', text: LATEST_PROTOCOL_VERSION }], isError: !isObject(asHandler) };",
      "const client = new Client({ name: 'c', version: '1.0.0' }, { capabilities: appsCapabilities() });",
      'const skillsClient = new SkillsClient(client);',
      'const open = (container: HTMLElement): Promise<AppView> => openApp({ client, tool: { name: "u", inputSchema: {} }, container, sandbox: "https://sandbox.example.com/" });',
      'export { handle, asHandler, result, client, skillsClient, ask, McpError, HttpClientTransport, open, modelTools, sandboxProxyHtml };',
    ].join('\n');
    expect(compile('portable', code, [])).toBe('');
  }, 60_000);

  it('compiles the Node entries with @types/node', () => {
    const code = [
      "import { McpServer } from 'tessera-mcp';",
      "import { serveHttp, FileTokenStore } from 'tessera-mcp/node';",
      "import { serveStdio, StdioClientTransport } from 'tessera-mcp/stdio';",
      "import { skills } from 'tessera-mcp/skills';",
      "import { loadSkillDirectory } from 'tessera-mcp/skills/node';",
      "const server = new McpServer({ name: 'x', version: '1.0.0' });",
      'export const running = serveHttp(server, { port: 0 });',
      "export const withSkills = loadSkillDirectory(new URL('file:///srv/skills/')).then((library) => new McpServer({ name: 'y', version: '1.0.0' }, { extensions: [skills(library)] }));",
      'export { serveStdio, StdioClientTransport, FileTokenStore };',
    ].join('\n');
    expect(compile('node', code, ['node'])).toBe('');
  }, 60_000);

  it("compiles an app of each framework with its adapter (the frameworks' own types, no skipLibCheck)", () => {
    const code = [
      "import express from 'express';",
      "import Fastify from 'fastify';",
      "import { Hono } from 'hono';",
      "import { McpServer } from 'tessera-mcp';",
      "import { mcpExpress } from 'tessera-mcp/express';",
      "import { mcpFastify } from 'tessera-mcp/fastify';",
      "import { mcpHono } from 'tessera-mcp/hono';",
      "const server = new McpServer({ name: 'x', version: '1.0.0' });",
      'const mcp = mcpExpress(server, { maxBodyBytes: 1024 });',
      'const app = express();',
      'app.use(express.json());',
      'app.use(mcp.metadata);',
      "app.use('/mcp', mcp);",
      "app.all('/other', mcp);",
      'const fastify = Fastify();',
      "export const registered = fastify.register(mcpFastify(server), { prefix: '/mcp' }).register(mcpFastify(server).metadata);",
      'const hono = new Hono();',
      'const handler = mcpHono(server);',
      'hono.use(handler.metadata);',
      "hono.all('/mcp', handler);",
      'export { app, hono };',
    ].join('\n');
    expect(compile('frameworks', code, ['node'])).toBe('');
  }, 60_000);

  it('types what a handler keeps between rounds (RequestContext<State>), and answers built in branches (ElicitResult from /client)', () => {
    const code = [
      "import { McpServer, type RequestContext } from 'tessera-mcp';",
      "import { Client, type ElicitResult } from 'tessera-mcp/client';",
      'interface Progress { step: 2 | 3; plan: string[] }',
      "const server = new McpServer({ name: 'x', version: '1.0.0' });",
      "server.tool('wizard', { description: 'd' }, async (_args, ctx: RequestContext<Progress>) => {",
      '  const state = ctx.state;',
      "  if (state === undefined) return ctx.inputRequired({ state: { step: 2, plan: ['a'] } });",
      '  const plan: string[] = state.plan;',
      "  return plan.join(',');",
      '});',
      "server.prompt('p', { description: 'd' }, (_args, ctx: RequestContext<{ tone: string }>) => ctx.state?.tone ?? 'plain');",
      "server.resource({ uri: 'a://b', name: 'b' }, (_uri, ctx: RequestContext<number>) => String(ctx.state ?? 0));",
      "const client = new Client({ name: 'c', version: '1.0.0' }, { elicitation: { form: async (params) => {",
      "  const declined: ElicitResult = { action: 'decline' };",
      "  if (params.message === '') return declined;",
      "  return { action: 'accept', content: { ok: true } };",
      '} } });',
      'export { client };',
    ].join('\n');
    expect(compile('typed-state', code, [])).toBe('');
    // And the state's type is held to: a step the type does not allow is a compile error.
    const wrong = code.replace('step: 2, plan', 'step: 7, plan');
    expect(compile('typed-state-wrong', wrong, [])).toContain('typed-state-wrong.ts');
  }, 60_000);

  it("types a client's request by its method's params: a tool's name must be a string, a read needs its uri", () => {
    const code = [
      "import { Client } from 'tessera-mcp/client';",
      "const client = new Client({ name: 'c', version: '1.0.0' });",
      "export const call = () => client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });",
      "export const read = () => client.request('resources/read', { uri: 'file:///a' });",
    ].join('\n');
    expect(compile('typed-params', code, [])).toBe('');
    // A number for the name, or a read without its uri, does not compile (before, every key but _meta was lost to the index signature).
    expect(compile('typed-params-name', code.replace("{ name: 'echo',", '{ name: 42,'), [])).toMatch(/typed-params-name\.ts.*not assignable to type 'string'/s);
    expect(compile('typed-params-uri', code.replace("{ uri: 'file:///a' }", '{}'), [])).toMatch(/typed-params-uri\.ts.*uri/s);
  }, 60_000);
});
