/**
 * `tessera serve <module>`: serves a module's server over HTTP (default) or
 * stdio, with the state keys from `--keys` or TESSERA_STATE_KEYS, and says on
 * stderr how to connect. In stdio mode stdout carries MCP messages only, so
 * the module's own console.log output is sent to stderr. With `--auth-issuer`
 * the HTTP endpoint is a protected resource trusting that issuer's tokens;
 * with `--redis` (or TESSERA_REDIS_URL) every shared store is on that Redis.
 */

import { Console } from 'node:console';
import {
  createLinkPair,
  KeyRing,
  protectedResource,
  serveLink,
  STATE_KEYS_ENV,
  tokenIntrospection,
  type HttpAuthorization,
  type McpServerOptions,
} from 'tessera-mcp';
import type { RequestHandler } from 'tessera-mcp/protocol';
import { Client, LinkClientTransport } from 'tessera-mcp/client';
import { printWire, serveHttp, type RunningHttpServer } from 'tessera-mcp/node';
import { serveStdio } from 'tessera-mcp/stdio';
import { CliError, EXIT_OK, UsageError } from './errors.js';
import { LOG_FORMATS, requestLogFor, type LogFormat } from './request-log-lines.js';
import { openRedisStores, type ServeStores } from './redis-stores.js';
import { loadServerModule, type LoadedServer } from './server-module.js';
import { colors, say } from './terminal.js';
import { sampleArguments } from './tool-arguments.js';

export interface ServeOptions {
  port?: string;
  host?: string;
  stdio?: boolean;
  keys?: string;
  /** The authorization server whose access tokens are accepted. */
  authIssuer?: string;
  /** The canonical URL of the endpoint (default: the URL served). */
  authResource?: string;
  /** Scopes every request needs, space- or comma-separated. */
  authScopes?: string;
  /** Check opaque tokens by introspection as this client (secret in TESSERA_AUTH_CLIENT_SECRET) instead of as JWTs. */
  authIntrospectionClient?: string;
  /** The request log on stderr: `true` (text), or a format. */
  log?: boolean | string;
  /** Every shared store on this Redis (default: $TESSERA_REDIS_URL; neither: memory). */
  redis?: string;
  /** The prefix of every Redis key and channel (default: $TESSERA_REDIS_PREFIX, else the library's `mcp:`). */
  redisPrefix?: string;
  /** The Redis URL is a node of a Redis Cluster (default: $TESSERA_REDIS_CLUSTER). */
  redisCluster?: boolean;
  /** Every JSON-RPC message received (→) and sent (←) on stderr (HTTP). */
  trace?: boolean;
}

/** The `--log` format, checked before anything starts. */
function logFormat(given: boolean | string | undefined): LogFormat | undefined {
  if (given === undefined || given === false) return undefined;
  if (given === true) return 'text';
  if (!(LOG_FORMATS as readonly string[]).includes(given)) throw new UsageError(`--log takes ${LOG_FORMATS.join(', ')}, not "${given}"`);
  return given as LogFormat;
}

/** Writes the server's request log to stderr, when its server can keep one (another copy of Tessera may be older). */
function attachLog(loaded: LoadedServer, format: LogFormat | undefined): void {
  if (format === undefined) return;
  const server = loaded.handler as { logRequests?: (log: ReturnType<typeof requestLogFor>) => unknown };
  if (typeof server.logRequests !== 'function') throw new CliError('--log: this server keeps no request log (it comes from a Tessera without McpServer.logRequests)');
  server.logRequests(requestLogFor(format, (line) => process.stderr.write(`${line}\n`)));
}

/** Where `--auth-introspection-client` finds its secret (never on the command line, where `ps` shows it). */
export const AUTH_CLIENT_SECRET_ENV = 'TESSERA_AUTH_CLIENT_SECRET';

