/**
 * One `node:http` request served by the HTTP core: the request view, the
 * responder, and the body — read from the stream within the limit, or the one
 * a framework's body parser already read (the stream is empty by then, so
 * waiting on it would hang). Shared by `createNodeHandler` and the Express and
 * Fastify adapters, which differ only in how they route and find the body.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpCore } from './core.js';
import type { HttpRequestView, HttpResponder } from './exchange.js';
import type { ByteSink } from './sse.js';

/** A body a framework already read: a parsed JSON value, its text, or its bytes. */
export interface ReadBody {
  readonly body: unknown;
}

export function responderFor(res: ServerResponse): HttpResponder {
  return {
    send(status, headers, body) {
      if (res.headersSent || res.destroyed) return;
      // The length goes into the one header object given to writeHead: a header set before it (setHeader) sends
      // node:http down its slower path, which copies every header through setHeader again.
      if (!body) {
        // An empty body framed by Content-Length: 0 (node:http would otherwise send it chunked); 204 and 304 carry none.
        res.writeHead(status, status === 204 || status === 304 ? headers : { ...headers, 'content-length': '0' }).end();
        return;
      }
      // Ended as a string: node:http writes it in one piece with the head (a Buffer would take a second, gathered write).
      res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body, 'utf8')) }).end(body, 'utf8');
    },
    stream(headers): ByteSink {
      res.writeHead(200, headers);
      res.flushHeaders();
      return {
        write: (chunk) => {
          if (!res.destroyed && !res.writableEnded) res.write(chunk);
        },
        end: () => {
          if (!res.destroyed && !res.writableEnded) res.end();
        },
      };
    },
  };
}

/** The header reader of `req`: repeated lines joined with ", " as fetch's Headers joins them. */
export function headerReader(req: IncomingMessage): (name: string) => string | undefined {
  return function readHeader(name) {
    if (name === 'authorization') return everyLine(req, name);
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

/**
 * Every line of a header, joined with ", " as fetch's Headers joins them.
 * node:http keeps only the first Authorization line in `req.headers` (it drops
 * repeats of a few headers), so a second one would pass unseen: the raw lines
 * keep them all, and two joined are no longer one credential (a 400).
 */
function everyLine(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

/** A view for requests that are answered at once (metadata, refusals): nothing waits on its signal. */
export function quickView(req: IncomingMessage, target: string): HttpRequestView {
  return { method: req.method ?? 'GET', header: headerReader(req), target, signal: new AbortController().signal, aborted: false };
}

/** The text of a body a parser produced: JSON values are written back as JSON (the core parses one message from text). */
function textOf(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return body === undefined ? '' : JSON.stringify(body);
}

/** A body read before us, within the same limit as one read here. */
function serveRead(core: HttpCore, view: HttpRequestView, responder: HttpResponder, body: unknown): void {
  const text = textOf(body);
  if (Buffer.byteLength(text, 'utf8') > core.maxBodyBytes) responder.send(...core.tooLarge());
  else void core.serve(view, text, responder);
}

/**
 * A node:http request as the core sees it. A class, not an object literal with
 * getters: V8 makes such literals on its slow path, in old space, and every
 * young object they point to then survives the scavenges (measured: GC took
 * about a fifth of the server's time, 4× that of a bare node:http server).
 */
class NodeRequestView implements HttpRequestView {
  readonly method: string;
  readonly header: (name: string) => string | undefined;
  /** Made only if something looks at the signal; most requests never do. */
  private controller: AbortController | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly target: string,
  ) {
    this.method = req.method ?? 'GET';
    this.header = headerReader(req);
  }

  /** node:http marks the response destroyed when its connection closes; a finished one was answered. */
  get aborted(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      // Listened for only now: most requests never look, and a listener per request costs.
      if (this.aborted) controller.abort();
      else this.res.once('close', () => !this.res.writableFinished && controller.abort());
    }
    return this.controller.signal;
  }
}

/**
 * Serves `req` at `target` (its path and query as the client sent them). With
 * `read`, the body is that one and the stream is left alone; without it, a
 * stream a body parser already consumed is served from `req.body`, and one
 * consumed without a trace gets a 500 that says so, never a hang.
 */
export function serveNodeRequest(core: HttpCore, req: IncomingMessage, res: ServerResponse, target: string, read?: ReadBody): void {
  const view = new NodeRequestView(req, res, target);
  const responder = responderFor(res);
  const refusal = core.precheck(view);
  if (refusal) {
    responder.send(...refusal);
    if (!read) req.resume();
    return;
  }
  if (view.method === 'GET' || view.method === 'DELETE') {
    if (!read) req.resume();
    void core.serve(view, '', responder);
    return;
  }
  if (read) {
    serveRead(core, view, responder, read.body);
    return;
  }
  if (req.readableEnded) {
    // Read by a body parser mounted before us (express.json() and the like leave what they read on `req.body`).
    const parsed = (req as { body?: unknown }).body;
    if (parsed === undefined) responder.send(...core.bodyConsumed());
    else serveRead(core, view, responder, parsed);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > core.maxBodyBytes) {
      refused = true;
      res.setHeader('connection', 'close');
      responder.send(...core.tooLarge());
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (refused) return;
    const body = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    void core.serve(view, body, responder);
  });
}
