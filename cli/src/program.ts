/**
 * The command line: commands, options and help text (commander). Parsing
 * only; each command's work lives in its own module.
 */

import { Command, Option } from 'commander';
import { generateStateKey } from 'tessera-mcp';
import type { LoggingLevel } from 'tessera-mcp/client';
import { cliVersion, ERAS } from './connect.js';
import { EXIT_OK, UsageError } from './errors.js';
import type { RequestCommandOptions } from './request-commands.js';
import type { ServeOptions } from './serve-command.js';
import { LOG_LEVELS } from './server-log.js';
import { resolveTarget } from './target.js';

// Each command's module loads when it runs, so `help` and `keygen` start at once and `call` never loads the server side.
const requests = (): Promise<typeof import('./request-commands.js')> => import('./request-commands.js');

/** Each command's usage line(s), in the order help lists them. */
const USAGE_LINES: Readonly<Record<string, string>> = {
  serve: 'tessera serve <module> [--port <port> | --stdio] [--keys <keys>] [--redis <url> [--redis-prefix <prefix>] [--redis-cluster]] [--log [format]] [--trace] [--auth-issuer <url> [--auth-resource <url>] [--auth-scopes <scopes>]]',
  call: 'tessera call <url> <tool> [key=value…]      or   tessera call <tool> [key=value…] -- <command> [args…]',
  read: 'tessera read <url> <uri>                    or   tessera read <uri> -- <command> [args…]',
  prompt: 'tessera prompt <url> <name> [key=value…]    or   tessera prompt <name> [key=value…] -- <command> [args…]',
  list: 'tessera list <url>                          or   tessera list -- <command> [args…]',
  skills: 'tessera skills <url> [name [file]]          or   tessera skills [name [file]] -- <command> [args…]',
  logout: 'tessera logout <url>                        (forget the sign-in stored for a server)',
  keygen: 'tessera keygen [id]',
  help: 'tessera help [command]                      (the details: options, answers files, exit codes)',
};

/** The whole usage, shown with the help. */
export const USAGE = `Usage:\n${Object.values(USAGE_LINES)
  .map((line) => `  ${line}`)
  .join('\n')}`;

/** What follows a command-line error: that command's usage alone, and where the details are. */
export function usageFor(command: string | undefined): string {
  if (command === undefined || !Object.hasOwn(USAGE_LINES, command) || command === 'help') return USAGE;
  return `Usage: ${USAGE_LINES[command]}\n(tessera help ${command} for the options)`;
}

const TARGETS = `Targets:
  A server is a URL (Streamable HTTP), written first:
    tessera call http://127.0.0.1:3000/mcp deploy service=api env=prod
  or a command that starts it (stdio), written last, after "--":
    tessera call deploy service=api env=prod -- node server.js
  Either era works (2026-07-28 or 2025-11-25): the client finds out which.`;

const ARGUMENTS = `Arguments:
  key=value     typed by the tool's input schema: numbers, booleans (true/false,
                yes/no), objects and arrays as JSON; strings stay strings.
  key:=<json>   always JSON, e.g. tags:='["a","b"]' or id:='"007"'.`;

const QUESTIONS = `Questions from the server:
  Asked in the terminal, one field at a time: accept, decline or cancel, then
  each field with its checks. URL asks show the full URL and wait for you
  (nothing is opened for you). Sampling asks show the messages and take your
  typed answer, or the output of --sampling-command (it gets the request JSON
  on stdin).

  --answers file.json answers without asking; a question it does not answer
  fails with exit code 2. The file is keyed by the question's key (shown as
  [key] when asked) or by its exact message:
    { "confirm": { "action": "accept", "content": { "approve": true } },
      "other":   { "approve": true },          accept with this content
      "sign_in": "accept",                     just the action (URL asks)
      "summary": "The model's answer text" }   sampling (2025 servers: "sampling")

  Roots: a root is a directory you grant the server — it may read and change
  files under it, and some servers (server-filesystem) then work in the roots
  they are given instead of the directories they were started with. tessera
  offers none unless you pass --root <dir> (repeatable).`;

