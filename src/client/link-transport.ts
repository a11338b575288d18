/**
 * The client over a message link (stdio, in memory): requests are matched to
 * responses by id; progress goes to the request that holds the token;
 * listen-stream messages go to the request whose id is their subscription id;
 * log messages carry no request id on stdio, so they go to the unrouted
 * listeners. Aborting a request sends `notifications/cancelled`; a response
 * that still comes goes to the request's `onLateResponse`, if it has one.
 */

import { classifyMessage, notification, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { META_PROGRESS_TOKEN, META_SUBSCRIPTION_ID } from '../protocol/meta.js';
import { Notification } from '../protocol/methods.js';
import type { RequestId } from '../protocol/types.js';
import type { MessageLink } from '../transport/link.js';
import { RequestTimeoutError, TransportError } from './errors.js';
import type { ClientTransport, ServerRequestHandler, TransportRequestOptions } from './transport.js';

interface Pending {
  resolve: (response: JsonRpcResponse) => void;
  reject: (error: unknown) => void;
  onNotification: ((n: JsonRpcNotification) => void) | undefined;
  progressToken: unknown;
}

/** How many given-up requests still wait for a late response (the oldest is forgotten first). */
const MAX_GIVEN_UP = 256;

export class LinkClientTransport implements ClientTransport {
  private readonly pending = new Map<RequestId, Pending>();
  private readonly givenUp = new Map<RequestId, (response: JsonRpcResponse) => void>();
  private readonly unrouted: Array<(n: JsonRpcNotification) => void> = [];
  private serverRequests: ServerRequestHandler | undefined;
  private closedReason: string | undefined;

  constructor(
    private readonly link: MessageLink,
    readonly kind: 'stdio' | 'memory',
  ) {
    link.onMessage((value) => this.receive(value));
    link.onClose(() => this.fail('The connection to the server closed'));
  }

  /** Fails every request in flight (e.g. when the server process exits). */
  fail(reason: string): void {
    this.closedReason ??= reason;
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      entry.reject(new TransportError(reason));
    }
  }

  private receive(value: unknown): void {
    const incoming = classifyMessage(value);
    if (incoming.kind === 'response') {
      const id = incoming.message.id;
      const entry = id === undefined ? undefined : this.pending.get(id);
      if (entry && id !== undefined) {
        this.pending.delete(id);
        entry.resolve(incoming.message);
      } else if (id !== undefined) {
        const late = this.givenUp.get(id);
        this.givenUp.delete(id);
        late?.(incoming.message);
      }
      return;
    }
    if (incoming.kind === 'request') {
      // The client decides: a 2025-era server's requests are answered, a 2026-07-28 server's are not.
      const handler = this.serverRequests;
      if (handler) {
        void handler(incoming.message).then((response) => {
          if (response && this.closedReason === undefined) this.link.send(response);
        });
      }
      return;
    }
    if (incoming.kind !== 'notification') return;
    const note = incoming.message;
    const params = note.params ?? {};
    const subscription = (params._meta as Record<string, unknown> | undefined)?.[META_SUBSCRIPTION_ID];
    if (subscription !== undefined) {
      const entry = this.pending.get(subscription as RequestId);
      if (entry?.onNotification) return entry.onNotification(note);
    }
    if (note.method === Notification.Progress) {
      for (const entry of this.pending.values()) {
        if (entry.progressToken !== undefined && entry.progressToken === params.progressToken) return entry.onNotification?.(note);
      }
    }
    for (const listener of this.unrouted) listener(note);
  }

  request(message: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<JsonRpcResponse> {
    if (this.closedReason) return Promise.reject(new TransportError(this.closedReason));
    // Aborted before it was sent: nothing to cancel on the server.
    if (options.signal?.aborted) return Promise.reject(options.signal.reason ?? new Error('Aborted'));
    if (this.pending.has(message.id)) return Promise.reject(new TransportError(`Request id ${String(message.id)} is already in flight`));
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      const signal = options.signal;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const giveUp = (reason: string, error: unknown): void => {
        if (!this.pending.delete(message.id)) return;
        signal?.removeEventListener('abort', onAbort);
        if (timer) clearTimeout(timer);
        if (options.onLateResponse) this.awaitLate(message.id, options.onLateResponse);
        this.link.send(notification(Notification.Cancelled, { requestId: message.id, reason }));
        reject(error);
      };
      const onAbort = (): void => giveUp(String(signal?.reason ?? 'cancelled'), signal?.reason ?? new Error('Aborted'));
      const settle = (): void => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      this.pending.set(message.id, {
        resolve: (response) => {
          settle();
          resolve(response);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
        onNotification: options.onNotification,
        progressToken: (message.params?._meta as Record<string, unknown> | undefined)?.[META_PROGRESS_TOKEN],
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (options.timeoutMs !== undefined) {
        const ms = options.timeoutMs;
        timer = setTimeout(() => giveUp('timed out', new RequestTimeoutError(`${message.method} got no response within ${ms} ms`)), ms);
      }
      this.link.send(message);
    });
  }

  private awaitLate(id: RequestId, listener: (response: JsonRpcResponse) => void): void {
    this.givenUp.set(id, listener);
    if (this.givenUp.size > MAX_GIVEN_UP) this.givenUp.delete(this.givenUp.keys().next().value!);
  }

  onUnrouted(listener: (notification: JsonRpcNotification) => void): void {
    this.unrouted.push(listener);
  }

  onServerRequest(handler: ServerRequestHandler): void {
    this.serverRequests = handler;
  }

  async notify(message: JsonRpcNotification): Promise<void> {
    if (this.closedReason) throw new TransportError(this.closedReason);
    this.link.send(message);
  }

  async close(): Promise<void> {
    this.fail('The client closed the connection');
    this.link.close();
  }
}
