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

/**
 * One request waiting for its response: one object per request, without
 * closures (but an abort listener when it has a signal) and without a timer
 * of its own: the transport keeps one for all of them.
 */
class Pending {
  readonly progressToken: unknown;
  onAbort: (() => void) | undefined;

  constructor(
    readonly message: JsonRpcRequest,
    private readonly settleWith: (response: JsonRpcResponse) => void,
    private readonly failWith: (error: unknown) => void,
    readonly options: TransportRequestOptions,
    /** When it times out, in performance.now() ms (Infinity: never). */
    readonly deadline: number,
  ) {
    this.progressToken = (message.params?._meta as Record<string, unknown> | undefined)?.[META_PROGRESS_TOKEN];
  }

  get onNotification(): ((n: JsonRpcNotification) => void) | undefined {
    return this.options.onNotification;
  }

  resolve(response: JsonRpcResponse): void {
    this.stopListening();
    this.settleWith(response);
  }

  reject(error: unknown): void {
    this.stopListening();
    this.failWith(error);
  }

  private stopListening(): void {
    if (this.onAbort) this.options.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** How many given-up requests still wait for a late response (the oldest is forgotten first). */
const MAX_GIVEN_UP = 256;

export class LinkClientTransport implements ClientTransport {
  private readonly pending = new Map<RequestId, Pending>();
  private readonly givenUp = new Map<RequestId, (response: JsonRpcResponse) => void>();
  private readonly unrouted: Array<(n: JsonRpcNotification) => void> = [];
  private serverRequests: ServerRequestHandler | undefined;
  private closedReason: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The deadline the timer is set for. */
  private timerAt = Infinity;

  constructor(
    protected readonly link: MessageLink,
    readonly kind: 'stdio' | 'memory',
  ) {
    link.onMessage((value) => this.receive(value));
    link.onClose(() => this.fail('The connection to the server closed'));
  }

  /** Fails every request in flight (e.g. when the server process exits). */
  fail(reason: string): void {
    this.closedReason ??= reason;
    for (const [id, entry] of this.pending) {
      this.forget(id);
      entry.reject(new TransportError(reason));
    }
    // Nothing more will be sent, so nothing more can time out.
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private receive(value: unknown): void {
    const incoming = classifyMessage(value);
    if (incoming.kind === 'response') {
      const id = incoming.message.id;
      const entry = id === undefined ? undefined : this.pending.get(id);
      if (entry && id !== undefined) {
        this.forget(id);
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
      const deadline = options.timeoutMs === undefined ? Infinity : performance.now() + options.timeoutMs;
      const entry = new Pending(message, resolve, reject, options, deadline);
      this.pending.set(message.id, entry);
      const signal = options.signal;
      if (signal) {
        entry.onAbort = () => this.giveUp(entry, String(signal.reason ?? 'cancelled'), signal.reason ?? new Error('Aborted'));
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      if (deadline !== Infinity) this.watch(deadline);
      this.link.send(message);
    });
  }

  /** Stops waiting for a request: it is cancelled on the server, and its late response goes to onLateResponse. */
  private giveUp(entry: Pending, reason: string, error: unknown): void {
    const id = entry.message.id;
    if (this.pending.get(id) !== entry) return;
    this.forget(id);
    if (entry.options.onLateResponse) this.awaitLate(id, entry.options.onLateResponse);
    this.link.send(notification(Notification.Cancelled, { requestId: id, reason }));
    entry.reject(error);
  }

  /** Removes a settled request; with none left, the deadline timer no longer keeps the process alive. */
  private forget(id: RequestId): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.timer?.unref();
  }

  /**
   * One timer for every request's time limit, set for the earliest deadline
   * (a timer per request costs a timer-list insert and removal per call).
   * It fires no earlier than that deadline; what has not run out by then is
   * watched again.
   */
  private watch(deadline: number): void {
    if (this.timer && this.timerAt <= deadline) {
      this.timer.ref();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = deadline;
    this.timer = setTimeout(() => this.expire(), Math.max(0, Math.ceil(deadline - performance.now())));
  }

  private expire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const entry of [...this.pending.values()]) {
      if (entry.deadline <= now) {
        const ms = entry.options.timeoutMs;
        this.giveUp(entry, 'timed out', new RequestTimeoutError(`${entry.message.method} got no response within ${ms} ms`));
      } else if (entry.deadline < next) next = entry.deadline;
    }
    if (next !== Infinity) this.watch(next);
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
