/**
 * Which server a command talks to: a URL (Streamable HTTP) written before the
 * other arguments, or a command to spawn (stdio) written after `--`. The `--`
 * keeps the two unambiguous: everything after it belongs to the server's
 * command line, flags included.
 */

import { UsageError } from './errors.js';

export type Target = { kind: 'http'; url: string } | { kind: 'stdio'; command: string; args: string[] };

/** The command line split at the first `--`: ours before it, the server command after it. */
export function splitAtDoubleDash(argv: readonly string[]): { ours: string[]; serverCommand: string[] | undefined } {
  const at = argv.indexOf('--');
  if (at < 0) return { ours: [...argv], serverCommand: undefined };
  return { ours: argv.slice(0, at), serverCommand: argv.slice(at + 1) };
}

export function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/**
 * Takes the target off the front of a command's positional arguments: with a
 * server command after `--`, the positionals are all the command's own; without
 * one, the first must be the URL.
 */
export function resolveTarget(
  command: string,
  positionals: readonly string[],
  serverCommand: readonly string[] | undefined,
): { target: Target; rest: string[] } {
  if (serverCommand !== undefined) {
    const [program, ...args] = serverCommand;
    if (program === undefined || program === '') {
      throw new UsageError(`Nothing after "--": give the command that starts the server, e.g. tessera ${command} … -- node server.js`);
    }
    if (positionals[0] !== undefined && isUrl(positionals[0])) {
      throw new UsageError(`Give the server once: either a URL (${positionals[0]}) or a command after "--", not both`);
    }
    return { target: { kind: 'stdio', command: program, args }, rest: [...positionals] };
  }
  const [first, ...rest] = positionals;
  if (first === undefined) {
    throw new UsageError(`Which server? Give its URL first (tessera ${command} http://127.0.0.1:3000/mcp …) or its command after "--"`);
  }
  if (!isUrl(first)) {
    throw new UsageError(
      `"${first}" is not a URL. Give the server as a URL first (tessera ${command} http://127.0.0.1:3000/mcp …) ` +
        `or as a command after "--" (tessera ${command} … -- node server.js)`,
    );
  }
  return { target: { kind: 'http', url: first }, rest };
}

/** How to name the target in messages. */
export function describeTarget(target: Target): string {
  return target.kind === 'http' ? target.url : [target.command, ...target.args].join(' ');
}
