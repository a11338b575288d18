/**
 * A scripted in-memory MCP peer for client tests: one end of `createLinkPair`
 * is a LinkClientTransport for the Client, the other is this recorder, which
 * keeps every message the client sends (requests and notifications) and lets a
 * script answer requests — or not answer, or send notifications — as it likes.
 */

import { createLinkPair, LinkClientTransport } from '../../src/client.js';
import { Changes } from './changes.js';
import type { Json } from './scripted-http.js';

export interface LinkPeer {
  /** Sends any message to the client. */
  send(message: Json): void;
  result(request: Json, result: Json): void;
  error(request: Json, error: { code: number; message: string; data?: unknown }): void;
}

export type LinkResponder = (message: Json, peer: LinkPeer) => void | Promise<void>;

export interface ScriptedLink {
  transport: LinkClientTransport;
  /** Everything the client sent, in order. */
  received: Json[];
  requests(): Json[];
  notifications(): Json[];
  /** Resolves once a received message satisfies `check` (rejects after `timeoutMs`, a guard against hangs). */
  waitFor(what: string, check: (m: Json) => boolean, timeoutMs?: number): Promise<Json>;
  close(): void;
}

export function scriptedLink(responder: LinkResponder): ScriptedLink {
  const [clientEnd, serverEnd] = createLinkPair();
  const received: Json[] = [];
  const changes = new Changes();
  const peer: LinkPeer = {
    send: (message) => serverEnd.send(message as never),
    result: (request, result) => serverEnd.send({ jsonrpc: '2.0', id: request.id, result } as never),
    error: (request, error) => serverEnd.send({ jsonrpc: '2.0', id: request.id, error } as never),
  };
  serverEnd.onMessage((message) => {
    received.push(message as Json);
    changes.changed();
    if (typeof (message as Json).method === 'string' && 'id' in (message as Json)) void responder(message as Json, peer);
  });
  const transport = new LinkClientTransport(clientEnd, 'memory');
  return {
    transport,
    received,
    requests: () => received.filter((m) => 'id' in m && typeof m.method === 'string'),
    notifications: () => received.filter((m) => !('id' in m)),
    waitFor: (what, check, timeoutMs = 10_000) => changes.until(what, () => received.find(check), timeoutMs),
    close: () => serverEnd.close(),
  };
}
