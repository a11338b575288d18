/**
 * An MCP app for the browser example: a board of deployments. The model's
 * tool `show_deployments` opens it; the app's own `refresh_deployments` (kept
 * from the model: visibility `app`) reloads it; its Deploy button calls the
 * `deploy` tool, whose confirmation the host asks in its own page. The page is
 * plain HTML and script speaking the app protocol over postMessage — no SDK
 * (the official `App` class from @modelcontextprotocol/ext-apps works as well).
 */

import { z } from 'zod';
import type { McpServer } from 'tessera-mcp';
import { registerApp } from 'tessera-mcp/apps';
import { deploymentHistory } from '../deploy.js';

const BOARD_HTML = String.raw`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Deployments</title>
    <style>
      body { font: 14px/1.4 system-ui, sans-serif; margin: 0; padding: 0.6rem 0.8rem; color: #222; }
      h2 { font-size: 1rem; margin: 0 0 0.4rem; } ul { margin: 0.3rem 0; padding-left: 1.1rem; }
      form { display: flex; gap: 0.4rem; margin: 0.5rem 0; } #status { color: #555; margin: 0.3rem 0 0; }
    </style>
  </head>
  <body>
    <h2 id="title">Deployments</h2>
    <ul id="list"><li>Waiting for the tool's result…</li></ul>
    <form id="deploy"><input name="service" value="api" aria-label="Service" /><button type="submit">Deploy</button></form>
    <p id="status"></p>
    <script>
      const $ = (id) => document.getElementById(id);
      const post = (message) => parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
      const waiting = new Map();
      let nextId = 1;
      let env = 'staging';
      const request = (method, params) =>
        new Promise((resolve, reject) => {
          const id = nextId++;
          waiting.set(id, { resolve, reject });
          post({ id, method, params });
        });
      const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      function show(board) {
        env = board.env;
        $('title').textContent = 'Deployments to ' + board.env;
        const items = board.deployments.map((d) => Object.assign(document.createElement('li'), { textContent: d.id }));
        $('list').replaceChildren(...(items.length ? items : [Object.assign(document.createElement('li'), { textContent: 'none yet' })]));
        $('deploy').querySelector('button').textContent = 'Deploy to ' + board.env;
      }
      addEventListener('message', (event) => {
        const message = event.data;
        if (event.source !== parent || message?.jsonrpc !== '2.0') return;
        if (message.method === undefined) {
          const pending = waiting.get(message.id);
          waiting.delete(message.id);
          if (message.error) pending?.reject(new Error(message.error.message));
          else pending?.resolve(message.result);
        } else if (message.method === 'ui/notifications/tool-input') {
          env = message.params.arguments.env ?? env;
        } else if (message.method === 'ui/notifications/tool-result') {
          show(message.params.structuredContent);
        } else if (message.method === 'ui/resource-teardown') {
          post({ id: message.id, result: {} });
        }
      });
      $('deploy').addEventListener('submit', async (event) => {
        event.preventDefault();
        const service = event.target.elements.service.value;
        $('status').textContent = 'Deploying ' + service + '…';
        try {
          // The server asks for a confirmation: the host shows it and answers it.
          $('status').textContent = textOf(await request('tools/call', { name: 'deploy', arguments: { service, env } }));
          show((await request('tools/call', { name: 'refresh_deployments', arguments: { env } })).structuredContent);
        } catch (error) {
          $('status').textContent = 'Failed: ' + error.message;
        }
      });
      new ResizeObserver(() => post({ method: 'ui/notifications/size-changed', params: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight } })).observe(document.body);
      request('ui/initialize', { protocolVersion: '2026-01-26', appInfo: { name: 'deploy-board', version: '0.1.0' }, appCapabilities: {} }).then(() =>
        post({ method: 'ui/notifications/initialized' }),
      );
    </script>
  </body>
</html>`;

const Board = z.object({ env: z.string(), deployments: z.array(z.object({ id: z.string(), service: z.string(), env: z.string() })) });

function board(env: string): z.infer<typeof Board> {
  return { env, deployments: deploymentHistory().filter((d) => d.env === env) };
}

export function addDeployBoard(server: McpServer): void {
  const input = z.object({ env: z.enum(['staging', 'prod']) });
  registerApp(server, { uri: 'ui://deploy/board', name: 'deploy-board', title: 'Deployments', html: BOARD_HTML, prefersBorder: true })
    .tool('show_deployments', { description: 'Show the deployments to an environment on a board.', input, output: Board }, ({ env }) => {
      const shown = board(env);
      return { content: [{ type: 'text', text: `${shown.deployments.length} deployment(s) to ${env}.` }], structuredContent: shown };
    })
    .tool('refresh_deployments', { description: 'Reload the board.', input, output: Board, visibility: ['app'] }, ({ env }) => ({ structuredContent: board(env) }));
}
