/**
 * `tessera serve --redis <url>` (or TESSERA_REDIS_URL): every shared store of
 * the served server on that Redis, so several `tessera serve` processes
 * behind a load balancer take any request. The Redis client is loaded only
 * when asked for, so a plain `tessera serve` starts as fast as before.
 */

import type { SharedStores } from 'tessera-mcp';
import { UsageError } from './errors.js';

/** Where `serve` finds the Redis URL when `--redis` is not given. */
export const REDIS_URL_ENV = 'TESSERA_REDIS_URL';

export interface ServeStores {
  stores: SharedStores;
  /** Where the URL came from, for messages (`--redis` or the variable). */
  source: string;
  /** The URL without a password, for the start-up lines. */
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

/** Opens the stores (lazily: the first request that needs Redis connects, and an outage is a 503, not a failed start). */
export async function openRedisStores(given: string | undefined): Promise<ServeStores | undefined> {
  const found = redisUrl(given);
  if (!found) return undefined;
  const { redisStores } = await import('tessera-mcp/redis');
  const stores = redisStores({ url: found.url });
  return { stores, source: found.source, shown: withoutPassword(found.url), close: () => stores.close() };
}
