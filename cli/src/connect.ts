/**
 * Connecting to the target server with the Tessera client: Streamable HTTP
 * for a URL, a spawned process for a command (its stderr shows in ours). The
 * client finds out by itself whether the server speaks 2026-07-28 or
 * 2025-11-25, unless `--era` pins it.
 */

import { readFileSync } from 'node:fs';
// The client alone, not the package index: `tessera call` need not load the server side (schemas, Ajv).
import { AuthorizationError, Client, ClientError, TransportError, type ClientOptions, type InputHandlers, type LoggingLevel } from 'tessera-mcp/client';
import { StdioClientTransport } from 'tessera-mcp/stdio';
import { CliError, UsageError } from './errors.js';
import { createSignIn, describeAuthorizationError, type SignInOptions } from './sign-in.js';
import { ServerStderr } from './server-stderr.js';
import { describeTarget, type Target } from './target.js';
import { tracingFetch } from './wire-trace.js';

export interface ConnectOptions {
  era?: string;
  /** `Name: value` headers for every HTTP request (e.g. Authorization). */
  headers?: string[];
  /** Longest one request may take, in seconds (a 2025-era call stays open while the person answers). */
  timeoutSeconds?: number;
  /** How to sign in when an HTTP server asks. */
  signIn?: SignInOptions;
  /** Every JSON-RPC message sent and received on stderr (HTTP targets). */
  trace?: boolean;
  /** The level to ask the server's log messages at (`--log-level`); none: ask for nothing. */
  logLevel?: LoggingLevel;
  /** Where the server's log messages go. */
  onLog?: ClientOptions['onLog'];
}

/** What --era takes: the revisions by date, or the client's names for them. */
export const ERAS: Readonly<Record<string, 'auto' | 'modern' | 'legacy'>> = {
  auto: 'auto',
  '2026-07-28': 'modern',
  modern: 'modern',
  '2025-11-25': 'legacy',
  legacy: 'legacy',
};

/** This package's version, for clientInfo. */
export function cliVersion(): string {
  try {
    const json = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return json.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header "${line}" is not "Name: value"`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

export interface Connected {
  client: Client;
  /** A spawned server's stderr, kept aside (stdio targets). */
  serverStderr?: ServerStderr;
}

export async function connectClient(target: Target, handlers: InputHandlers, options: ConnectOptions = {}): Promise<Connected> {
  const name = options.era ?? 'auto';
  const era = Object.hasOwn(ERAS, name) ? ERAS[name] : undefined;
  if (era === undefined) throw new UsageError(`--era must be auto, 2026-07-28 (or modern) or 2025-11-25 (or legacy), not "${options.era}"`);
  if (options.trace && target.kind !== 'http') throw new UsageError('--trace prints HTTP traffic; a command target speaks over its stdin and stdout (run it with `tessera serve --log wire` to see its requests)');
  const timeoutMs = (options.timeoutSeconds ?? 600) * 1000;
  if (!(timeoutMs > 0)) throw new UsageError('--timeout must be a number of seconds above 0');
  const client = new Client(
    { name: 'tessera-cli', title: 'Tessera CLI', version: cliVersion() },
    {
      ...handlers,
      era,
      requestTimeoutMs: timeoutMs,
      // The person may take their time over the questions; each request still has its own limit.
      flowTimeoutMs: Math.max(timeoutMs, 60 * 60_000),
      maxRounds: 25,
      warn: (message) => process.stderr.write(`tessera: ${message}\n`),
      ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
      ...(options.onLog === undefined ? {} : { onLog: options.onLog }),
    },
  );
  const headers = parseHeaders(options.headers ?? []);
  let serverStderr: ServerStderr | undefined;
  try {
    if (target.kind === 'http') {
      const auth = createSignIn(target.url, options.signIn ?? {}).provider;
      const fetch = options.trace ? tracingFetch((line) => process.stderr.write(`${line}\n`)) : undefined;
      await client.connect(target.url, { ...(Object.keys(headers).length > 0 ? { headers } : {}), auth, ...(fetch ? { fetch } : {}) });
    } else {
      const transport = new StdioClientTransport({ command: target.command, args: target.args, stderr: 'pipe' });
      serverStderr = new ServerStderr(transport.process.stderr);
      await client.connect(transport);
    }
  } catch (error) {
    await client.close().catch(() => undefined);
    serverStderr?.show();
    const refusal = describeRefusal(target, error);
    if (refusal) throw new CliError(refusal);
    if (error instanceof ClientError) {
      // The client's messages name the URL and say what happened (no such host, nothing listening, not an MCP endpoint).
      const said = explain(error);
      throw new CliError(target.kind === 'http' && said.includes(target.url) ? said : `Could not connect to ${describeTarget(target)}: ${said}`);
    }
    throw error;
  }
  return serverStderr ? { client, serverStderr } : { client };
}

/** A sign-in that failed, or a 401/403 that no sign-in answered: one line saying what to do. */
export function describeRefusal(target: Target, error: unknown): string | undefined {
  const server = describeTarget(target);
  if (error instanceof AuthorizationError) return describeAuthorizationError(server, error);
  if (error instanceof TransportError && error.status === 401) return `${server} requires signing in (HTTP 401) and did not say how.`;
  if (error instanceof TransportError && error.status === 403) return `${server} refused access (HTTP 403): your sign-in does not allow this.`;
  return undefined;
}

/**
 * The error's message. The client's own errors already say what happened; for
 * anything else, the network cause (ECONNREFUSED…) that fetch hides in `cause`.
 */
export function explain(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof ClientError) return error.message;
  let message = error.message;
  let cause: unknown = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 3; depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (!message.includes(cause.message)) message += `: ${cause.message}`;
    if (code && !message.includes(code)) message += ` (${code})`;
    cause = cause.cause;
  }
  return message;
}