const SIGN_IN = `Signing in (servers that require OAuth):
  When a server answers 401, tessera prints a sign-in URL (--open also opens it)
  and waits for the redirect on 127.0.0.1. Tokens are kept in tokens.json under
  $TESSERA_CONFIG_DIR (default ~/.config/tessera), readable only by you, and are
  reused and refreshed next time; tessera logout <url> forgets them.
  --client-id/--client-secret use a pre-registered client; --client-credentials
  signs a script in as that client, without a browser.`;

const EXIT_CODES = `Exit codes:
  0 done; 1 failed (server error, unreachable, or the tool reported isError);
  2 bad command line, or a question nobody could answer; 130 interrupted.`;

// Repeatable options start with no default value, so the help shows none (commander would print `(default: [])`).
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** How to reach and sign in to the server: every command that talks to one. */
function addConnectionOptions(command: Command): Command {
  return command
    .option('--json', 'print the result as JSON, exactly as received')
    .addOption(new Option('--era <era>', 'the revision to speak: 2026-07-28 (modern), 2025-11-25 (legacy), or auto: find out').choices(Object.keys(ERAS)).default('auto'))
    .option('--header <"Name: value">', 'an HTTP header for every request, e.g. Authorization (repeatable)', collect)
    .option('--timeout <seconds>', 'longest one request may take', '600')
    .option('--trace', 'print every JSON-RPC message sent (→) and received (←) on stderr (HTTP targets)')
    .addOption(new Option('--log-level <level>', "show the server's log messages at this level and above on stderr, and ask the server for them (default: show warnings and worse, ask for none)").choices(LOG_LEVELS))
    .option('--client-id <id>', 'sign in with this pre-registered OAuth client id')
    .option('--client-secret <secret>', 'its secret (or set TESSERA_CLIENT_SECRET)')
    .option('--scope <scopes>', 'the OAuth scopes to ask for (space- or comma-separated)')
    .option('--client-credentials', 'sign in as the client itself (client credentials grant), for scripts')
    .option('--open', 'open the sign-in URL in a browser (it is always printed)')
    .option('--redirect-port <port>', 'the 127.0.0.1 port that receives the sign-in redirect (default: any free port)');
}

/** How to answer the server's questions: the commands whose request may ask (call, read, prompt). */
function addRequestOptions(command: Command): Command {
  return addConnectionOptions(command)
    .option('--answers <file>', 'answer questions from this JSON file instead of asking')
    .option('--no-input', 'never ask in the terminal: a question or a missing argument fails (exit 2) instead')
    .option('--sampling-command <cmd>', 'answer sampling requests with this shell command (request JSON on stdin, answer text on stdout)')
    .option('--root <path|uri>', 'a directory to grant the server as a root (repeatable; none by default)', collect);
}

function connectOptions(raw: Record<string, unknown>): RequestCommandOptions {
  return {
    json: raw.json === true,
    answers: raw.answers as string | undefined,
    samplingCommand: raw.samplingCommand as string | undefined,
    root: (raw.root as string[] | undefined) ?? [],
    noInput: raw.input === false,
    era: raw.era as string,
    headers: (raw.header as string[] | undefined) ?? [],
    timeoutSeconds: Number(raw.timeout),
    trace: raw.trace === true,
    ...(raw.logLevel === undefined ? {} : { logLevel: raw.logLevel as LoggingLevel }),
    signIn: {
      clientId: raw.clientId as string | undefined,
      clientSecret: (raw.clientSecret as string | undefined) ?? process.env.TESSERA_CLIENT_SECRET,
      scope: raw.scope as string | undefined,
      clientCredentials: raw.clientCredentials === true,
      open: raw.open === true,
      redirectPort: raw.redirectPort === undefined ? undefined : Number(raw.redirectPort),
    },
  };
}

/**
 * Builds the program. `serverCommand` is what followed `--` on the command
 * line (split off before commander sees it); `done` receives the exit code.
 */
export function buildProgram(serverCommand: string[] | undefined, done: (code: number) => void): Command {
  const program = new Command('tessera')
    .description('Serve and call MCP servers (2026-07-28 and 2025-11-25), answering their questions in the terminal.')
    .version(cliVersion(), '-v, --version')
    .showHelpAfterError(USAGE)
    .exitOverride()
    .addHelpText('after', `\n${USAGE}\n\n${TARGETS}\n\n${ARGUMENTS}\n\n${QUESTIONS}\n\n${SIGN_IN}\n\n${EXIT_CODES}`);

  addServeCommand(program, serverCommand, done);
  addRequestCommands(program, serverCommand, done);
  addLocalCommands(program, serverCommand, done);

  // After an error in a command's line: that command's usage, not every command's.
  for (const command of program.commands) command.showHelpAfterError(usageFor(command.name()));
  return program;
}

