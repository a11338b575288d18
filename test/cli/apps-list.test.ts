/**
 * `tessera list` marks the tools that have an MCP app (SEP-1865: `_meta.ui.resourceUri`),
 * against a Tessera server with apps. The CLI renders no apps and does not say it
 * does, so the server keeps the app-only tool from it.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/index.js';
import { apps, registerApp } from '../../src/apps.js';
import type { RunningHttpServer } from '../../src/node.js';
import { runCli, stripAnsi } from '../helpers/cli.js';
import { startHttp } from '../helpers/http.js';

let running: RunningHttpServer;

beforeAll(async () => {
  const server = new McpServer({ name: 'apps-list', version: '1.0.0' }, { extensions: [apps()] });
  server.tool('plain', { description: 'No app.' }, () => 'plain');
  registerApp(server, { uri: 'ui://board/main', name: 'board', html: '<!doctype html><p>board</p>' })
    .tool('show_board', { description: 'Shows the board.' }, () => 'board')
    .tool('refresh_board', { visibility: ['app'] }, () => 'refreshed');
  running = await startHttp(server);
});

afterAll(async () => {
  await running?.close();
});

describe('tessera list', () => {
  it('marks a tool that has an app with its ui:// URI, and lists no app-only tool', async () => {
    const run = await runCli(['list', running.url]);
    expect(run.code).toBe(0);
    const text = stripAnsi(run.stdout);
    expect(text).toContain('Tools\n  plain\n      No app.\n  show_board [app ui://board/main]\n      Shows the board.\n');
    expect(text).not.toContain('refresh_board');
    expect(text).toContain('Resources\n  ui://board/main (board)');
  });
});
