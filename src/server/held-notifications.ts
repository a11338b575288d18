/**
 * A request's notifications, held back while a -32021 may still come: on
 * Streamable HTTP the first notification starts a 200 SSE stream, after which
 * the spec's HTTP 400 for -32021 is no longer possible. A handler that
 * declares what it may ask (`asks`) and whose request did not declare it gets
 * its notifications held until it finishes: then they go out (and the result
 * after them), or, on -32021, are dropped so the error can travel on 400.
 */

import { ChannelView, type RequestChannel } from '../protocol/channel.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';

export interface HeldChannel {
  readonly channel: RequestChannel;
  /** Sends what was held, and everything from now on, at once. */
  release(): void;
  /** Forgets what was held (the request ends with an error that must not stream). */
  drop(): void;
}

/** The held channel seen through (every other member delegated: ChannelView), its sends held. */
class HoldingChannel extends ChannelView implements HeldChannel {
  private held: Array<JsonRpcNotification | JsonRpcRequest> | undefined = [];

  get channel(): RequestChannel {
    return this;
  }

  override send(message: JsonRpcNotification | JsonRpcRequest): void {
    if (this.held) this.held.push(message);
    else this.inner.send(message);
  }

  release(): void {
    const pending = this.held ?? [];
    this.held = undefined;
    for (const message of pending) this.inner.send(message);
  }

  drop(): void {
    this.held = undefined;
  }
}

export function holdNotifications(channel: RequestChannel): HeldChannel {
  return new HoldingChannel(channel);
}