/** A command that runs no server refuses one given after "--". */
function noServerCommand(name: string, serverCommand: string[] | undefined): void {
  if (serverCommand !== undefined) throw new UsageError(`tessera ${name} takes no command after "--"`);
}

/** `tessera serve`. */
function addServeCommand(program: Command, serverCommand: string[] | undefined, done: (code: number) => void): void {
  program
    .command('serve')
    .description('serve the server a module exports, over HTTP (default) or stdio')
    .argument('<module>', 'a JavaScript module exporting an McpServer (default export or "server"), or a function (options) => McpServer')
    .option('--port <port>', 'HTTP port; 0 picks a free one (default: 3000)')
    .option('--host <host>', 'interface to listen on (default: 127.0.0.1)')
    .option('--stdio', 'serve on stdin/stdout instead (stdout carries nothing but MCP)')
    .option('--keys <keys>', 'requestState keys "id:secret[,id:secret…]", sealing key first (default: $TESSERA_STATE_KEYS)')
    .option('--auth-issuer <url>', 'require OAuth access tokens from this authorization server (JWTs, keys from its metadata)')
    .option('--auth-resource <url>', 'the canonical URL clients use, the audience tokens must name (default: the URL served)')
    .option('--auth-scopes <scopes>', 'scopes every request needs (space- or comma-separated)')
    .option('--auth-introspection-client <id>', 'check opaque tokens by introspection as this client (secret in $TESSERA_AUTH_CLIENT_SECRET)')
    .option('--redis <url>', 'every shared store (single-use states, tasks, 2025 sessions, changes) on this Redis, for several instances (default: $TESSERA_REDIS_URL)')
    .option('--redis-prefix <prefix>', 'the prefix of every Redis key and channel: one per application sharing a Redis (default: $TESSERA_REDIS_PREFIX, else "mcp:")')
    .option('--redis-cluster', 'the --redis URL is a node of a Redis Cluster: the others are found from it (default: $TESSERA_REDIS_CLUSTER=1)')
    .option('--log [format]', 'one line per request on stderr: text (default), json, or wire (json with arguments, answers and results)')
    .option('--trace', 'print every JSON-RPC message received (→) and sent (←) on stderr (HTTP)')
    .addHelpText(
      'after',
      '\nA function export gets { state: { keys } } (and { stores } with --redis) to pass to\n' +
        'new McpServer(info, options); a server made at import time reads TESSERA_STATE_KEYS,\n' +
        'which --keys sets first, and cannot take --redis (export a function instead).\n' +
        'With --auth-issuer the endpoint is an OAuth protected resource: its metadata is at\n' +
        '/.well-known/oauth-protected-resource/mcp and every request needs a valid token.\n' +
        'Over --stdio there are no tokens: a stdio server takes credentials from its environment.',
    )
    .action(async (module: string, options: ServeOptions) => {
      noServerCommand('serve', serverCommand);
      const { runServe } = await import('./serve-command.js');
      done(await runServe(module, options));
    });
}

