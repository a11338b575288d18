/**
 * The official TypeScript SDK v2 (2.4.0) serving 2025-11-25 sessions: its
 * session-ful `WebStandardStreamableHTTPServerTransport` (a
 * `sessionIdGenerator`), one transport and one `McpServer` per session as
 * the SDK requires, kept in a map by session id until the client's DELETE.
 * The stateless `createMcpHandler` of servers/official.ts has no sessions
 * (`legacy: 'reject'` refuses 2025 traffic, `'stateless'` answers GET and
 * DELETE with 405), so the scale phase's session rows use this one.
 *
 * At its best for those rows: the echo tool only, JSON replies
 * (`enableJsonResponse`, as Tessera answers), no event store (no
 * resumability: Tessera's GET streams keep a bounded in-memory log, so this
 * side is the lighter one), no Host/Origin check (the SDK leaves it to
 * middleware; Tessera's is on).
 *
 *   node dist/bench/servers/official-sessions.js   (prints "listening <url>" on stderr)
 *   --keep-alive-ms N   idle kept-alive connections stay open N ms (default 65 s, as Tessera's serveHttp)
 */

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { nodeListener } from '../../fixtures/official-http-adapter.js';
import { ECHO_TOOL, SERVER_VERSION } from '../tools/catalog.js';
import { EchoInput } from '../tools/schemas.js';
import { announceListening, KEEP_ALIVE_OPTION } from './diagnostics.js';

const { values } = parseArgs({ options: KEEP_ALIVE_OPTION });

interface Session {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
}

/** The open sessions by id: a session lives here from its initialize to its DELETE. */
const sessions = new Map<string, Session>();

function makeServer(): McpServer {
  const server = new McpServer({ name: 'official-sessions-bench', version: SERVER_VERSION }, { capabilities: { tools: {} } });
  server.registerTool(ECHO_TOOL, { description: 'Returns its text', inputSchema: EchoInput }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

function jsonError(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
}

async function serve(request: Request): Promise<Response> {
  const sessionId = request.headers.get('mcp-session-id');
  if (sessionId !== null) {
    const session = sessions.get(sessionId);
    return session ? session.transport.handleRequest(request) : jsonError(404, 'Session not found');
  }
  if (request.method !== 'POST') return jsonError(400, 'Bad request: no session id');
  // No session id: this must be an initialize, which makes a session (the transport refuses anything else).
  const server = makeServer();
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (id) => {
      sessions.set(id, { server, transport });
    },
    onsessionclosed: (id) => {
      sessions.delete(id);
      void server.close();
    },
  });
  await server.connect(transport);
  const response = await transport.handleRequest(request);
  if (transport.sessionId === undefined) await server.close(); // refused: no session was made
  return response;
}

const server = createServer();
server.keepAliveTimeout = Number(values['keep-alive-ms']);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
server.on('request', nodeListener({ fetch: serve }, 'official-sessions-bench'));
await announceListening(
  `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
  async () => {
    await Promise.all([...sessions.values()].map((s) => s.server.close()));
    server.closeAllConnections();
    server.close();
  },
  () => ({ sessions: sessions.size }),
);
