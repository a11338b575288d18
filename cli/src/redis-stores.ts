/**
 * `tessera serve --redis <url>` (or TESSERA_REDIS_URL): every shared store of
 * the served server on that Redis, so several `tessera serve` processes
 * behind a load balancer take any request; `--redis-prefix` (or
 * TESSERA_REDIS_PREFIX) keeps one application's keys apart from another's;
 * `--redis-cluster` (or TESSERA_REDIS_CLUSTER=1) says the URL is a node of a
 * Redis Cluster. The Redis client is loaded only
 * when asked for, so a plain `tessera serve` starts as fast as before.
 */

import type { SharedStores } from 'tessera-mcp';
import { UsageError } from './errors.js';

/** Where `serve` finds the Redis URL when `--redis` is not given. */
export const REDIS_URL_ENV = 'TESSERA_REDIS_URL';
/** Where `serve` finds the key prefix when `--redis-prefix` is not given. */
export const REDIS_PREFIX_ENV = 'TESSERA_REDIS_PREFIX';
/** Set to 1 (or true) when `--redis-cluster` is not given: the URL is a node of a Redis Cluster. */
export const REDIS_CLUSTER_ENV = 'TESSERA_REDIS_CLUSTER';

export interface ServeStores {
  stores: SharedStores;
  /** Where the URL came from, for messages (`--redis` or the variable). */
  source: string;
  /** The URL without a password, and the key prefix, for the start-up lines. */
  shown: string;
  close(): Promise<void>;
}

/** The URL to use, checked here so a typo fails before anything starts; undefined when neither is set. */
export function redisUrl(given: string | undefined): { url: string; source: string } | undefined {
  const source = given !== undefined ? '--redis' : REDIS_URL_ENV;
  const text = (given ?? process.env[REDIS_URL_ENV])?.trim();
  if (text === undefined || text === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new UsageError(`${source} takes a Redis URL such as redis://127.0.0.1:6379, not "${text}"`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new UsageError(`${source} takes a redis:// or rediss:// URL, not "${text}"`);
  }
  return { url: text, source };
}

function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.href;
}

/**
 * The prefix of every key and channel: `--redis-prefix`, else the variable;
 * undefined for the library's default (`mcp:`). Applications sharing one
 * Redis each need their own, or each reads the other's tasks and hears its
 * changes.
 */
export function redisPrefix(given: string | undefined, url: string | undefined): string | undefined {
  if (given !== undefined && url === undefined) throw new UsageError(`--redis-prefix needs --redis <url> (or ${REDIS_URL_ENV})`);
  const source = given !== undefined ? '--redis-prefix' : REDIS_PREFIX_ENV;
  const text = given ?? process.env[REDIS_PREFIX_ENV];
  if (text === undefined || text === '') return undefined;
  // Printable and without spaces: it is written into every key name and shown on start-up.
  if (!/^[\x21-\x7e]{1,64}$/.test(text)) throw new UsageError(`${source} takes up to 64 printable characters without spaces (such as "billing:"), not ${JSON.stringify(text)}`);
  return text;
}

/** Whether the URL is a node of a Redis Cluster: `--redis-cluster`, else the variable (1 or true; 0, false or empty: no). */
export function redisCluster(given: boolean | undefined, url: string | undefined): boolean {
  if (given === true && url === undefined) throw new UsageError(`--redis-cluster needs --redis <url> (or ${REDIS_URL_ENV})`);
  if (given !== undefined) return given;
  const text = (process.env[REDIS_CLUSTER_ENV] ?? '').trim().toLowerCase();
  if (text === '' || text === '0' || text === 'false') return false;
  if (text === '1' || text === 'true') return url !== undefined;
  throw new UsageError(`${REDIS_CLUSTER_ENV} takes 1 or 0 (true or false), not ${JSON.stringify(process.env[REDIS_CLUSTER_ENV])}`);
}

/** Opens the stores (lazily: the first request that needs Redis connects, and an outage is a 503, not a failed start). */
export async function openRedisStores(given: string | undefined, givenPrefix?: string, givenCluster?: boolean): Promise<ServeStores | undefined> {
  const found = redisUrl(given);
  const prefix = redisPrefix(givenPrefix, found?.url);
  const cluster = redisCluster(givenCluster, found?.url);
  if (!found) return undefined;
  const { redisStores } = await import('tessera-mcp/redis');
  const stores = redisStores({ url: found.url, ...(prefix !== undefined ? { prefix } : {}), ...(cluster ? { cluster } : {}) });
  const shown = `${withoutPassword(found.url)}${cluster ? ' (a Redis Cluster)' : ''}${prefix !== undefined ? `, key prefix ${prefix}` : ''}`;
  return { stores, source: found.source, shown, close: () => stores.close() };
}
