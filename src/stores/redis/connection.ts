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
 *
 * On a Redis Cluster (`cluster: true`) the same calls go through node-redis's
 * cluster client: each command is routed by its first key (a script's keys
 * share a hash slot: see `tag`), pub/sub is sharded where Redis has it (7.0+:
 * a channel lives on one shard, not broadcast to every node), and the writes a
 * failover must not forget count once a replica holds them (`durable`: WAIT,
 * on a connection of their own, since WAIT holds up every command behind it on
 * its connection). While a master is down and before its replica took over,
 * the cluster answers CLUSTERDOWN: that is the same 503.
 */

import { createClient, createCluster, ErrorReply, type RedisClientType, type RedisClusterType } from '@redis/client';
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
  /**
   * `url` is a node of a Redis Cluster (Redis, Valkey, a managed service in
   * cluster mode): the topology is discovered from it, or from any of `nodes`
   * when it is down. Keys of one script share a hash slot; keys of unrelated
   * tasks, sessions and redemptions spread over the slots.
   */
  cluster?: boolean | { nodes?: string[] };
  /**
   * How many replicas must hold a write a failover must not forget (a
   * redemption, a task, its lease and checkpoints) before it counts (Redis
   * WAIT, on a connection of its own); fewer within half the command timeout
   * is the 503, never a write that a promoted replica could lack. Default 1 on
   * a cluster (give 0 for a cluster without replicas), 0 on one Redis.
   */
  replicas?: number;
}

export type Listener = (message: string) => void;

type Client = RedisClientType;
type Cluster = RedisClusterType;

/** A connection (to one Redis, or to every node of a cluster), made on first use. */
interface Link {
  client?: Client | Cluster;
  connecting?: Promise<Client | Cluster>;
}

/** What a command asks of the connection. */
export interface RedisCommandOptions {
  /** The key that routes it on a cluster (default: the command's first argument). */
  key?: string;
  /** That a replica holds what it wrote before it counts: given the reply, whether it wrote anything (a refusal waits for nothing). */
  durable?: (reply: unknown) => boolean;
}

/** Replies that mean "not now" (a cluster failing over, a replica promoted, data loading), not a bug in a command. */
const TRANSIENT = /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|READONLY)\b/;

