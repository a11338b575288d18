/**
 * HTTP on node:http, for what fetch cannot do: send header names in any case
 * exactly as written, set Host/Origin freely, and stream a chunked body with no
 * Content-Length. Loopback only.
 */

import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { VERSION, meta } from './http.js';

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json: Record<string, unknown> | undefined;
}

export interface RawRequest {
  method?: string;
  /** Sent exactly as given (name case preserved). */
  headers: Record<string, string>;
  /** One string is sent with Content-Length; an array is sent chunk by chunk (chunked encoding). */
  body?: string | string[];
}

export function rawRequest(url: string, init: RawRequest): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    if (target.hostname !== '127.0.0.1') throw new Error('raw-http only talks to 127.0.0.1');
    const headers: Record<string, string> = { ...init.headers };
    if (typeof init.body === 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
      headers['Content-Length'] = String(Buffer.byteLength(init.body));
    }
    let settled = false;
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: init.method ?? 'POST', headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          settled = true;
          const body = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> | undefined;
          try {
            json = body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
        });
      },
    );
    // A server that refuses a body early may close the socket while we still write; the reply already arrived then.
    req.on('error', (error) => {
      if (!settled) reject(error);
    });
    if (Array.isArray(init.body)) {
      for (const chunk of init.body) req.write(chunk);
      req.end();
    } else {
      req.end(init.body);
    }
  });
}

/** A well-formed MCP POST (body and standard headers), sent with raw node:http so headers can be bent at will. */
export function rawMcpPost(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  id: string | number = 1,
): Promise<RawReply> {
  const full = '_meta' in params ? params : { ...params, _meta: meta() };
  const base: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': VERSION,
    'Mcp-Method': method,
  };
  // Caller headers replace defaults case-insensitively.
  for (const name of Object.keys(headers)) {
    for (const existing of Object.keys(base)) if (existing.toLowerCase() === name.toLowerCase()) delete base[existing];
  }
  return rawRequest(url, { headers: { ...base, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: full }) });
}

/**
 * A request written byte for byte on a socket, for what node:http's client
 * cannot send: the same header twice (it keeps one line per name, whatever
 * the case). Each header line goes out as given; the answer is read to the
 * connection's close (`Connection: close`) and must carry a Content-Length.
 */
export function rawLines(url: string, init: { method?: string; headers: Array<[string, string]>; body?: string }): Promise<RawReply> {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error('raw-http only talks to 127.0.0.1');
  const body = init.body ?? '';
  const head = [
    `${init.method ?? 'POST'} ${target.pathname}${target.search} HTTP/1.1`,
    `Host: ${target.host}`,
    ...init.headers.map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => socket.write(`${head.join('\r\n')}\r\n\r\n${body}`));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [statusLine = '', ...lines] = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
      const headers: IncomingHttpHeaders = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const replyBody = text.slice(text.indexOf('\r\n\r\n') + 4);
      let json: Record<string, unknown> | undefined;
      try {
        json = replyBody ? (JSON.parse(replyBody) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: replyBody, json });
    });
  });
}

/** A well-formed MCP POST (tools/list) with these extra header lines, repeats kept. */
export function rawMcpPostLines(url: string, lines: Array<[string, string]>): Promise<RawReply> {
  const params = { _meta: meta() };
  return rawLines(url, {
    headers: [
      ['Content-Type', 'application/json'],
      ['Accept', 'application/json, text/event-stream'],
      ['MCP-Protocol-Version', VERSION],
      ['Mcp-Method', 'tools/list'],
      ...lines,
    ],
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params }),
  });
}
