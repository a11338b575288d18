/**
 * The seam between transports and the server: what a transport hands the
 * server for one request, and what it gets back.
 */

import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './jsonrpc.js';

export interface RequestChannel {
  /** Aborted when the client goes away or cancels (HTTP disconnect, stdio `notifications/cancelled`). */
  readonly signal: AbortSignal;
  /** Whether notifications can reach the client during this request (an HTTP client that accepts only JSON cannot stream). */
  readonly canNotify: boolean;
  /** Sends a notification that belongs to this request, before its response. */
  notify(message: JsonRpcNotification): void;
  /** Request header lookup (lower-case names) on HTTP; absent on stdio and in memory. */
  header?(name: string): string | undefined;
  /** Who is calling, as established by the transport's authentication hook; absent when anonymous. */
  readonly principal?: string;
}

export interface Reply {
  message: JsonRpcResponse;
  /** The HTTP status this reply travels with on Streamable HTTP. */
  status: number;
}

/** Anything that answers MCP requests: the server, or a test double. */
export interface RequestHandler {
  handleRequest(request: JsonRpcRequest, channel: RequestChannel): Promise<Reply>;
}
