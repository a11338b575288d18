/**
 * A request's notifications, held back while a -32021 may still come: on
 * Streamable HTTP the first notification starts a 200 SSE stream, after which
 * the spec's HTTP 400 for -32021 is no longer possible. A handler that
 * declares what it may ask (`asks`) and whose request did not declare it gets
 * its notifications held until it finishes: then they go out (and the result
 * after them), or, on -32021, are dropped so the error can travel on 400.
 */

import type { RequestChannel } from '../protocol/channel.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';

export interface HeldChannel {
  readonly channel: RequestChannel;
  /** Sends what was held, and everything from now on, at once. */
  release(): void;
  /** Forgets what was held (the request ends with an error that must not stream). */
  drop(): void;
}

export function holdNotifications(channel: RequestChannel): HeldChannel {
  let held: Array<JsonRpcNotification | JsonRpcRequest> | undefined = [];
  const holding: RequestChannel = {
    get signal() {
      return channel.signal;
    },
    canNotify: channel.canNotify,
    send: (message) => (held ? held.push(message) : channel.send(message)),
    ...(channel.header ? { header: (name: string) => channel.header!(name) } : {}),
    ...(channel.principal !== undefined ? { principal: channel.principal } : {}),
    ...(channel.connection ? { connection: channel.connection } : {}),
  };
  return {
    channel: holding,
    release() {
      const pending = held ?? [];
      held = undefined;
      for (const message of pending) channel.send(message);
    },
    drop() {
      held = undefined;
    },
  };
}
