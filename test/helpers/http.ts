/** Real HTTP on 127.0.0.1 for tests: start a server, send well-formed (or deliberately bad) requests, read JSON or SSE replies. */

import { createParser } from 'eventsource-parser';
import type { McpServer } from '../../src/index.js';
import { serveHttp, type HttpServeOptions, type RunningHttpServer } from '../../src/node.js';
import { assertServerMessage } from './wire-schema.js';

export const VERSION = '2026-07-28';

export function meta(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'tessera-tests', version: '0.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...overrides,
  };
}

export async function startHttp(server: McpServer, options: HttpServeOptions = {}): Promise<RunningHttpServer> {
  return serveHttp(server, { port: 0, host: '127.0.0.1', ...options });
}

export interface RpcReply {
  status: number;
  headers: Headers;
  contentType: string;
  /** Every JSON-RPC message received, in order (one for JSON bodies). */
  messages: Record<string, unknown>[];
  /** The response to the request (last message with result or error). */
  response: Record<string, unknown> | undefined;
  /** The raw body, when it was neither JSON nor SSE. */
  text?: string;
}

let nextId = 1;

export interface RpcOptions {
  /** Extra or replacement headers (case-insensitive names); `undefined` values remove a default header. */
  headers?: Record<string, string | undefined>;
  id?: string | number;
  /** Send this exact body text instead of a built request. */
  rawBody?: string;
  /** Skip schema validation of what comes back (for deliberately invalid traffic that may get id-less errors). */
  skipValidation?: boolean;
  signal?: AbortSignal;
}

/** Standard 2026-07-28 headers for a request. */
export function standardHeaders(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': method,
  };
  const name =
    method === 'resources/read'
      ? params?.uri
      : method === 'tools/call' || method === 'prompts/get'
        ? params?.name
        : method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel'
          ? params?.taskId
          : undefined;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return headers;
}

/** Sends one request (params get a valid `_meta` unless they carry their own) and validates every message received. */
export async function rpc(url: string, method: string, params?: Record<string, unknown>, options: RpcOptions = {}): Promise<RpcReply> {
  const id = options.id ?? nextId++;
  const fullParams = params && '_meta' in params ? params : { ...params, _meta: meta() };
  const headers: Record<string, string> = standardHeaders(method, fullParams);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    delete headers[name.toLowerCase()];
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  const body = options.rawBody ?? JSON.stringify({ jsonrpc: '2.0', id, method, params: fullParams });
  const res = await fetch(url, { method: 'POST', headers, body, signal: options.signal });
  const contentType = res.headers.get('content-type') ?? '';
  const messages: Record<string, unknown>[] = [];
  let text: string | undefined;
  if (contentType.includes('text/event-stream')) {
    const parser = createParser({ onEvent: (event) => messages.push(JSON.parse(event.data)) });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      const last = messages[messages.length - 1];
      if (last && ('result' in last || 'error' in last)) {
        await reader.cancel();
        break;
      }
    }
  } else {
    text = await res.text();
    if (text) {
      try {
        messages.push(JSON.parse(text));
        text = undefined;
      } catch {
        // leave as text
      }
    }
  }
  if (!options.skipValidation) for (const m of messages) assertServerMessage(m, method);
  const response = [...messages].reverse().find((m) => 'result' in m || 'error' in m);
  return { status: res.status, headers: res.headers, contentType, messages, response, text };
}
