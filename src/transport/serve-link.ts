/**
 * Serving MCP over a message link (stdio, in-memory): requests run
 * concurrently, each with its own AbortSignal; `notifications/cancelled`
 * aborts one; nothing more is sent for a cancelled request.
 */

import type { Connection, RequestChannel, RequestHandler } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import { classifyMessage, errorResponse, isRequestId, type JsonRpcNotification, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { Notification } from '../protocol/methods.js';
import type { RequestId } from '../protocol/types.js';
import type { MessageLink } from './link.js';

export interface LinkServer {
  /** Requests still being handled. */
  readonly inFlight: number;
  /** Resolves when the link has closed and every request has settled. */
  readonly closed: Promise<void>;
}

/**
 * One request in flight, and the channel its handler gets: one object per
 * request (no closures); its AbortController is made only if someone looks
 * at the signal.
 */
class InFlight implements RequestChannel {
  private controller: AbortController | undefined;
  cancelled = false;
  readonly canNotify = true;

  constructor(
    private readonly sendToClient: (message: JsonRpcNotification | JsonRpcRequest) => void,
    readonly connection: Connection,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort();
    }
    return this.controller.signal;
  }

  send(outgoing: JsonRpcNotification | JsonRpcRequest): void {
    if (!this.cancelled) this.sendToClient(outgoing);
  }

  cancel(): void {
    this.cancelled = true;
    this.controller?.abort();
  }
}

export function serveLink(handler: RequestHandler, link: MessageLink): LinkServer {
  const inFlight = new Map<RequestId, InFlight>();
  // Requests not yet settled (in flight or being cancelled): `closed` waits for them. A count, not a set of promises.
  let unsettled = 0;
  let linkOpen = true;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const settledOne = (): void => {
    if (--unsettled === 0 && !linkOpen) resolveClosed();
  };

  const send = (message: Parameters<MessageLink['send']>[0]): void => {
    if (linkOpen) link.send(message);
  };
  const connectionClosed = new AbortController();
  const connection: Connection = { slots: new Map(), send, closed: connectionClosed.signal };

  // Never rejects: a failing handler leaves the request unanswered, as before (the request path turns its errors into replies).
  const handleRequest = async (request: JsonRpcRequest): Promise<void> => {
    const entry = new InFlight(send, connection);
    inFlight.set(request.id, entry);
    unsettled++;
    try {
      const reply = await handler.handleRequest(request, entry);
      if (!entry.cancelled && !reply.withhold) send(reply.message);
    } catch {
      // nothing to send: see above
    } finally {
      if (inFlight.get(request.id) === entry) inFlight.delete(request.id);
      settledOne();
    }
  };

  link.onMessage((value, raw) => {
    const incoming = value === undefined && raw !== undefined ? { kind: 'invalid' as const, error: McpError.parseError() } : classifyMessage(value);
    switch (incoming.kind) {
      case 'invalid':
        send(errorResponse(incoming.id, incoming.error));
        return;
      case 'response':
        // Answers to a 2025-era session's server-initiated requests; 2026-07-28 has none.
        void Promise.resolve(handler.sessionPeer?.handleResponse(incoming.message, { connection })).catch(() => undefined);
        return;
      case 'notification': {
        if (incoming.message.method === Notification.Cancelled) {
          const id = incoming.message.params?.requestId;
          if (isRequestId(id)) inFlight.get(id)?.cancel();
        }
        void Promise.resolve(handler.sessionPeer?.handleNotification(incoming.message, { connection })).catch(() => undefined);
        return;
      }
      case 'request': {
        const request = incoming.message;
        if (inFlight.has(request.id)) {
          send(errorResponse(request.id, McpError.invalidRequest(`Invalid request: id ${JSON.stringify(request.id)} is already in use`)));
          return;
        }
        void handleRequest(request);
      }
    }
  });

  link.onClose(() => {
    linkOpen = false;
    connectionClosed.abort();
    for (const entry of inFlight.values()) entry.cancel();
    if (unsettled === 0) resolveClosed();
  });

  return new ServedLink(inFlight, closed);
}

/** What serveLink gives back (a class, like every object with a getter in src/: see transport/http/node-request.ts). */
class ServedLink implements LinkServer {
  constructor(
    private readonly requests: ReadonlyMap<RequestId, unknown>,
    readonly closed: Promise<void>,
  ) {}

  get inFlight(): number {
    return this.requests.size;
  }
}