function isReplyError(error: unknown): boolean {
  return error instanceof ErrorReply && !TRANSIENT.test(error.message);
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
  /** Whether this is a Redis Cluster (keys of one script are tagged into one hash slot). */
  readonly cluster: boolean;
  private readies = 0;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly replicas: number;
  /** The command connection, and (with replicas to wait for) the one for durable writes and their WAIT. */
  private readonly links: Record<'commands' | 'durable', Link> = { commands: {}, durable: {} };
  private subscriber: Client | Cluster | undefined;
  private subscribing: Promise<Client | Cluster> | undefined;
  /** Whether the cluster has sharded pub/sub (SPUBLISH, Redis 7.0+), asked once. */
  private shardedPubSub: Promise<boolean> | undefined;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly subscriptions = new Map<string, Promise<void>>();

  constructor(private readonly options: RedisConnectionOptions = {}) {
    this.url = options.url ?? 'redis://127.0.0.1:6379';
    this.prefix = options.prefix ?? 'mcp:';
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
    this.cluster = options.cluster !== undefined && options.cluster !== false;
    this.replicas = options.replicas ?? (this.cluster ? 1 : 0);
  }

  /**
   * `text` as the hash tag of a key (`{text}`) on a cluster, so that every key
   * naming it lands in one slot; as it is on one Redis, where key names stay
   * what they always were.
   */
  tag(text: string): string {
    return this.cluster ? `{${text}}` : text;
  }

  private make(): Client | Cluster {
    const socket = { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) };
    let client: Client | Cluster;
    if (this.cluster) {
      const seeds = [this.url, ...(typeof this.options.cluster === 'object' ? (this.options.cluster.nodes ?? []) : [])];
      const { username, password, protocol } = new URL(this.url);
      client = createCluster({
        rootNodes: seeds.map((url) => ({ url, socket })),
        // Every node's connection (not only the seeds'): the credentials and TLS of the URL.
        defaults: {
          disableOfflineQueue: true,
          ...(username ? { username: decodeURIComponent(username) } : {}),
          ...(password ? { password: decodeURIComponent(password) } : {}),
          socket: { ...socket, ...(protocol === 'rediss:' ? { tls: true as const } : {}) },
        },
        // A node that went away: ask the others for the topology soon (its replica may have taken over), not after the default 5 s.
        topologyRefreshOnReconnectionAttemptStrategy: 200,
      }) as unknown as Cluster;
    } else {
      client = createClient({ url: this.url, disableOfflineQueue: true, socket });
    }
    // Without a listener an error event would crash the process; requests see their own errors.
    client.on('error', (error: unknown) => this.options.onError?.(error));
    return client;
  }

  /**
   * Counts the command connections made ready so far (on a cluster, to any
   * node): a new value means a new connection, perhaps to a Redis that
   * restarted (what a store remembers of Redis, like its generation, is read
   * again then).
   */
  get epoch(): number {
    return this.readies;
  }

  /** Whether the command connection is up now (a Redis that restarted drops it; until it is made again, this is false). */
  get connected(): boolean {
    return this.links.commands.client?.isReady === true;
  }

  /** A connection, connected on first use (never at start-up: `npm start` needs no Redis). */
  private async ready(link: Link): Promise<Client | Cluster> {
    if (link.client?.isReady) return link.client;
    link.connecting ??= (async () => {
      let client = link.client;
      if (!client) {
        const made = (client = link.client = this.make());
        // On a cluster, a connection made ready to any of its nodes.
        made.on(this.cluster ? 'node-ready' : 'ready', () => this.readies++);
      }
      if (!client.isOpen) await client.connect();
      return client;
    })().finally(() => (link.connecting = undefined));
    return link.connecting;
  }

  /**
   * Runs one Redis command, routed by `key` on a cluster (default: the
   * command's first argument, the key of every command the stores send); an
   * unreachable Redis is the 503 of unavailable(), at once, and one that does
   * not answer is, after the timeout.
   */
  async command<T>(args: Array<string | number>, options: RedisCommandOptions = {}): Promise<T> {
    const strings = args.map(String);
    const key = options.key ?? strings[1];
    if (!options.durable || this.replicas === 0) {
      return this.guarded(this.links.commands, (client) => (this.cluster ? (client as Cluster).sendCommand<T>(key, false, strings) : (client as Client).sendCommand<T>(strings)));
    }
    return this.guarded(this.links.durable, async (client) => {
      // Through the cluster client (it follows MOVED to a promoted replica), then WAIT on the connection that served it: the slot's master's.
      const reply = this.cluster ? await (client as Cluster).sendCommand<T>(key, false, strings) : await (client as Client).sendCommand<T>(strings);
      if (!options.durable!(reply)) return reply;
      const node = this.cluster ? await (client as Cluster).getNodeClientForKey(key!) : (client as Client);
      const acknowledged = await node.sendCommand<number>(['WAIT', String(this.replicas), String(Math.max(1, Math.floor(this.timeoutMs / 2)))]);
      if (acknowledged < this.replicas) throw new Error(`Redis: a write reached ${acknowledged} of the ${this.replicas} replicas it needs (WAIT)`);
      return reply;
    });
  }

  /** `work` on a connection, within the timeout; failures other than Redis's own replies are the 503. */
  private async guarded<T>(link: Link, work: (client: Client | Cluster) => Promise<T>): Promise<T> {
    let used: Client | Cluster | undefined;
    try {
      return await within(
        this.ready(link).then((client) => work((used = client))),
        this.timeoutMs,
      );
    } catch (error) {
      if (isReplyError(error)) throw error; // Redis answered: a bug in a command, not an outage
      // Still connecting when time ran out: the connection being made is the one that does not answer.
      if (error instanceof RedisTimeout) this.drop(link, used ?? link.client);
      this.options.onError?.(error);
      throw unavailable();
    }
  }

  /** Drops a connection that stopped answering: what waits on it fails now, and the next command connects afresh. */
  private drop(link: Link, client: Client | Cluster | undefined): void {
    if (!client) return;
    if (link.client === client) {
      link.client = undefined;
      link.connecting = undefined;
    }
    client.destroy();
  }

  /** Runs a Lua script atomically (on a cluster, on the node of its keys, which share one slot); `durable`: see command(). */
  async script<T>(lua: string, keys: string[], args: Array<string | number>, options: Pick<RedisCommandOptions, 'durable'> = {}): Promise<T> {
    return this.command<T>(['EVAL', lua, keys.length, ...keys, ...args], { key: keys[0], ...options });
  }

  /** Whether channels are sharded (SPUBLISH/SSUBSCRIBE): on a cluster whose Redis has them; never on one Redis, where nothing changes. */
  private sharded(): Promise<boolean> {
    if (!this.cluster) return Promise.resolve(false);
    this.shardedPubSub ??= this.guarded(this.links.commands, async (client) => {
      const info = await (client as Cluster).sendCommand<unknown[]>(undefined, true, ['COMMAND', 'INFO', 'SPUBLISH']);
      return Array.isArray(info) && info[0] !== null && info[0] !== undefined;
    }).catch((error: unknown) => {
      this.shardedPubSub = undefined;
      throw error;
    });
    return this.shardedPubSub;
  }

  /** The command a script publishes with (`PUBLISH`, or `SPUBLISH` on a cluster with sharded pub/sub: the channel must then share the script's slot). */
  async publishCommand(): Promise<'PUBLISH' | 'SPUBLISH'> {
    return (await this.sharded()) ? 'SPUBLISH' : 'PUBLISH';
  }

  async publish(channel: string, message: string): Promise<void> {
    const name = this.prefix + channel;
    await this.command([await this.publishCommand(), name, message], { key: name });
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
        Promise.all([this.subscriberReady(), this.sharded()]).then(([subscriber, sharded]) =>
          sharded ? (subscriber as Cluster).sSubscribe(name, deliver) : subscriber.subscribe(name, deliver),
        ),
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
      const subscriber = this.subscriber;
      if (!subscriber) return;
      void this.sharded()
        .then((sharded) => (sharded ? (subscriber as Cluster).sUnsubscribe(name) : subscriber.unsubscribe(name)))
        .catch(() => undefined);
    };
    return { stop, subscribed: this.subscriptions.get(name)! };
  }

  private async subscriberReady(): Promise<Client | Cluster> {
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
    const clients = [this.links.commands.client, this.links.durable.client, this.subscriber];
    this.links.commands = {};
    this.links.durable = {};
    this.subscriber = undefined;
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
