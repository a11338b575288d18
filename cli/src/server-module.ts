/**
 * Loading the module `tessera serve` serves. It exports the server as its
 * default export or as `server`, either as a server object or as a function
 * that makes one:
 *
 *   export default new McpServer({ name: 'demo', version: '1.0.0' });
 *   export const server = new McpServer(…);
 *   export default (options) => new McpServer({ name: 'demo', version: '1.0.0' }, options);
 *
 * A function receives `{ state: { keys } }` when keys are configured, and
 * `{ stores }` with `--redis`; a server object built at import time reads its
 * keys from TESSERA_STATE_KEYS, which `serve` sets from `--keys` before
 * importing the module, but cannot be given stores after it was made: with
 * `--redis` such a module is refused with the factory to write instead.
 *
 * A server is recognised by its shape (a `handleRequest` method), not by
 * `instanceof`, so a module that imports another copy of Tessera still works.
 */

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpServerOptions } from 'tessera-mcp';
import type { Implementation, RequestHandler } from 'tessera-mcp/protocol';
import { CliError } from './errors.js';

export interface LoadedServer {
  handler: RequestHandler;
  /** The server's name and version, when it exposes them. */
  info: Implementation | undefined;
  /** Stops the server, when it can be stopped (an McpServer hands its resumable tasks over to the other instances). */
  close(): void;
}

type Factory = (options: McpServerOptions) => unknown;

function isServer(value: unknown): value is RequestHandler & { info?: Implementation } {
  return typeof value === 'object' && value !== null && typeof (value as RequestHandler).handleRequest === 'function';
}

/**
 * `storesFrom` names the option that put shared stores in `options`
 * (`--redis`, TESSERA_REDIS_URL): they reach a factory only.
 */
export async function loadServerModule(specifier: string, options: McpServerOptions, storesFrom?: string): Promise<LoadedServer> {
  const path = resolve(specifier);
  const url = existsSync(path) ? pathToFileURL(path).href : specifier;
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint =
      code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ' (this Node cannot run TypeScript directly: compile the module with tsc first, or use Node 22.18 or newer)'
        : code === 'ERR_MODULE_NOT_FOUND' && !existsSync(path)
          ? ` (no file at ${path})`
          : '';
    throw new CliError(`Could not load ${specifier}: ${(error as Error).message}${hint}`);
  }
  const exported = module.default ?? module.server;
  if (exported === undefined) {
    throw new CliError(`${specifier} exports no server: export it as the default export or as "server" (an McpServer, or a function returning one)`);
  }
  if (storesFrom !== undefined && isServer(exported)) {
    throw new CliError(
      `${storesFrom}: ${specifier} exports a server made at import time, which cannot be given the shared stores. ` +
        'Export a function that makes it from the options instead: export default (options) => new McpServer({ name, version }, options)',
    );
  }
  let server: unknown = exported;
  if (typeof exported === 'function' && !isServer(exported)) {
    try {
      server = await (exported as Factory)(options);
    } catch (error) {
      throw new CliError(`The server function exported by ${specifier} failed: ${(error as Error).message}`);
    }
  }
  if (!isServer(server)) {
    throw new CliError(`${specifier} exports ${typeof server === 'object' ? 'an object' : `a ${typeof server}`} that is not a server (no handleRequest method)`);
  }
  const info = server.info;
  const closable = server as { close?: unknown };
  const close = (): void => void (typeof closable.close === 'function' && closable.close());
  return { handler: server, info: info && typeof info.name === 'string' ? info : undefined, close };
}
