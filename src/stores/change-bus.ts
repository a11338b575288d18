/**
 * What changed on the server (a list, or one resource), for everyone who
 * listens: 2026-07-28 `subscriptions/listen` streams and 2025-11-25 sessions
 * hear it through the same bus and match resources by the same rule.
 */

export type ChangeList = 'tools' | 'prompts' | 'resources';

export type Change = { type: 'list'; list: ChangeList } | { type: 'resource'; uri: string };

export interface ChangeBus {
  /** Tells every listener (of every instance sharing the bus). */
  publish(change: Change): Promise<void>;
  /** Hears every change until the returned function is called. */
  subscribe(listener: (change: Change) => void): () => void;
}

/** For one process. */
export class MemoryChangeBus implements ChangeBus {
  private readonly listeners = new Set<(change: Change) => void>();

  publish(change: Change): Promise<void> {
    for (const listener of [...this.listeners]) listener(change);
    return Promise.resolve();
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Whether a subscription to `subscribed` covers an update of `uri`: the same
 * URI, or one beneath it (after a `/`, or after a subscription that itself
 * ends in `/`, `#` or `?`).
 */
export function coversResource(subscribed: string, uri: string): boolean {
  if (uri === subscribed) return true;
  if (!uri.startsWith(subscribed)) return false;
  return /[/#?]$/.test(subscribed) || uri[subscribed.length] === '/';
}
