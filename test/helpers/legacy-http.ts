/**
 * Raw 2025-11-25 Streamable HTTP for tests, as a 2025 client speaks it: no
 * `Mcp-Method`/`Mcp-Name`, no 2026 `_meta`; `initialize` mints a session whose
 * id and negotiated version go on every later request. Replies are read as
 * JSON or SSE, incrementally when needed (a tool call's stream carries the
 * server's own requests before the response), and every message received is
 * validated against the 2025-11-25 schema.
 */

import { readMessages, StreamEnded, type RawEvent } from './message-reader.js';
import { assertServerMessage2025 } from './wire-schema-2025.js';

export type Json = Record<string, any>;

export const LEGACY_VERSION = '2025-11-25';

let nextId = 1;
/** A fresh JSON-RPC id. */
export function legacyId(): number {
  return nextId++;
}

/** The headers every request of a 2025 session carries. */
export function sessionHeaders(sessionId: string, version = LEGACY_VERSION): Record<string, string> {
  return { 'mcp-session-id': sessionId, 'mcp-protocol-version': version };
}

export interface LegacyStream {
  status: number;
  headers: Headers;
  contentType: string;
  /** Every message received so far, in order. */
  readonly messages: Json[];
  /** Every SSE event received so far, with its id (priming events included). */
  readonly events: RawEvent[];
  /** The raw body when it was neither SSE nor JSON (or empty). */
  readonly text: Promise<string | undefined>;
  /** The first not-yet-taken message matching `predicate`; rejects if the stream ends first. */
  nextMatching(what: string, predicate: (m: Json) => boolean): Promise<Json>;
  /** Resolves when the body ends (rejects on a schema violation). */
  readonly ended: Promise<void>;
  /** Throws if any message so far failed 2025-11-25 validation. */
  assertValid(): void;
  close(): void;
}

export interface LegacyRequestInit {
  method?: 'POST' | 'GET' | 'DELETE';
  /** Headers sent as given (lower-case names); `undefined` removes a default. */
  headers?: Record<string, string | undefined>;
  body?: Json;
  /** Method of the request whose response is validated (defaults to `body.method`). */
  resultOf?: string;
  skipValidation?: boolean;
}

/** Sends one HTTP request and returns as soon as the headers are in; the body is read as it arrives. */
export async function openLegacy(url: string, init: LegacyRequestInit = {}): Promise<LegacyStream> {
  const method = init.method ?? 'POST';
  const headers: Record<string, string> =
    method === 'POST'
      ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      : method === 'GET'
        ? { accept: 'text/event-stream' }
        : {};
  for (const [name, value] of Object.entries(init.headers ?? {})) {
    delete headers[name];
    if (value !== undefined) headers[name] = value;
  }
  const controller = new AbortController();
  const res = await fetch(url, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: controller.signal,
  });
  const contentType = res.headers.get('content-type') ?? '';
  const resultOf = init.resultOf ?? (typeof init.body?.method === 'string' ? init.body.method : undefined);
  const reader = readMessages<Json>(res, controller.signal, (m) => {
    // Server requests and notifications validate by their own method; responses by the request's.
    if (!init.skipValidation) assertServerMessage2025(m, 'result' in m ? resultOf : undefined);
  });

  return {
    status: res.status,
    headers: res.headers,
    contentType,
    messages: reader.messages,
    events: reader.events,
    text: reader.done.then(() => reader.rawText()),
    nextMatching: async (what, predicate) => {
      try {
        return (await reader.waitFor(predicate)).match;
      } catch (error) {
        if (error instanceof StreamEnded) throw new Error(`the stream ended before ${what}: ${error.message}`);
        throw error;
      }
    },
    get ended() {
      return reader.done.then(() => {
        if (reader.failure()) throw reader.failure();
      });
    },
    assertValid: () => {
      if (reader.failure()) throw reader.failure();
    },
    close: () => controller.abort(),
  };
}

export interface LegacyReply {
  status: number;
  headers: Headers;
  contentType: string;
  messages: Json[];
  /** The response to the request (a message with result or error). */
  response: Json | undefined;
  /** The raw body, when it was not JSON-RPC. */
  text: string | undefined;
}

function isResponse(m: Json): boolean {
  return 'result' in m || 'error' in m;
}

/** Sends one message and reads the reply to the end (or to its response, on SSE). */
export async function legacyPost(url: string, body: Json, headers: Record<string, string | undefined> = {}, options: { skipValidation?: boolean } = {}): Promise<LegacyReply> {
  const stream = await openLegacy(url, { body, headers, skipValidation: options.skipValidation });
  let response: Json | undefined;
  if (stream.contentType.includes('text/event-stream')) {
    response = await stream.nextMatching(`the response to ${JSON.stringify(body.id)}`, isResponse);
    stream.close();
    stream.assertValid();
  } else {
    await stream.ended;
    response = stream.messages.find(isResponse);
  }
  return { status: stream.status, headers: stream.headers, contentType: stream.contentType, messages: stream.messages, response, text: await stream.text };
}

/** A 2025 request in a session. */
export function sessionRequest(url: string, sessionId: string, method: string, params: Json = {}, id: string | number = legacyId()): Promise<LegacyReply> {
  return legacyPost(url, { jsonrpc: '2.0', id, method, params }, sessionHeaders(sessionId));
}

export interface InitializeOptions {
  protocolVersion?: string;
  capabilities?: Json;
  clientInfo?: Json;
  /** Send notifications/initialized afterwards (default true). */
  initialized?: boolean;
  headers?: Record<string, string | undefined>;
}

export interface LegacySession {
  sessionId: string;
  result: Json;
  reply: LegacyReply;
  /** Status of the notifications/initialized POST (undefined when not sent). */
  initializedStatus: number | undefined;
}

function definedHeaders(headers: Record<string, string | undefined> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The 2025 handshake, as a 2025 SDK client sends it (id 0, no version header, no _meta). */
export async function legacyInitialize(url: string, options: InitializeOptions = {}): Promise<LegacySession> {
  const reply = await legacyPost(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: options.protocolVersion ?? LEGACY_VERSION,
        capabilities: options.capabilities ?? { elicitation: {} },
        clientInfo: options.clientInfo ?? { name: 'legacy-test-client', version: '1.0.0' },
      },
    },
    options.headers,
  );
  const sessionId = reply.headers.get('mcp-session-id');
  if (reply.status !== 200 || !reply.response || !('result' in reply.response) || !sessionId) {
    throw new Error(`initialize failed: HTTP ${reply.status}, session ${String(sessionId)}, ${JSON.stringify(reply.response ?? reply.text)}`);
  }
  const result = reply.response.result as Json;
  let initializedStatus: number | undefined;
  if (options.initialized !== false) {
    const res = await fetch(url, {
      method: 'POST',
      // The same caller as the handshake (its credentials), or a server that binds sessions to callers refuses it.
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...definedHeaders(options.headers), ...sessionHeaders(sessionId, String(result.protocolVersion)) },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    await res.arrayBuffer();
    initializedStatus = res.status;
  }
  return { sessionId, result, reply, initializedStatus };
}
