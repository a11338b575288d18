/**
 * Tessera's own protected server for tests: an authorization server
 * (oidc-provider, test/helpers/authorization-server.ts) with a few clients,
 * and a Tessera McpServer served with `auth: protectedResource(…)` trusting
 * it. The server's tools report who called (`ctx.auth`, `ctx.principal`),
 * need scopes, ask questions (MRTR) and run as tasks, so that tests can
 * check the challenges, the scopes and the caller bound into every flow.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { ask, McpServer, protectedResource, type McpServerOptions, type ProtectedResourceOptions } from '../../src/index.js';
import { createNodeHandler, type NodeHandlerOptions } from '../../src/node.js';
import { appClient, introspectingClient, serviceClient, startAuthorizationServer, type AuthorizationServerOptions, type IssuedToken, type RunningAuthorizationServer } from './authorization-server.js';
import { quietLogger } from './results.js';

export const RESOURCE_SCOPES = ['mcp:read', 'mcp:write', 'deploy', 'admin'];

/** The tools, prompt and resources every protected test server has. */
export function protectedTools(server: McpServer): void {
  server.tool('whoami', { description: 'Says who called.' }, async (_args, ctx) =>
    JSON.stringify({ principal: ctx.principal ?? null, auth: ctx.auth ? { subject: ctx.auth.subject, clientId: ctx.auth.clientId, issuer: ctx.auth.issuer, scopes: ctx.auth.scopes } : null }),
  );
  // Declares it may ask for sampling, so a request that did not declare sampling has its notifications held.
  server.tool('whoami-may-sample', { description: 'Says who called; might ask.', asks: ['sampling'] }, async (_args, ctx) =>
    JSON.stringify({ auth: ctx.auth ? { subject: ctx.auth.subject, clientId: ctx.auth.clientId } : null }),
  );
  server.tool('deploy', { description: 'Needs the deploy scope.', scopes: ['deploy'], input: z.object({ service: z.string() }) }, async ({ service }, ctx) => `deployed ${service} for ${ctx.auth?.subject}`);
  server.tool('rotate-keys', { description: 'Needs two scopes.', scopes: ['deploy', 'mcp:write'] }, async () => 'rotated');
  let runs = 0;
  server.tool(
    'confirm',
    { description: 'Asks, then says who answered.', input: z.object({ item: z.string() }) },
    async ({ item }, ctx) => {
      const answer = await ctx.ask(ask.form(`Confirm ${item}?`, z.object({ ok: z.boolean() }), { key: 'ok' }));
      runs += 1;
      return `${item}: ${answer.action === 'accept' && answer.content.ok ? 'confirmed' : 'declined'} by ${ctx.auth?.subject ?? 'nobody'} (run ${runs})`;
    },
  );
  server.tool(
    'slow-job',
    { description: 'A task.', task: 'optional' },
    async (_args, ctx) =>
      ctx.task(async (task) => {
        const answer = await task.ask(ask.form('Go on?', z.object({ ok: z.boolean() }), { key: 'go' }));
        return `job done for ${ctx.auth?.subject}: ${answer.action}`;
      }),
  );
  server.prompt('secret-prompt', { description: 'Needs admin.', scopes: ['admin'] }, async () => 'the secret prompt');
  server.resource({ uri: 'memo://public', name: 'public' }, async () => 'public memo');
  server.resource({ uri: 'memo://private', name: 'private', scopes: ['admin'] }, async () => 'private memo');
  server.resourceTemplate({ uriTemplate: 'vault://{name}', name: 'vault', scopes: ['admin'] }, async (_uri, { name }) => `vault ${name}`);
}

/** One HTTP request as the protected server saw it. */
export interface SeenRequest {
  httpMethod: string;
  /** `Mcp-Method`, when the request had one. */
  method: string | undefined;
  authorization: string | undefined;
  status: number;
}

export interface ProtectedTessera {
  as: RunningAuthorizationServer;
  server: McpServer;
  /** The MCP endpoint (and resource). */
  url: string;
  /** Every HTTP request, with the status it got. */
  requests: SeenRequest[];
  /** A client credentials token for `clientId` (service-a, service-b, …) with these scopes. */
  serviceToken(clientId: string, scope?: string): Promise<IssuedToken>;
  /** A user's token through an app client (app-1, app-2). */
  userToken(user: string, clientId?: string, scope?: string): Promise<IssuedToken>;
  close(): Promise<void>;
}

export interface ProtectedTesseraOptions {
  authorizationServer?: AuthorizationServerOptions;
  resource?: Partial<ProtectedResourceOptions>;
  serve?: Partial<NodeHandlerOptions>;
  server?: McpServerOptions;
  tools?: (server: McpServer) => void;
}

export const CLIENTS = [serviceClient('service-a'), serviceClient('service-b'), appClient('app-1'), appClient('app-2'), introspectingClient('the-resource-server')];

export async function startProtectedTessera(options: ProtectedTesseraOptions = {}): Promise<ProtectedTessera> {
  const as = await startAuthorizationServer({ resourceScopes: RESOURCE_SCOPES, clients: CLIENTS, ...options.authorizationServer });
  const server = new McpServer({ name: 'protected-tessera', version: '1.0.0' }, { logger: quietLogger(), ...options.server });
  (options.tools ?? protectedTools)(server);
  // node:http around Tessera's own handler, only to see every request and its status (refused ones too).
  const requests: SeenRequest[] = [];
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const handler = createNodeHandler(server, {
    auth: protectedResource({ issuer: as.issuer, scopes: ['mcp:read'], logger: { warn: () => undefined }, ...options.resource }),
    endpoint: url,
    ...options.serve,
  });
  http.on('request', (req, res) => {
    const seen: SeenRequest = { httpMethod: req.method ?? '', method: req.headers['mcp-method'] as string | undefined, authorization: req.headers.authorization, status: 0 };
    requests.push(seen);
    res.on('finish', () => (seen.status = res.statusCode));
    handler(req, res);
  });
  return {
    as,
    server,
    url,
    requests,
    serviceToken: (clientId, scope = 'mcp:read') => as.clientCredentialsToken({ clientId, resource: url, scope }),
    userToken: (user, clientId = 'app-1', scope = 'mcp:read') => as.userToken({ user, clientId, resource: url, scope }),
    close: async () => {
      server.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await as.close();
    },
  };
}

/** The bearer header for a token. */
export function bearer(token: IssuedToken | string): Record<string, string> {
  return { authorization: `Bearer ${typeof token === 'string' ? token : token.accessToken}` };
}
