/**
 * A scripted raw MCP peer on node:http (127.0.0.1), for client tests: it records
 * every POST the client makes (headers, body, parsed message, whether the client
 * hung up before the reply) and answers each from a script — a JSON result or
 * error, any raw HTTP reply, an SSE stream (optionally cut short), or nothing at
 * all until the client goes away. Nothing here uses Tessera's server code.
 */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Json = Record<string, any>;

export interface SeenRequest {
  /** 0-based order of arrival. */
  index: number;
  method: string;
  headers: IncomingHttpHeaders;
  /** Header names and values exactly as received (name, value, name, value…). */
  rawHeaders: string[];
  body: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  message: Json;
  /** True once the client closed the connection before the reply was finished. */
  disconnected: boolean;
  /** Resolves when the client closes the connection before the reply was finished. */
  whenDisconnected: Promise<void>;
}

export type ScriptReply =
  /** 200 application/json with `{jsonrpc, id, result}`. */
  | { result: Json }
  /** A JSON-RPC error body (status 200 unless given; `omitId` leaves the id out). */
  | { error: { code: number; message: string; data?: unknown }; status?: number; omitId?: boolean; headers?: Record<string, string> }
  /** Any raw reply. */
  | { status: number; body: string; contentType?: string; headers?: Record<string, string> }
  /** 200 text/event-stream: each object becomes one `data:` event, each string is written verbatim (raw SSE text); then the stream ends. */
  | { sse: Array<Json | string> }
  /** No reply: the response stays open until the client hangs up. */
  | { hang: true };

export type Responder = (message: Json, seen: SeenRequest) => ScriptReply | Promise<ScriptReply>;

export interface ScriptedHttp {
  url: string;
  requests: SeenRequest[];
  /** The recorded JSON-RPC messages, in order. */
  messages(): Json[];
  close(): Promise<void>;
}

/** `{jsonrpc, id, result}` for an SSE entry. */
export function responseTo(message: Json, result: Json): Json {
  return { jsonrpc: '2.0', id: message.id, result };
}

export function note(method: string, params: Json): Json {
  return { jsonrpc: '2.0', method, params };
}

export async function startScriptedHttp(responder: Responder): Promise<ScriptedHttp> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let message: Json;
      try {
        message = JSON.parse(body) as Json;
      } catch {
        message = undefined as unknown as Json;
      }
      let onDisconnect!: () => void;
      const seen: SeenRequest = {
        index: requests.length,
        method: req.method ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
        message,
        disconnected: false,
        whenDisconnected: new Promise<void>((resolve) => (onDisconnect = resolve)),
      };
      res.on('close', () => {
        if (!res.writableFinished) {
          seen.disconnected = true;
          onDisconnect();
        }
      });
      requests.push(seen);
      void Promise.resolve()
        .then(() => responder(message, seen))
        .then((reply) => {
          if (res.destroyed) return;
          if ('hang' in reply) return;
          if ('result' in reply) {
            const text = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: reply.result });
            res.writeHead(200, { 'content-type': 'application/json' }).end(text);
          } else if ('error' in reply) {
            const text = JSON.stringify(reply.omitId ? { jsonrpc: '2.0', error: reply.error } : { jsonrpc: '2.0', id: message.id, error: reply.error });
            res.writeHead(reply.status ?? 200, { ...reply.headers, 'content-type': 'application/json' }).end(text);
          } else if ('sse' in reply) {
            res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
            for (const entry of reply.sse) res.write(typeof entry === 'string' ? entry : `data: ${JSON.stringify(entry)}\n\n`);
            res.end();
          } else {
            res.writeHead(reply.status, { ...reply.headers, 'content-type': reply.contentType ?? 'text/plain' }).end(reply.body);
          }
        })
        .catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(599, { 'content-type': 'text/plain' });
          res.end(`script failed: ${(error as Error).message}`);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    messages: () => requests.map((r) => r.message),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
