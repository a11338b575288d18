/**
 * The framework examples (examples/express.ts, fastify.ts, hono.ts), built
 * and run as a user runs them — `node dist/examples/<name>.js` with PORT and
 * HOST — each serving the deploy tool at /mcp behind its framework's JSON body
 * parser: the deploy flow (ask, confirm, deploy once) through Tessera's
 * client. And `npm start`'s server on a busy port: one line, exit code 1.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/client.js';
import { compiledFile, ROOT, stopAll, stopPid, trackPid } from '../helpers/child-processes.js';

afterAll(stopAll);

interface Started {
  child: ChildProcess;
  url: string;
}

/** Runs a built example with PORT=0 (any free port) and resolves with the endpoint it prints. */
function startExample(name: string): Promise<Started> {
  const file = compiledFile(`examples/${name}.js`, [`${ROOT}examples/${name}.ts`]);
  const child = spawn(process.execPath, [file], { cwd: ROOT, env: { ...process.env, PORT: '0', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  trackPid(child.pid);
  let output = '';
  return new Promise((resolve, reject) => {
    const seen = (text: string): void => {
      output += text;
      const match = / on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(output);
      if (match) resolve({ child, url: match[1]! });
    };
    child.stdout!.setEncoding('utf8').on('data', seen);
    child.stderr!.setEncoding('utf8').on('data', seen);
    child.once('exit', (code, signal) => reject(new Error(`${name} exited (${signal ?? code}) before listening: ${output}`)));
  });
}

describe.each(['express', 'fastify', 'hono'])('examples/%s.ts', (name) => {
  it('serves the deploy tool on /mcp: the client is asked, confirms, and the service is deployed', async () => {
    const { child, url } = await startExample(name);
    const asked: string[] = [];
    const client = new Client(
      { name: 'example-test', version: '1.0.0' },
      {
        requestTimeoutMs: 10_000,
        elicitation: {
          form: async (params) => {
            asked.push(params.message);
            return { action: 'accept', content: { approve: true } };
          },
        },
      },
    );
    try {
      await client.connect(url);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['deploy']);
      const result = await client.callTool('deploy', { service: 'api', env: 'prod' });
      expect(result.content).toEqual([{ type: 'text', text: 'Deployed api to prod (deployment api-prod-1).' }]);
      expect(asked).toEqual(['Deploy api to prod?']);
      expect(await (await fetch(new URL('/health', url))).text()).toBe('ok');
    } finally {
      await client.close();
      stopPid(child.pid);
    }
  });
});

describe("npm start's server (examples/server.ts)", () => {
  let busy: Server | undefined;
  afterAll(() => busy?.close());

  it('on a busy port: one line that says so, no stack trace, exit code 1', async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy!.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    const file = compiledFile('examples/server.js', [`${ROOT}examples/server.ts`, `${ROOT}examples/listen-address.ts`]);
    const child = spawn(process.execPath, [file], { cwd: ROOT, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    trackPid(child.pid);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`Port ${port} on 127.0.0.1 is already in use (another server is running there): stop it, or pick another port, e.g. PORT=3000.`);
  });
});
