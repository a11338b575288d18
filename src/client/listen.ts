/**
 * `subscriptions/listen`: one long-lived request whose stream carries the
 * change notifications the server agreed to send; it ends gracefully when the
 * server closes it, or when the client does.
 */

import { McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/guards.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import { Method, Notification } from '../protocol/methods.js';
import type { SubscriptionFilter } from '../protocol/types.js';
import { ClientError } from './errors.js';
import type { Requester } from './requester.js';
import { readResult } from './result-checks.js';

export interface Subscription {
  /** The filter the server agreed to honour. */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /** Settles when the stream ends (resolves on a graceful close by the server or by `close()`). */
  readonly closed: Promise<void>;
  close(): void;
}

export function listen(
  requester: Requester,
  filter: SubscriptionFilter,
  onNotification: (notification: JsonRpcNotification) => void,
  options: { signal?: AbortSignal } = {},
): Subscription {
  const transport = requester.connected;
  if (requester.era === 'legacy') {
    throw new ClientError('subscriptions/listen is 2026-07-28; this server speaks 2025-11-25 (use request("resources/subscribe", { uri }))');
  }
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  let acknowledge!: (filter: SubscriptionFilter) => void;
  let refuse!: (error: unknown) => void;
  const acknowledged = new Promise<SubscriptionFilter>((resolve, reject) => {
    acknowledge = resolve;
    refuse = reject;
  });
  acknowledged.catch(() => undefined);
  const message = requester.message(Method.SubscriptionsListen, { notifications: filter }, {});
  const closed = transport
    .request(message, {
      signal,
      headers: requester.headersFor(transport, message),
      onNotification: (note) => {
        if (note.method === Notification.SubscriptionsAcknowledged) acknowledge((note.params?.notifications ?? {}) as SubscriptionFilter);
        else onNotification(note);
      },
    })
    .then((response) => {
      if ('error' in response) throw new McpError(response.error.code, response.error.message, response.error.data);
      readResult(Method.SubscriptionsListen, isObject(response.result) ? response.result : {}, requester.capabilities);
      refuse(new ClientError('The subscription ended before it was acknowledged'));
    })
    .catch((error: unknown) => {
      refuse(error);
      if (signal.aborted) return;
      throw error;
    });
  return { acknowledged, closed, close: () => controller.abort() };
}
