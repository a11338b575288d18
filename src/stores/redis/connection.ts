/**
 * One Redis connection (and, for pub/sub, a second one) shared by every
 * store of a server, on node-redis's core client (@redis/client, maintained
 * by Redis: TypeScript types, automatic reconnect with resubscription,
 * scripting). Commands never wait for a connection that is down: they fail
 * at once with an McpError the HTTP edge answers with 503 and Retry-After, and
 * the client reconnects by itself. Nor do they wait long for a Redis that
 * stopped answering (frozen, a network partition: the socket still takes the
 * bytes): each command, connecting included, has `commandTimeoutMs`, after
 * which it fails with the same 503 and the connection is dropped (every
 * command still waiting on it fails at once) and made again on the next one.
 * The client's own `timeout` option cannot do this: it only covers a command
 * not yet written to the socket.
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
  /**
   * How long one command (or subscription) may wait for Redis, connecting
   * included, before it fails with the 503 (default 2000 ms). A command that
   * timed out may still run when Redis wakes up; nothing waits for it then.
   */
  commandTimeoutMs?: number;
}

export type Listener = (message: string) => void;

function isReplyError(error: unknown): boolean {
  return error instanceof ErrorReply;
}

/** A command Redis did not answer in time (never a reply, so never confused with one). */
class RedisTimeout extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms: the connection is dropped and made again on the next command`);
    this.name = 'RedisTimeout';
  }
}

/** `work`, or a RedisTimeout after `ms`; the timer never outlives the race. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeout(ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export class RedisConnection {
  readonly prefix: string;
  private readies = 0;
  private readonly url: string;
  private readonly timeoutMs: number;
  private client: RedisClientType | undefined;
  private subscriber: RedisClientType | undefined;
  private connecting: Promise<RedisClientType> | undefined;
  private subscribing: Promise<RedisClientType> | undefined;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly subscriptions = new Map<string, Promise<void>>();

  constructor(private readonly options: RedisConnectionOptions = {}) {
    this.url = options.url ?? 'redis://127.0.0.1:6379';
    this.prefix = options.prefix ?? 'mcp:';
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
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

  /**
   * Counts the command connections made ready so far: a new value means a new
   * connection, perhaps to a Redis that restarted (what a store remembers of
   * Redis, like its generation, is read again then).
   */
  get epoch(): number {
    return this.readies;
  }

  /** Whether the command connection is up now (a Redis that restarted drops it; until it is made again, this is false). */
  get connected(): boolean {
    return this.client?.isReady === true;
  }

  /** The command connection, connected on first use (never at start-up: `npm start` needs no Redis). */
  private async ready(): Promise<RedisClientType> {
    if (this.client?.isReady) return this.client;
    this.connecting ??= (async () => {
      let client = this.client;
      if (!client) {
        const made = (client = this.client = this.make());
        made.on('ready', () => this.readies++);
      }
      if (!client.isOpen) await client.connect();
      return client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Runs one Redis command; an unreachable Redis is the 503 of unavailable(), at once, and one that does not answer is, after the timeout. */
  async command<T>(args: Array<string | number>): Promise<T> {
    let used: RedisClientType | undefined;
    try {
      return await within(
        this.ready().then((client) => (used = client).sendCommand<T>(args.map(String))),
        this.timeoutMs,
      );
    } catch (error) {
      if (isReplyError(error)) throw error; // Redis answered: a bug in a command, not an outage
      // Still connecting when time ran out: the connection being made is the one that does not answer.
      if (error instanceof RedisTimeout) this.drop(used ?? this.client);
      this.options.onError?.(error);
      throw unavailable();
    }
  }

  /** Drops a command connection that stopped answering: what waits on it fails now, and the next command connects afresh. */
  private drop(client: RedisClientType | undefined): void {
    if (!client) return;
    if (this.client === client) {
      this.client = undefined;
      this.connecting = undefined;
    }
    client.destroy();
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
      // Bounded like a command; a subscription confirmed late still delivers, to whoever still listens.
      const subscribed = within(
        this.subscriberReady().then((subscriber) => subscriber.subscribe(name, deliver)),
        this.timeoutMs,
      ).catch((error: unknown) => {
        this.options.onError?.(error);
        throw unavailable();
      });
      this.subscriptions.set(name, subscribed);
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

  /** Closes both connections, letting commands in flight finish — for at most the command timeout (a frozen Redis must not hold a shutdown). */
  async close(): Promise<void> {
    const clients = [this.client, this.subscriber];
    this.client = this.subscriber = undefined;
    this.listeners.clear();
    await Promise.all(
      clients.map(async (c) => {
        if (!c?.isOpen) return;
        try {
          await within(c.close(), this.timeoutMs);
        } catch {
          c.destroy();
        }
      }),
    );
  }
}

/** The one error a request gets while Redis cannot be reached (HTTP 503, Retry-After); the cause goes to onError only. */
function unavailable(): McpError {
  return McpError.unavailable('the shared store (Redis)');
}
