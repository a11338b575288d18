/**
 * Streamable HTTP for the client: every message is its own POST; the reply is
 * one JSON body or an SSE stream (parsed with eventsource-parser) ending with
 * the response. A stream that breaks before the response loses the request, so
 * it is sent again as a new request with a new id, as the spec requires.
 */

import { createParser } from 'eventsource-parser';
import { classifyMessage, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { TransportError } from './errors.js';
import type { ClientTransport, TransportRequestOptions } from './transport.js';

export interface HttpClientTransportOptions {
  /** Extra headers on every request (e.g. Authorization). */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** How many times a request whose stream broke is sent again (default 1). */
  reissueLimit?: number;
}

class StreamBroken extends Error {}

export class HttpClientTransport implements ClientTransport {
  readonly kind = 'http' as const;
  readonly url: string;
  private readonly fetchImpl: typeof fetch;
  private readonly active = new Set<AbortController>();

  constructor(
    url: string | URL,
    private readonly options: HttpClientTransportOptions = {},
  ) {
    this.url = String(url);
    this.fetchImpl = options.fetch ?? fetch;
  }

  async request(message: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<JsonRpcResponse> {
    const limit = this.options.reissueLimit ?? 1;
    let attempt = message;
    for (let tries = 0; ; tries++) {
      try {
        return await this.send(attempt, options);
      } catch (error) {
        if (!(error instanceof StreamBroken) || tries >= limit || options.signal?.aborted) {
          throw error instanceof StreamBroken ? new TransportError(error.message) : error;
        }
        // The broken stream lost the request: send it again as a new request.
        attempt = { ...message, id: `${String(message.id)}-r${tries + 1}` };
      }
    }
  }

  private async send(message: JsonRpcRequest, options: TransportRequestOptions): Promise<JsonRpcResponse> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) controller.abort(options.signal.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    this.active.add(controller);
    try {
      const extra = typeof this.options.headers === 'function' ? await this.options.headers() : this.options.headers;
      let res: Response;
      try {
        res = await this.fetchImpl(this.url, {
          method: 'POST',
          headers: {
            ...extra,
            ...options.headers,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify(message),
          signal: controller.signal,
        });
      } catch (error) {
        if (controller.signal.aborted) throw error;
        throw new TransportError(`Could not reach ${this.url}: ${(error as Error).message}`);
      }
      const contentType = res.headers.get('content-type') ?? '';
      if (contentType.includes('text/event-stream')) return await this.readStream(res, message, options);
      const text = await res.text();
      const response = this.asResponse(text);
      if (response) return response;
      throw new TransportError(`HTTP ${res.status} from ${this.url} without a JSON-RPC response`, res.status, text);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      this.active.delete(controller);
    }
  }

  private asResponse(text: string): JsonRpcResponse | undefined {
    if (!text) return undefined;
    try {
      const incoming = classifyMessage(JSON.parse(text));
      return incoming.kind === 'response' ? incoming.message : undefined;
    } catch {
      return undefined;
    }
  }

  private async readStream(res: Response, message: JsonRpcRequest, options: TransportRequestOptions): Promise<JsonRpcResponse> {
    let response: JsonRpcResponse | undefined;
    const parser = createParser({
      onEvent: (event) => {
        if (response) return;
        let parsed: unknown;
        try {
          parsed = JSON.parse(event.data);
        } catch {
          return; // not a JSON-RPC message; ignore
        }
        const incoming = classifyMessage(parsed);
        if (incoming.kind === 'notification') options.onNotification?.(incoming.message);
        else if (incoming.kind === 'response' && incoming.message.id === message.id) response = incoming.message;
      },
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    try {
      while (!response) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new StreamBroken(`The response stream for request ${String(message.id)} broke: ${(error as Error).message}`);
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    if (!response) throw new StreamBroken(`The response stream for request ${String(message.id)} ended without a response`);
    return response;
  }

  async close(): Promise<void> {
    for (const controller of this.active) controller.abort();
    this.active.clear();
  }
}
