/**
 * One Redis connection (and, for pub/sub, a second one) shared by every
 * store of a server, on node-redis's core client (@redis/client, maintained
 * by Redis: TypeScript types, automatic reconnect with resubscription,
 * scripting). Commands never wait for a connection that is down: they fail
 * at once with an McpError the HTTP edge answers with 503 and Retry-After, and
 * the client reconnects by itself.
 */

import { createClient, ErrorReply, type RedisClientType } from '@redis/client';
import { McpError } from '../../protocol/errors.js';

export interface RedisConnectionOptions {
  /** `redis://host:port[/db]` (default `redis://127.0.0.1:6379`). */
  url?: string;
  /** Prefix of every key and channel, so several servers can share one Redis (default `mcp:`). */
  prefix?: string;
  /** Told of connection errors (default: nothing; requests get their own errors). */
  onError?: (error: unknown) => void;
}

export type Listener = (message: string) => void;

function isReplyError(error: unknown): boolean {
  return error instanceof ErrorReply;
}

export class RedisConnection {
  readonly prefix: string;
  private readonly url: string;
  private client: RedisClientType | undefined;
  private subscriber: RedisClientType | undefined;
  private connecting: Promise<RedisClientType> | undefined;
  private subscribing: Promise<RedisClientType> | undefined;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly subscriptions = new Map<string, Promise<void>>();

  constructor(private readonly options: RedisConnectionOptions = {}) {
    this.url = options.url ?? 'redis://127.0.0.1:6379';
    this.prefix = options.prefix ?? 'mcp:';
  }

  private make(): RedisClientType {
    const client: RedisClientType = createClient({
      url: this.url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) },
    });
    // Without a listener an error event would crash the process; requests see their own errors.
    client.on('error', (error: unknown) => this.options.onError?.(error));
    return client;
  }

  /** The command connection, connected on first use (never at start-up: `npm start` needs no Redis). */
  private async ready(): Promise<RedisClientType> {
    if (this.client?.isReady) return this.client;
    this.connecting ??= (async () => {
      const client = this.client ?? (this.client = this.make());
      if (!client.isOpen) await client.connect();
      return client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Runs one Redis command; an unreachable Redis is the 503 of unavailable(), at once. */
  async command<T>(args: Array<string | number>): Promise<T> {
    try {
      const client = await this.ready();
      return await client.sendCommand<T>(args.map(String));
    } catch (error) {
      if (isReplyError(error)) throw error; // Redis answered: a bug in a command, not an outage
      this.options.onError?.(error);
      throw unavailable();
    }
  }

  /** Runs a Lua script atomically. */
  async script<T>(lua: string, keys: string[], args: Array<string | number>): Promise<T> {
    return this.command<T>(['EVAL', lua, keys.length, ...keys, ...args]);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.command(['PUBLISH', this.prefix + channel, message]);
  }

  /**
   * Hears `channel` until the returned function is called; one subscription
   * per channel, shared. `subscribed` resolves once Redis confirmed it (a
   * message published earlier is not heard).
   */
  subscribe(channel: string, listener: Listener): { stop: () => void; subscribed: Promise<void> } {
    const name = this.prefix + channel;
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
      const deliver = (message: string): void => {
        for (const l of [...(this.listeners.get(name) ?? [])]) l(message);
      };
      this.subscriptions.set(
        name,
        this.subscriberReady()
          .then((subscriber) => subscriber.subscribe(name, deliver))
          .catch((error: unknown) => {
            this.options.onError?.(error);
            throw McpError.unavailable('the shared store (Redis)');
          }),
      );
    }
    set.add(listener);
    const stop = (): void => {
      const current = this.listeners.get(name);
      if (!current) return;
      current.delete(listener);
      if (current.size > 0) return;
      this.listeners.delete(name);
      this.subscriptions.delete(name);
      void this.subscriber?.unsubscribe(name).catch(() => undefined);
    };
    return { stop, subscribed: this.subscriptions.get(name)! };
  }

  private async subscriberReady(): Promise<RedisClientType> {
    if (this.subscriber?.isReady) return this.subscriber;
    this.subscribing ??= (async () => {
      const subscriber = this.subscriber ?? (this.subscriber = this.make());
      if (!subscriber.isOpen) await subscriber.connect();
      return subscriber;
    })().finally(() => (this.subscribing = undefined));
    return this.subscribing;
  }

  async close(): Promise<void> {
    const clients = [this.client, this.subscriber];
    this.client = this.subscriber = undefined;
    this.listeners.clear();
    await Promise.all(clients.map((c) => c?.isOpen && c.close().catch(() => undefined)));
  }
}

/** The one error a request gets while Redis cannot be reached (HTTP 503, Retry-After); the cause goes to onError only. */
function unavailable(): McpError {
  return McpError.unavailable('the shared store (Redis)');
}