/** The protected-resource option from the `--auth-*` flags; undefined without `--auth-issuer`. */
function authFrom(options: ServeOptions, host: string): { auth: HttpAuthorization; describe: (url: string) => string } | undefined {
  const { authIssuer, authResource, authScopes, authIntrospectionClient } = options;
  if (authIssuer === undefined) {
    if (authResource !== undefined || authScopes !== undefined || authIntrospectionClient !== undefined) {
      throw new UsageError('--auth-resource, --auth-scopes and --auth-introspection-client need --auth-issuer <issuer URL>');
    }
    return undefined;
  }
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(host) || host.startsWith('127.');
  if (!loopback && authResource === undefined) {
    throw new UsageError(`--auth-issuer on ${host}: give the public URL clients use with --auth-resource (it is the audience tokens must name)`);
  }
  const scopes = authScopes?.split(/[\s,]+/).filter((scope) => scope !== '');
  let verifier;
  if (authIntrospectionClient !== undefined) {
    const clientSecret = process.env[AUTH_CLIENT_SECRET_ENV];
    if (!clientSecret) throw new UsageError(`--auth-introspection-client needs the client's secret in ${AUTH_CLIENT_SECRET_ENV}`);
    verifier = tokenIntrospection({ clientId: authIntrospectionClient, clientSecret });
  }
  let auth: HttpAuthorization;
  try {
    auth = protectedResource({ issuer: authIssuer, ...(authResource !== undefined ? { resource: authResource } : {}), ...(scopes ? { scopes } : {}), ...(verifier ? { verifier } : {}) });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^protectedResource: /, '--auth-issuer/--auth-scopes: '));
  }
  const how = verifier ? `introspected at ${authIssuer}` : `JWTs from ${authIssuer}`;
  return {
    auth,
    describe: (url) => `  Protected: access tokens (${how}) for ${authResource ?? url}${scopes?.length ? `, scopes ${scopes.join(' ')}` : ''}`,
  };
}

/** The key ring text to use: `--keys`, else the environment; checked here so a typo fails before anything starts. */
function stateKeys(given: string | undefined): string | undefined {
  const text = given ?? process.env[STATE_KEYS_ENV];
  if (text === undefined || text.trim() === '') return undefined;
  try {
    KeyRing.parse(text);
  } catch (error) {
    throw new UsageError(`${given !== undefined ? '--keys' : STATE_KEYS_ENV}: ${(error as Error).message} (make one with: npx tessera keygen)`);
  }
  return text;
}