/** The commands that talk to a server: call, read, prompt, list, skills. */
function addRequestCommands(program: Command, serverCommand: string[] | undefined, done: (code: number) => void): void {
  addRequestOptions(
    program
      .command('call')
      .description('call a tool, answering its questions')
      .usage('<url> <tool> [key=value…] [options]\n       tessera call <tool> [key=value…] [options] -- <command> [args…]')
      .argument('<arguments...>', 'the target, the tool and its arguments')
      .addHelpText('after', `\n${TARGETS}\n\n${ARGUMENTS}\n\n${QUESTIONS}\n\n${SIGN_IN}\n\n${EXIT_CODES}`),
  ).action(async (positionals: string[], options: Record<string, unknown>) => {
    const { target, rest } = resolveTarget('call', positionals, serverCommand);
    const [tool, ...pairs] = rest;
    if (tool === undefined) throw new UsageError('Which tool? tessera call <url> <tool> [key=value…] (tessera list <url> shows the tools)');
    done(await (await requests()).runCall(target, tool, pairs, connectOptions(options)));
  });

  addRequestOptions(
    program
      .command('read')
      .description('read a resource, answering its questions')
      .usage('<url> <uri> [options]\n       tessera read <uri> [options] -- <command> [args…]')
      .argument('<arguments...>', 'the target and the resource URI'),
  ).action(async (positionals: string[], options: Record<string, unknown>) => {
    const { target, rest } = resolveTarget('read', positionals, serverCommand);
    if (rest.length !== 1) throw new UsageError('Give one resource URI: tessera read <url> <uri>');
    done(await (await requests()).runRead(target, rest[0]!, connectOptions(options)));
  });

  addRequestOptions(
    program
      .command('prompt')
      .description('get a prompt, answering its questions')
      .usage('<url> <name> [key=value…] [options]\n       tessera prompt <name> [key=value…] [options] -- <command> [args…]')
      .argument('<arguments...>', 'the target, the prompt name and its arguments'),
  ).action(async (positionals: string[], options: Record<string, unknown>) => {
    const { target, rest } = resolveTarget('prompt', positionals, serverCommand);
    const [name, ...pairs] = rest;
    if (name === undefined) throw new UsageError('Which prompt? tessera prompt <url> <name> [key=value…]');
    done(await (await requests()).runPrompt(target, name, pairs, connectOptions(options)));
  });

  addConnectionOptions(
    program
      .command('list')
      .description("list the server's tools, resources and prompts")
      .usage('<url> [options]\n       tessera list [options] -- <command> [args…]')
      .argument('[url]', 'the server URL (or a command after "--")'),
  ).action(async (url: string | undefined, options: Record<string, unknown>) => {
    const { target, rest } = resolveTarget('list', url === undefined ? [] : [url], serverCommand);
    if (rest.length > 0) throw new UsageError('tessera list takes only the target');
    done(await (await requests()).runList(target, connectOptions(options)));
  });

  addRequestOptions(
    program
      .command('skills')
      .description("list the server's skills, or print one (SKILL.md, or one of its files), verified")
      .usage('<url> [name|uri [file]] [options]\n       tessera skills [name|uri [file]] [options] -- <command> [args…]')
      .argument('[arguments...]', 'the target, then a skill (its name or SKILL.md URI) and a file path in it')
      .addHelpText(
        'after',
        '\nWithout a skill, lists the skills (their files are not read). With one, loads it: SKILL.md is\n' +
          "checked against the skill's entry (size, SHA-256 digest, frontmatter) and printed; with a\n" +
          'file path (e.g. references/GUIDE.md), that file is printed, checked the same way. A skill\n' +
          'or file that does not match its entry is refused (exit code 1) and nothing of it is printed.',
      ),
  ).action(async (positionals: string[], options: Record<string, unknown>) => {
    const { target, rest } = resolveTarget('skills', positionals, serverCommand);
    if (rest.length > 2) throw new UsageError('tessera skills <url> [name [file]]: a skill, then at most one file path');
    done(await (await requests()).runSkills(target, rest, connectOptions(options)));
  });
}

/** The commands that need no server: logout, keygen. */
function addLocalCommands(program: Command, serverCommand: string[] | undefined, done: (code: number) => void): void {
  program
    .command('logout')
    .description('forget the stored sign-in (tokens and client registration) for a server')
    .argument('<url>', 'the server URL')
    .action(async (url: string) => {
      noServerCommand('logout', serverCommand);
      const { signOut } = await import('./sign-in.js');
      const known = await signOut(url);
      console.log(known ? `Signed out of ${url}.` : `No sign-in was stored for ${url}.`);
      done(EXIT_OK);
    });

  program
    .command('keygen')
    .description('print a new requestState key ("id:base64url"), for TESSERA_STATE_KEYS or --keys')
    .argument('[id]', 'the key id (default: random)')
    .addHelpText('after', '\nGive every instance the same keys, sealing key first: TESSERA_STATE_KEYS="<new>,<old>".')
    .action((id: string | undefined) => {
      noServerCommand('keygen', serverCommand);
      try {
        console.log(generateStateKey(id));
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      done(EXIT_OK);
    });
}
