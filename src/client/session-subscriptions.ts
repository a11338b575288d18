/**
 * Following changes on a 2025-11-25 server, behind the same `listen` as
 * 2026-07-28. That era has no listen request: a server that declares
 * `listChanged` sends its list changes unasked, and a resource is followed
 * with `resources/subscribe` (`resources/unsubscribe` once its last
 * listener closes). The notifications come on the session's standalone
 * stream (HTTP), between the responses (stdio), or on a request's stream;
 * each listener gets those its acknowledged filter covers.
 */

import { McpError } from '../protocol/errors.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import { LegacyMethod, Notification } from '../protocol/methods.js';
import type { SubscriptionFilter } from '../protocol/types.js';
import type { Subscription } from './listen.js';
import type { Requester } from './requester.js';

interface Listener {
  /** What the listener asked for until the server's answers are in; then what was agreed. */
  filter: SubscriptionFilter;
  onNotification: (notification: JsonRpcNotification) => void;
  end: () => void;
}

/** Which filter flag lets each list-change notification through. */
const LIST_CHANGES: Record<string, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'> = {
  [Notification.ToolsListChanged]: 'toolsListChanged',
  [Notification.PromptsListChanged]: 'promptsListChanged',
  [Notification.ResourcesListChanged]: 'resourcesListChanged',
};

export class SessionSubscriptions {
  private readonly listeners = new Set<Listener>();
  /** Resources subscribed on the server, with how many listeners follow each. */
  private readonly followers = new Map<string, number>();

  constructor(private readonly requester: Requester) {}

  listen(filter: SubscriptionFilter, onNotification: (notification: JsonRpcNotification) => void, options: { signal?: AbortSignal } = {}): Subscription {
    void this.requester.connected; // not connected: the ClientError every request throws
    const capabilities = this.requester.serverCapabilities ?? {};
    const agreed: SubscriptionFilter = {};
    if (filter.toolsListChanged && capabilities.tools?.listChanged) agreed.toolsListChanged = true;
    if (filter.promptsListChanged && capabilities.prompts?.listChanged) agreed.promptsListChanged = true;
    if (filter.resourcesListChanged && capabilities.resources?.listChanged) agreed.resourcesListChanged = true;
    const wanted = capabilities.resources?.subscribe ? [...new Set(filter.resourceSubscriptions ?? [])] : [];

    let ended = false;
    let endNow!: () => void;
    const closed = new Promise<void>((resolve) => (endNow = resolve));
    // The resources this listener holds once its subscribe requests are answered (none if they failed).
    const holding = this.subscribeAll(wanted, options.signal);
    const listener: Listener = {
      // Updates that come while the subscribe requests are in flight are already this listener's.
      filter: wanted.length > 0 ? { ...agreed, resourceSubscriptions: wanted } : agreed,
      onNotification,
      end: () => {
        if (ended) return;
        ended = true;
        this.listeners.delete(listener);
        options.signal?.removeEventListener('abort', listener.end);
        void holding
          .catch(() => [])
          .then((uris) => Promise.all(uris.map((uri) => this.unfollow(uri))))
          .then(() => endNow());
      },
    };
    this.listeners.add(listener);
    options.signal?.addEventListener('abort', listener.end, { once: true });
    if (options.signal?.aborted) listener.end();

    const acknowledged = holding.then(
      (subscribed) => {
        if (!ended) listener.filter = subscribed.length > 0 ? { ...agreed, resourceSubscriptions: subscribed } : agreed;
        return listener.filter;
      },
      (error: unknown) => {
        listener.end();
        throw error;
      },
    );
    acknowledged.catch(() => undefined);
    return { acknowledged, closed, close: listener.end };
  }

  /** Hands a change notification to the listeners whose filter covers it. */
  deliver(note: JsonRpcNotification): void {
    const flag = LIST_CHANGES[note.method];
    const uri = note.method === Notification.ResourceUpdated ? note.params?.uri : undefined;
    if (flag === undefined && typeof uri !== 'string') return;
    for (const listener of [...this.listeners]) {
      const covered = flag !== undefined ? listener.filter[flag] === true : listener.filter.resourceSubscriptions?.includes(uri as string) === true;
      if (covered) listener.onNotification(note);
    }
  }

  /** The connection is closing: every listener ends (nothing is unsubscribed; the session ends with it). */
  endAll(): void {
    this.followers.clear();
    for (const listener of [...this.listeners]) listener.end();
  }

  /** Subscribes to each resource nobody follows yet; what the server refuses (a JSON-RPC error) is left out. */
  private async subscribeAll(uris: string[], signal: AbortSignal | undefined): Promise<string[]> {
    const subscribed: string[] = [];
    for (const uri of uris) {
      const count = this.followers.get(uri) ?? 0;
      this.followers.set(uri, count + 1);
      if (count > 0) {
        subscribed.push(uri);
        continue;
      }
      try {
        await this.requester.request(LegacyMethod.Subscribe, { uri }, { signal });
        subscribed.push(uri);
      } catch (error) {
        this.release(uri);
        if (!(error instanceof McpError)) {
          await Promise.all(subscribed.map((done) => this.unfollow(done)));
          throw error;
        }
      }
    }
    return subscribed;
  }

  /** One follower fewer; the last one gone unsubscribes (best effort: the session may be ending). */
  private async unfollow(uri: string): Promise<void> {
    if (!this.release(uri)) return;
    await this.requester.request(LegacyMethod.Unsubscribe, { uri }).catch(() => undefined);
  }

  /** One follower fewer; true when it was the last. */
  private release(uri: string): boolean {
    const count = this.followers.get(uri);
    if (count === undefined) return false;
    if (count > 1) {
      this.followers.set(uri, count - 1);
      return false;
    }
    this.followers.delete(uri);
    return true;
  }
}
