/**
 * node:http → web `Request` → the official SDK's `handler.fetch` → node:http.
 *
 * The SDK's own Node adapter (`@modelcontextprotocol/node`) goes through Hono;
 * this hand-rolled one has no dependencies and was measured no slower. A JSON
 * reply is written in one piece with its Content-Length (as Tessera does);
 * anything else (SSE) is streamed chunk by chunk.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';

export interface FetchHandler {
  fetch(request: Request): Promise<Response>;
}

function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}

async function readBody(req: IncomingMessage): Promise<Buffer<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers = Object.fromEntries(response.headers);
  if (!response.body) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if ((response.headers.get('content-type') ?? '').startsWith('application/json')) {
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...headers, 'content-length': body.length }).end(body);
    return;
  }
  res.writeHead(response.status, headers);
  for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/** A node:http request listener serving `handler` on `path` (other paths get 404). */
export function nodeListener(handler: FetchHandler, path = '/mcp'): (req: IncomingMessage, res: ServerResponse) => void {
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    const body = await readBody(req);
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url}`, {
      method: req.method ?? 'GET',
      headers: webHeaders(req),
      body: hasBody ? body : undefined,
      signal: aborted.signal,
    });
    await writeResponse(await handler.fetch(request), res);
  };
  return (req, res) => {
    serve(req, res).catch((error: unknown) => {
      process.stderr.write(`[official-bench] ${String(error)}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
}