function parsePort(text: string | undefined): number {
  const port = Number(text ?? '3000');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (0 picks a free one), not "${text}"`);
  return port;
}

/** A `tessera call` line for the server's first tool, asked of the server itself over an in-memory link. */
async function firstToolHint(handler: RequestHandler): Promise<string | undefined> {
  const [serverEnd, clientEnd] = createLinkPair();
  serveLink(handler, serverEnd);
  const client = new Client({ name: 'tessera-serve', version: '0' }, { era: 'modern', warn: () => undefined });
  try {
    await client.connect(new LinkClientTransport(clientEnd, 'memory'));
    const [tool] = await client.listAllTools();
    return tool ? `${tool.name} ${sampleArguments(tool.inputSchema)}`.trimEnd() : undefined;
  } catch {
    return undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}

function named(loaded: LoadedServer, specifier: string): string {
  return loaded.info ? `"${loaded.info.name}" ${loaded.info.version}` : specifier;
}

async function serveOverStdio(specifier: string, serverOptions: McpServerOptions, log: LogFormat | undefined, shared: ServeStores | undefined): Promise<number> {
  // Before the module loads: anything it logs must not reach stdout, where the MCP messages go.
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  const methods = ['log', 'info', 'debug', 'dir', 'table', 'trace'] as const;
  Object.assign(console, Object.fromEntries(methods.map((method) => [method, toStderr[method].bind(toStderr)])));
  const loaded = await loadServerModule(specifier, serverOptions, shared?.source);
  attachLog(loaded, log);
  const link = serveStdio(loaded.handler);
  say(`tessera: serving ${named(loaded, specifier)} over stdio (MCP on stdin/stdout; this process ends when stdin closes)`);
  if (shared) say(`  Shared stores: Redis at ${shared.shown}`);
  if (process.stdin.isTTY) {
    const tool = (await firstToolHint(loaded.handler)) ?? '<tool>';
    say(`  A client starts it for you: npx tessera call ${tool} -- npx tessera serve ${specifier} --stdio`);
  }
  await link.closed;
  await stopServing(loaded, shared);
  return EXIT_OK;
}

/** Stops the server (its resumable tasks go to the other instances), then the shared stores. */
async function stopServing(loaded: LoadedServer, shared: ServeStores | undefined): Promise<void> {
  loaded.close();
  // One turn of the event loop, so that the leases the server gave up reach Redis before its connection closes.
  await new Promise((next) => setImmediate(next));
  await shared?.close();
}

async function serveOverHttp(specifier: string, options: ServeOptions, serverOptions: McpServerOptions, shared: ServeStores | undefined): Promise<number> {
  const port = parsePort(options.port);
  const host = options.host ?? '127.0.0.1';
  const protection = authFrom(options, host);
  const log = logFormat(options.log);
  const loaded = await loadServerModule(specifier, serverOptions, shared?.source);
  attachLog(loaded, log);
  let running: RunningHttpServer;
  try {
    const trace = options.trace ? printWire((line) => process.stderr.write(`${line}\n`)) : undefined;
    running = await serveHttp(loaded.handler, { port, host, ...(protection ? { auth: protection.auth } : {}), ...(trace ? { trace } : {}) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CliError(`Port ${port} on ${host} is in use: choose another with --port (0 picks a free one)`);
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw new CliError(`Could not listen on ${host}:${port}: ${(error as Error).message}`);
  }
  const tool = (await firstToolHint(loaded.handler)) ?? '<tool>';
  say(`tessera: serving ${named(loaded, specifier)} on ${colors.bold(running.url)}`);
  if (protection) say(protection.describe(running.url));
  if (shared) say(`  Shared stores: Redis at ${shared.shown} (run more instances with the same --redis and keys)`);
  say(`  Try it:   npx tessera call ${running.url} ${tool}`);
  say(`  List:     npx tessera list ${running.url}`);
  say('  Stop:     Ctrl-C');
  if (!['127.0.0.1', 'localhost', '::1'].includes(host) && !host.startsWith('127.')) {
    say(colors.yellow(`  Listening on ${host}: reachable from other machines, and the Host/Origin check is off (no allowed host names given).`));
  }
  return new Promise<number>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void running
        .close()
        .then(() => stopServing(loaded, shared))
        .then(() => resolve(EXIT_OK));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function runServe(specifier: string, options: ServeOptions): Promise<number> {
  const keys = stateKeys(options.keys);
  // Servers built at import time read their keys from the environment; factories also get them as an option.
  if (keys !== undefined) process.env[STATE_KEYS_ENV] = keys;
  if (options.stdio) {
    if (options.port !== undefined || options.host !== undefined) throw new UsageError('--stdio serves on stdin/stdout: --port and --host do not apply');
    if (options.trace) throw new UsageError('--trace prints HTTP traffic; over --stdio, --log wire shows each request with its arguments and result');
    if (options.authIssuer !== undefined || options.authResource !== undefined || options.authScopes !== undefined || options.authIntrospectionClient !== undefined) {
      throw new UsageError('--stdio is not authorized with tokens (the spec says a stdio server takes its credentials from the environment): the --auth-* options are for HTTP');
    }
  }
  const shared = await openRedisStores(options.redis, options.redisPrefix, options.redisCluster);
  const serverOptions: McpServerOptions = { ...(keys === undefined ? {} : { state: { keys } }), ...(shared ? { stores: shared.stores } : {}) };
  if (options.stdio) return serveOverStdio(specifier, serverOptions, logFormat(options.log), shared);
  return serveOverHttp(specifier, options, serverOptions, shared);
}
