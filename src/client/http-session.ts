/**
 * The 2025-11-25 era of the client's Streamable HTTP transport (which only
 * moves bytes): the session the initialize response named (`Mcp-Session-Id`)
 * and the negotiated version go on every message; a response may arrive on
 * another stream than its request's (a resumed or the standalone GET);
 * aborting a request tells the server (disconnecting is not cancelling in that
 * era); a stream that ends early is resumed with GET and `Last-Event-ID` after
 * the server's `retry` delay; a standalone GET stream carries what belongs to
 * no request; 404 means the server no longer knows the session; closing sends
 * DELETE. Until `begin`, and after `forget`, there is no session and every
 * member leaves the transport's messages as they are (2026-07-28).
 */

import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import { Notification } from '../protocol/methods.js';
import type { Deadline } from './deadline.js';
import { TransportError } from './errors.js';
import { pause } from './pause.js';
import { StreamBroken } from './stream-broken.js';
import type { TransportRequestOptions } from './transport.js';

/** The longest wait between a broken 2025 stream and its resumption, whatever `retry` the server sent. */
const MAX_RETRY_DELAY_MS = 30_000;

export interface Session {
  /** Absent when the server issued none (a sessionless 2025-era server). */
  id: string | undefined;
  version: string;
}

/** The byte moves a session needs from its transport. */
export interface SessionWire {
  /** POSTs a notification. */
  notify(message: JsonRpcNotification): Promise<void>;
  /**
   * GETs the endpoint's SSE stream (with the session's headers and these) and
   * reads it; with `waitFor`, until that response (a refused GET then fails),
   * else until it ends (undefined: the server offers no stream).
   */
  stream(headers: Record<string, string>, waitFor: JsonRpcRequest['id'] | undefined, options: TransportRequestOptions, deadline?: Deadline): Promise<JsonRpcResponse | undefined>;
  /** One fetch of the endpoint, within its origin. */
  fetch(init: RequestInit): Promise<Response>;
}

export class HttpSession {
  private session: Session | undefined;
  /** The session id the last response carried (the initialize response's becomes the session's). */
  private lastSessionId: string | undefined;
  /** Requests waiting for a response that may arrive on any stream. */
  private readonly waiting = new Map<JsonRpcRequest['id'], (response: JsonRpcResponse) => void>();

  constructor(private readonly wire: SessionWire) {}

  get active(): boolean {
    return this.session !== undefined;
  }

  /** Switches to a session (its headers go on every later message), or back to none. */
  use(session: Session | undefined): void {
    this.session = session;
  }

  /** The session the last response named (if any), in the negotiated version. */
  begin(version: string): void {
    this.use({ id: this.lastSessionId, version });
  }

  /** No session any more (e.g. the server no longer knows it). */
  forget(): void {
    this.use(undefined);
  }

  /** The session's headers for a message (none without a session). */
  headers(): Record<string, string> {
    if (!this.session) return {};
    const headers: Record<string, string> = { 'mcp-protocol-version': this.session.version };
    if (this.session.id !== undefined) headers['mcp-session-id'] = this.session.id;
    return headers;
  }

  /** Remembers the session id a response carried. */
  heard(response: Response): void {
    const id = response.headers.get('mcp-session-id');
    if (id) this.lastSessionId = id;
  }

  /**
   * What a request takes on in a session: its response may come on another
   * stream (`elsewhere`), and aborting it sends `notifications/cancelled`
   * (2026-07-28 needs nothing: closing is cancelling). `done` undoes both.
   */
  track(message: JsonRpcRequest, signal: AbortSignal | undefined): { elsewhere?: Promise<JsonRpcResponse>; done(): void } {
    const session = this.session;
    if (!session) return { done: () => undefined };
    const elsewhere = new Promise<JsonRpcResponse>((resolve) => this.waiting.set(message.id, resolve));
    const cancel = (): void => {
      if (this.session !== session) return;
      const reason = String(signal?.reason ?? 'cancelled');
      void this.wire.notify({ jsonrpc: '2.0', method: Notification.Cancelled, params: { requestId: message.id, reason } }).catch(() => undefined);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    return {
      elsewhere,
      done: () => {
        signal?.removeEventListener('abort', cancel);
        this.waiting.delete(message.id);
      },
    };
  }

  /** A 404 in a session: the server no longer knows it (the requester starts a new one). */
  async check(response: Response): Promise<void> {
    const session = this.session;
    if (!session || response.status !== 404) return;
    await response.body?.cancel().catch(() => undefined);
    throw new TransportError(`The server no longer knows session ${session.id ?? ''}; initialize again`, 404);
  }

  /** Hands a response to the request waiting for it, whatever stream it came on; false without a session. */
  deliver(response: JsonRpcResponse): boolean {
    if (!this.session) return false;
    const id = response.id;
    if (id !== undefined) this.waiting.get(id)?.(response);
    return true;
  }

  /** Whether a broken stream is resumed (in a session, when an event id was seen) rather than the request sent again. */
  resumes(broken: StreamBroken): boolean {
    return this.session !== undefined && broken.lastEventId !== undefined;
  }

  /** Waits the server's retry delay, then GETs with Last-Event-ID to get the rest of the stream. */
  async resume(message: JsonRpcRequest, broken: StreamBroken, options: TransportRequestOptions, limit: number, deadline: Deadline): Promise<JsonRpcResponse> {
    let last = broken;
    for (let tries = 0; tries < limit; tries++) {
      const left = deadline.remaining();
      const delay = Math.min(last.retryMs ?? 1000, MAX_RETRY_DELAY_MS);
      if (left !== undefined && left <= delay) throw deadline.exceeded(message.method);
      await pause(delay, options.signal);
      try {
        const response = await this.wire.stream({ 'last-event-id': last.lastEventId! }, message.id, options, deadline);
        if (response) return response;
      } catch (error) {
        if (!(error instanceof StreamBroken) || options.signal?.aborted) throw error;
        last = error.lastEventId === undefined ? last : error;
      }
    }
    throw new TransportError(`The response stream for request ${String(message.id)} could not be resumed`);
  }

  /** Opens the session's standalone stream, for requests and notifications that belong to no request; reopened when it breaks, while there is a session. */
  openStandaloneStream(): void {
    const run = async (): Promise<void> => {
      for (let attempt = 0; this.session && attempt < 5; attempt++) {
        try {
          await this.wire.stream({}, undefined, {});
          return; // the server refused or ended it cleanly
        } catch (error) {
          if (!(error instanceof StreamBroken)) return;
          await pause(Math.min(error.retryMs ?? 1000, MAX_RETRY_DELAY_MS));
        }
      }
    };
    void run();
  }

  /** Ends the session on the server (SHOULD, with DELETE); a failure changes nothing here. */
  async close(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (session?.id === undefined) return;
    await this.wire
      .fetch({ method: 'DELETE', headers: { 'mcp-session-id': session.id, 'mcp-protocol-version': session.version }, signal: AbortSignal.timeout(2000) })
      .then((res) => res.body?.cancel())
      .catch(() => undefined);
  }
}
