/**
 * Hostile HTTP "servers" on 127.0.0.1 for the client's hardening tests: each
 * answers a POST the way a broken or malicious server might — a body that
 * never ends, a gzip bomb, an SSE event or line without an end, a body cut
 * short, a redirect to another origin, requests a 2026-07-28 server may not
 * send, a response for another id. Streams write with backpressure, stop
 * when the client goes away, and are bounded (no loop runs forever). Every
 * request is recorded.
 */

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip, gzipSync } from 'node:zlib';

export type Json = Record<string, any>;

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  message: Json | undefined;
}

/** Writes the reply for one request; `message` is the parsed body (undefined when not JSON). */
export type Behaviour = (req: IncomingMessage, res: ServerResponse, message: Json | undefined, received: Received[]) => unknown;

export interface HostileServer {
  url: string;
  origin: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startHostile(behaviour: Behaviour): Promise<HostileServer> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let message: Json | undefined;
      try {
        message = JSON.parse(body) as Json;
      } catch {
        message = undefined;
      }
      // The probe's warm-up (a JSON and an SSE reply, so what fetch and the SSE reader set up on first use is in its
      // baseline): answered here, never recorded.
      if (req.url === WARM_UP_PATH) return warmUp(res, message);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, message });
      void Promise.resolve(behaviour(req, res, message, received)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    origin: `http://127.0.0.1:${port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function warmUp(res: ServerResponse, message: Json | undefined): void {
  const reply = { jsonrpc: '2.0', id: message?.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'warm' }] } };
  if (message?.params?.name === 'sse') res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${JSON.stringify(reply)}\n\n`);
  else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
}

export const MiB = 1024 * 1024;
export const WARM_UP_PATH = '/probe-warm-up';

/** Writes `chunk` until `total` bytes went out or the client left, waiting for the socket to drain. */
export async function writeUpTo(res: ServerResponse, chunk: Buffer | string, total: number): Promise<number> {
  const size = Buffer.byteLength(chunk);
  let sent = 0;
  while (sent < total && !res.destroyed && !res.writableEnded) {
    sent += size;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  return sent;
}

/** A JSON-RPC result whose one text block is `bytes` long: the head, then filler, then the tail. */
export function hugeJson(bytes: number): Behaviour {
  return async (_req, res, message) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(message?.id)},"result":{"content":[{"type":"text","text":"`);
    await writeUpTo(res, 'A'.repeat(64 * 1024), bytes);
    if (!res.destroyed) res.end('"}]}}');
  };
}

/**
 * A gzip body of a few hundred KiB that inflates to a JSON-RPC result of
 * `bytes`: three gzip members (head, filler, tail), so the filler is
 * compressed once and each reply only adds its own id.
 */
export async function gzipBomb(bytes: number): Promise<(id: unknown) => Buffer> {
  const filler = await new Promise<Buffer>((resolve, reject) => {
    const out: Buffer[] = [];
    const zip = createGzip({ level: 9 });
    zip.on('data', (c: Buffer) => out.push(c));
    zip.on('end', () => resolve(Buffer.concat(out)));
    zip.on('error', reject);
    const block = Buffer.alloc(MiB, 'A');
    void (async () => {
      for (let written = 0; written < bytes; written += MiB) if (!zip.write(block)) await new Promise((r) => zip.once('drain', r));
      zip.end();
    })();
  });
  const tail = gzipSync('"}]}}');
  return (id) => Buffer.concat([gzipSync(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`), filler, tail]);
}

export function serveGzip(bomb: (id: unknown) => Buffer): Behaviour {
  return (_req, res, message) => {
    const body = bomb(message?.id);
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length });
    res.end(body);
  };
}

/** An SSE stream whose first event never ends: `data:` lines without the blank line, up to `bytes`. */
export function endlessSseEvent(bytes: number): Behaviour {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await writeUpTo(res, `data: ${'B'.repeat(64 * 1024)}\n`, bytes);
    res.end();
  };
}

/** An SSE stream whose first line never ends, up to `bytes`. */
export function endlessSseLine(bytes: number): Behaviour {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: ');
    await writeUpTo(res, 'C'.repeat(64 * 1024), bytes);
    res.end();
  };
}

/** A JSON body that says it is longer than what arrives before the connection drops. */
export function truncatedJson(): Behaviour {
  return (_req, res, message) => {
    const start = `{"jsonrpc":"2.0","id":${JSON.stringify(message?.id)},"result":{"content":[{"type":"text","text":"cut`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 10_000 });
    res.write(start, () => res.destroy());
  };
}

export function sse(events: Json[]): string {
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
}

/**
 * An answer that is a JSON object `head` padded to `bytes` through one string
 * member, streamed with backpressure, for documents too large to accept
 * (a key set, metadata, a token response). `finished`: how many bytes went
 * out before the reader went away (or all of them).
 */
export function paddedJson(head: Record<string, unknown>, bytes: number): ((res: ServerResponse) => Promise<void>) & { finished: Promise<number> } {
  let done!: (sent: number) => void;
  const finished = new Promise<number>((resolve) => (done = resolve));
  const write = async (res: ServerResponse): Promise<void> => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`${JSON.stringify(head).slice(0, -1)},"padding":"`);
    const sent = await writeUpTo(res, 'A'.repeat(64 * 1024), bytes);
    if (!res.destroyed) res.end('"}');
    done(sent);
  };
  return Object.assign(write, { finished });
}
