/**
 * `subscriptions/listen`: one long-lived request per subscription, whose
 * response stream carries only the change notifications the client opted in to,
 * each tagged with the subscription id (the listen request's id).
 */

import type { CheckedParams } from './method-params.js';
import type { RequestChannel } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import { notification } from '../protocol/jsonrpc.js';
import { META_SUBSCRIPTION_ID } from '../protocol/meta.js';
import { Notification } from '../protocol/methods.js';
import type { SubscriptionsListenResult } from '../protocol/method-types.js';
import type { RequestId, ServerCapabilities, SubscriptionFilter } from '../protocol/types.js';
import { coversResource, type Change, type ChangeBus } from '../stores/change-bus.js';

interface Listener {
  id: RequestId;
  filter: SubscriptionFilter;
  channel: RequestChannel;
  close: () => void;
}

/** The part of the client's filter this server can honour, given its capabilities. */
export function agreedFilter(requested: SubscriptionFilter, capabilities: ServerCapabilities): SubscriptionFilter {
  const agreed: SubscriptionFilter = {};
  if (requested.toolsListChanged === true && capabilities.tools?.listChanged) agreed.toolsListChanged = true;
  if (requested.promptsListChanged === true && capabilities.prompts?.listChanged) agreed.promptsListChanged = true;
  if (requested.resourcesListChanged === true && capabilities.resources?.listChanged) agreed.resourcesListChanged = true;
  if (Array.isArray(requested.resourceSubscriptions) && capabilities.resources?.subscribe) {
    const uris = requested.resourceSubscriptions.filter((u): u is string => typeof u === 'string');
    if (uris.length > 0) agreed.resourceSubscriptions = uris;
  }
  return agreed;
}

const LIST_NOTIFICATIONS = {
  tools: ['toolsListChanged', Notification.ToolsListChanged],
  prompts: ['promptsListChanged', Notification.PromptsListChanged],
  resources: ['resourcesListChanged', Notification.ResourcesListChanged],
} as const;

/** The listen streams of this instance; they hear every change on the bus and pass on what their filter asked for. */
export class SubscriptionHub {
  private readonly listeners = new Set<Listener>();
  private readonly unsubscribe: () => void;

  constructor(bus: ChangeBus) {
    this.unsubscribe = bus.subscribe((change) => this.deliver(change));
  }

  get size(): number {
    return this.listeners.size;
  }

  /**
   * Serves one listen request: acknowledges, then holds the request open until
   * the client goes away (nothing more to send) or the server shuts down (the
   * graceful `subscriptions/listen` result).
   */
  listen(
    id: RequestId,
    params: CheckedParams<'subscriptions/listen'>,
    channel: RequestChannel,
    capabilities: ServerCapabilities,
  ): Promise<SubscriptionsListenResult> {
    const requested = params.notifications;
    if (!channel.canNotify) {
      throw McpError.invalidRequest('subscriptions/listen needs a stream: accept text/event-stream');
    }
    const filter = agreedFilter(requested, capabilities);
    const tag = { [META_SUBSCRIPTION_ID]: id };
    channel.send(notification(Notification.SubscriptionsAcknowledged, { _meta: tag, notifications: filter }));

    return new Promise((resolve) => {
      const listener: Listener = {
        id,
        filter,
        channel,
        close: () => {
          this.listeners.delete(listener);
          resolve({ _meta: tag });
        },
      };
      this.listeners.add(listener);
      channel.signal.addEventListener('abort', listener.close, { once: true });
    });
  }

  private send(listener: Listener, method: string, extra?: Record<string, unknown>): void {
    if (listener.channel.signal.aborted) return;
    listener.channel.send(notification(method, { ...extra, _meta: { [META_SUBSCRIPTION_ID]: listener.id } }));
  }

  private deliver(change: Change): void {
    if (change.type === 'list') {
      const [flag, method] = LIST_NOTIFICATIONS[change.list];
      for (const l of this.listeners) if (l.filter[flag]) this.send(l, method);
      return;
    }
    for (const l of this.listeners) {
      if (l.filter.resourceSubscriptions?.some((s) => coversResource(s, change.uri))) this.send(l, Notification.ResourceUpdated, { uri: change.uri });
    }
  }

  /** Ends every listen stream with its graceful result (e.g. on shutdown). */
  close(): void {
    this.unsubscribe();
    for (const l of [...this.listeners]) l.close();
  }
}
