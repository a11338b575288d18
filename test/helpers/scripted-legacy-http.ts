/**
 * A scripted 2025-11-25 Streamable HTTP server on node:http (127.0.0.1), for
 * client tests; nothing here uses Tessera's server code. It records every HTTP
 * request (method, headers, parsed body) and behaves as a sessionful 2025 server:
 *
 * - POST without a session: `initialize` → result + `Mcp-Session-Id`; anything
 *   else (a 2026 probe) → 400 with a non-2026 JSON-RPC error, as 2025 SDK servers answer;
 * - POST with another session id → 404; notifications and responses → 202;
 * - `tools/call` `echo` → JSON; `hang` → an SSE stream that never answers;
 *   `ask-all` → an SSE stream carrying
 *   elicitation/create, sampling/createMessage, roots/list and ping requests,
 *   then (once all four answers were POSTed) the result; `resume-me` → an SSE
 *   stream with only a priming event (`id`, `retry: 100`, empty data) that ends
 *   without the response, which is then served on a GET carrying that
 *   `Last-Event-ID`;
 * - GET without `Last-Event-ID` → the standalone stream, held open, carrying one
 *   `ping` request (id `get-ping`); DELETE → 200 and ends the session's streams.
 */

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Changes } from './changes.js';

export type Json = Record<string, any>;

export const SCRIPTED_SESSION_ID = 'sess-2025-abc';
export const PRIMING_EVENT_ID = 'ev-1';

export interface SeenHttp {
  method: string;
  headers: IncomingHttpHeaders;
  /** The parsed body (POST). */
  message: Json | undefined;
}

export interface ScriptedLegacyHttp {
  url: string;
  seen: SeenHttp[];
  /** Bodies of POSTs that were JSON-RPC responses (the client's answers to server requests). */
  answers(): Json[];
  /** Resolves once a recorded request satisfies `check` (rejects after `timeoutMs`, a guard against hangs). */
  waitFor(what: string, check: (seen: SeenHttp) => boolean, timeoutMs?: number): Promise<SeenHttp>;
  close(): Promise<void>;
}

function sse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

function event(message: Json, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(message)}\n\n`;
}

export async function startScriptedLegacyHttp(): Promise<ScriptedLegacyHttp> {
  const seen: SeenHttp[] = [];
  const changes = new Changes();
  const answerWaiters = new Map<string, (message: Json) => void>();
  const openStreams = new Set<ServerResponse>();
  /** The tools/call whose response waits for a resumption GET. */
  let resumable: Json | undefined;

  const record = (entry: SeenHttp): void => {
    seen.push(entry);
    changes.changed();
  };

  const answerOf = (id: string): Promise<Json> => new Promise((resolve) => answerWaiters.set(id, resolve));

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let message: Json | undefined;
      try {
        message = body ? (JSON.parse(body) as Json) : undefined;
      } catch {
        message = undefined;
      }
      const method = req.method ?? '';
      record({ method, headers: req.headers, message });
      const session = req.headers['mcp-session-id'];

      if (method === 'DELETE') {
        for (const stream of openStreams) stream.end();
        openStreams.clear();
        res.writeHead(session === SCRIPTED_SESSION_ID ? 200 : 404).end();
        return;
      }

      if (method === 'GET') {
        if (session !== SCRIPTED_SESSION_ID) {
          res.writeHead(session === undefined ? 400 : 404).end();
          return;
        }
        const lastEventId = req.headers['last-event-id'];
        if (lastEventId !== undefined) {
          if (lastEventId !== PRIMING_EVENT_ID || !resumable) {
            res.writeHead(404).end();
            return;
          }
          sse(res);
          res.end(event({ jsonrpc: '2.0', id: resumable.id, result: { content: [{ type: 'text', text: 'resumed result' }] } }, 'ev-2'));
          return;
        }
        sse(res);
        openStreams.add(res);
        res.on('close', () => openStreams.delete(res));
        res.write(event({ jsonrpc: '2.0', id: 'get-ping', method: 'ping' }));
        return;
      }

      if (method !== 'POST' || !message) {
        res.writeHead(405).end();
        return;
      }

      if (session === undefined) {
        if (message.method === 'initialize') {
          res
            .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': SCRIPTED_SESSION_ID })
            .end(
              JSON.stringify({
                jsonrpc: '2.0',
                id: message.id,
                result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'scripted-legacy-http', version: '1.0.0' } },
              }),
            );
        } else {
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }));
        }
        return;
      }
      if (session !== SCRIPTED_SESSION_ID) {
        res.writeHead(404).end();
        return;
      }
      if (typeof message.method !== 'string') {
        answerWaiters.get(String(message.id))?.(message);
        answerWaiters.delete(String(message.id));
        res.writeHead(202).end();
        return;
      }
      if (!('id' in message)) {
        res.writeHead(202).end();
        return;
      }
      const json = (result: Json): void => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message!.id, result }));
      };
      switch (message.method) {
        case 'ping':
          return json({});
        case 'tools/list':
          return json({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
        case 'tools/call': {
          const name = message.params?.name;
          if (name === 'echo') return json({ content: [{ type: 'text', text: String(message.params?.arguments?.text) }] });
          if (name === 'hang') {
            // Headers only; the response never comes (for cancellation tests).
            sse(res);
            res.write(': waiting\n\n');
            return;
          }
          if (name === 'resume-me') {
            resumable = message;
            sse(res);
            res.end(`id: ${PRIMING_EVENT_ID}\nretry: 100\ndata: \n\n`);
            return;
          }
          if (name === 'ask-all') {
            sse(res);
            const asks: Array<[string, string, Json | undefined]> = [
              ['s-1', 'elicitation/create', { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }],
              ['s-2', 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 50 }],
              ['s-3', 'roots/list', undefined],
              ['s-4', 'ping', undefined],
            ];
            const pending = asks.map(([id]) => answerOf(id));
            for (const [id, m, params] of asks) res.write(event(params === undefined ? { jsonrpc: '2.0', id, method: m } : { jsonrpc: '2.0', id, method: m, params }));
            void Promise.all(pending).then((answers) => {
              const keyed = Object.fromEntries(asks.map(([, m], i) => [m, answers[i]]));
              res.end(event({ jsonrpc: '2.0', id: message!.id, result: { content: [{ type: 'text', text: JSON.stringify(keyed) }] } }));
            });
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'Unknown tool' } }));
          return;
        }
        default:
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    answers: () => seen.filter((s) => s.method === 'POST' && s.message && typeof s.message.method !== 'string' && 'id' in s.message).map((s) => s.message!),
    waitFor: (what, check, timeoutMs = 10_000) => changes.until(what, () => seen.find(check), timeoutMs),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
