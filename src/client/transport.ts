/** What the client needs from a transport: send one request, get its notifications and its response. */

import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';

export interface TransportRequestOptions {
  /** Aborting cancels the request (HTTP: closes the stream; stdio: sends notifications/cancelled). */
  signal?: AbortSignal;
  /** Gives up (and cancels) after this long, rejecting with RequestTimeoutError. */
  timeoutMs?: number;
  /** Streamable HTTP request-metadata headers; other transports ignore them. */
  headers?: Record<string, string>;
  /** Notifications that belong to this request (progress, log messages, listen-stream messages). */
  onNotification?: (notification: JsonRpcNotification) => void;
  /**
   * The response to this request should it still arrive after the request
   * was given up on (aborted, timed out), on transports that can read one
   * (stdio, in memory; an HTTP request given up on is closed, and the server
   * treats that as cancellation).
   */
  onLateResponse?: (response: JsonRpcResponse) => void;
}

/**
 * What the client makes of a request the server sent: the answer to send back
 * (a 2025-era server: elicitation, sampling, roots, ping), or undefined for
 * none (a 2026-07-28 server may not send requests, and gets no answer).
 */
export type ServerRequestHandler = (request: JsonRpcRequest) => Promise<JsonRpcResponse | undefined>;

export interface ClientTransport {
  readonly kind: 'http' | 'stdio' | 'memory';
  /** Sends a request; resolves with its response (a JSON-RPC error response is a response, not a rejection). */
  request(message: JsonRpcRequest, options?: TransportRequestOptions): Promise<JsonRpcResponse>;
  /** Notifications the transport cannot tie to a request (on stdio, log messages carry no request id). */
  onUnrouted?(listener: (notification: JsonRpcNotification) => void): void;
  /** Requests the server sends; the transport delivers the answers the handler gives. */
  onServerRequest?(handler: ServerRequestHandler): void;
  /** Sends a notification (2025 sessions: `notifications/initialized`…). */
  notify?(message: JsonRpcNotification): Promise<void>;
  /**
   * 2025-11-25 sessions, on transports that keep one (HTTP): `beginSession`
   * puts the session the last response named (if any) and the negotiated
   * version on every later message; `openStandaloneStream` opens the stream
   * for what belongs to no request; `endSession` forgets the session (e.g.
   * the server no longer knows it).
   */
  beginSession?(version: string): void;
  openStandaloneStream?(): void;
  endSession?(): void;
  close(): Promise<void>;
}
