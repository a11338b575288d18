/** What a server can be configured with, and the defaults. */

import type { KeyRing } from '../mrtr/keyring.js';
import type { CacheHints } from '../protocol/types.js';
import type { ChangeBus } from '../stores/change-bus.js';
import type { RedemptionStore } from '../stores/redemption-store.js';
import type { TelemetryOptions } from '../telemetry/telemetry-options.js';
import type { RequestLog } from './request-log.js';

/** Where the server reports what the client must not see: handler failures, rejected state. */
export interface ServerLogger {
  error(message: string, detail?: unknown): void;
  warn(message: string, detail?: unknown): void;
}

export const stderrLogger: ServerLogger = {
  error: (message, detail) => console.error(`[tessera] ${message}`, ...(detail === undefined ? [] : [detail])),
  warn: (message, detail) => console.error(`[tessera] ${message}`, ...(detail === undefined ? [] : [detail])),
};

export type CacheableList = 'discover' | 'tools' | 'prompts' | 'resources' | 'templates' | 'read';

export const DEFAULT_CACHE: Readonly<Record<CacheableList, CacheHints>> = {
  discover: { ttlMs: 60_000, cacheScope: 'public' },
  tools: { ttlMs: 60_000, cacheScope: 'public' },
  prompts: { ttlMs: 60_000, cacheScope: 'public' },
  resources: { ttlMs: 60_000, cacheScope: 'public' },
  templates: { ttlMs: 60_000, cacheScope: 'public' },
  // A resource's contents may be about the caller: private unless the author says otherwise.
  read: { ttlMs: 0, cacheScope: 'private' },
};

export interface ServerOptions {
  /** Guidance for the model, published by `server/discover`. */
  instructions?: string;
  /** Items per page of the list methods (default 100). */
  pageSize?: number;
  /** Caching hints (`ttlMs`, `cacheScope`) per cacheable result; resources may override `read` one by one. */
  cache?: Partial<Record<CacheableList, Partial<CacheHints>>>;
  /** Whether handlers may send log messages to clients that opt in (deprecated feature; default true). */
  logging?: boolean;
  /** Put `serverInfo` in every result's `_meta` (default true). */
  serverInfoInResults?: boolean;
  logger?: ServerLogger;
  /** How `requestState` is sealed and checked (multi round-trip requests). */
  state?: StateOptions;
  /** Where list changes and resource updates travel to listeners (default: this process only). */
  changes?: ChangeBus;
  /**
   * OpenTelemetry spans and metrics (docs/observability.md): on by default
   * through the global providers, a no-op until the app installs an SDK;
   * providers of its own, or `false` for none at all.
   */
  telemetry?: TelemetryOptions | false;
  /** One entry per request (method, name, era, status, duration, flow, round, principal); see also `McpServer.logRequests`. */
  requestLog?: RequestLog;
}

export interface StateOptions {
  /**
   * The key ring, or its text form (`id:base64url32[,…]`, sealing key first).
   * Default: `TESSERA_STATE_KEYS` from the environment, else a key made for
   * this process only (other instances then cannot open its state).
   */
  keys?: KeyRing | string;
  /** How long a sealed state stays valid, in ms (default 10 minutes). */
  ttlMs?: number;
  /** Largest sealed state in bytes (default 64 KiB). */
  maxBytes?: number;
  /** Who states are issued by and for; instances that share keys and this value accept each other's states (default: the server name). */
  audience?: string;
  /** Refuse any state presented twice, for every flow (tools can also opt in one by one). */
  singleUse?: boolean;
  /** Where single-use redemptions are recorded (default: in this process's memory). */
  redemptions?: RedemptionStore;
  /** Milliseconds since the epoch; injectable for tests. */
  clock?: () => number;
}

/** The caching hints of every list, the author's over the defaults. */
export function cacheHints(configured: ServerOptions['cache'] = {}): Record<CacheableList, CacheHints> {
  const hints = { ...DEFAULT_CACHE };
  for (const list of Object.keys(configured) as CacheableList[]) hints[list] = { ...DEFAULT_CACHE[list], ...configured[list] };
  return hints;
}
