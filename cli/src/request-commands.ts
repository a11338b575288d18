/**
 * `tessera call`, `read`, `prompt` and `list`: connect to the target, run
 * the request (answering the server's questions on the way), print the
 * result, and turn the outcome into an exit code.
 */

import type { CallToolResult, Client, Prompt, Resource, ResourceTemplate, Tool } from 'tessera-mcp/client';
import { ErrorCode, McpError } from 'tessera-mcp';
import { isObject } from 'tessera-mcp/protocol';
import { AnswersFile } from './answers-file.js';
import { connectClient, describeRefusal, explain, type ConnectOptions } from './connect.js';
import { CliError, EXIT_OK, InterruptedError } from './errors.js';
import { completeArguments } from './complete-arguments.js';
import { createAnswering, rootsFrom } from './input-handlers.js';
import { printListing, printPrompt, printResource, printToolResult, type Listing } from './print-result.js';
import { ProgressBar } from './progress-bar.js';
import { serverLog } from './server-log.js';
import { canAskPerson, colors, say } from './terminal.js';
import { TaskStatus } from './task-status.js';
import type { Target } from './target.js';

// The Skills extension's module (and its YAML parser) loads only for a server that has skills.
const skills = (): Promise<typeof import('./skills-command.js')> => import('./skills-command.js');
const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
import { parsePromptArguments, parseToolArguments } from './tool-arguments.js';

export interface RequestCommandOptions extends ConnectOptions {
  json?: boolean;
  answers?: string;
  samplingCommand?: string;
  root?: string[];
  /** --no-input: ask nothing in the terminal. */
  noInput?: boolean;
}

/**
 * Connects with the question handlers in place, runs the request, and always
 * closes (and so stops a spawned server). `request` resolves with a printer,
 * so nothing is printed when an answer failed along the way.
 */
async function withClient(
  target: Target,
  options: RequestCommandOptions,
  request: (client: Client, progress: ProgressBar) => Promise<() => number>,
): Promise<number> {
  const answers = options.answers === undefined ? undefined : await AnswersFile.load(options.answers);
  const progress = new ProgressBar();
  const answering = createAnswering({ answers, samplingCommand: options.samplingCommand, noInput: options.noInput, roots: rootsFrom(options.root ?? []), progress });
  const { client, serverStderr } = await connectClient(target, answering.handlers, { ...options, onLog: serverLog(options.logLevel, progress) });
  try {
    const printResult = await request(client, progress);
    progress.stop();
    // A 2025-era server may have turned a failed answer into an error (or a tool error) of its own and carried on.
    const failure = answering.failure();
    if (failure) throw failure;
    return printResult();
  } catch (error) {
    const refusal = describeRefusal(target, error);
    serverStderr?.show();
    throw answering.failure() ?? (refusal ? new CliError(refusal) : asCliError(error));
  } finally {
    progress.stop();
    await client.close().catch(() => undefined);
  }
}

/** A server's JSON-RPC error or a client error, as a message for the person. */
function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof McpError) {
    const data = error.data === undefined ? '' : `\n${JSON.stringify(error.data, null, 2)}`;
    // Servers on the official SDK 1.x put "MCP error <code>: " in the message itself: say the code once.
    const prefix = `MCP error ${error.code}: `;
    const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    const wantsRoots = error.code === ErrorCode.MissingRequiredClientCapability && isObject(error.data) && isObject(error.data.requiredCapabilities) && 'roots' in error.data.requiredCapabilities;
    const hint = wantsRoots ? '\nThe server needs roots (directories you grant it): pass --root <dir>.' : '';
    return new CliError(`The server answered with error ${error.code}: ${message}${data}${hint}`);
  }
  return new CliError(explain(error));
}

/**
 * A tool error saying the server's 2026-07-28 side cannot ask (some servers,
 * FastMCP 4 among them, ask only through server-initiated requests, which
 * 2026-07-28 does not have).
 */
function refusesToAskAtModern(result: CallToolResult): boolean {
  const text = (Array.isArray(result.content) ? result.content : []).map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  return /2026-07-28/.test(text) && /elicit|sampling|server-initiated|roots/i.test(text);
}

/** A question asked of the person here, with Ctrl-C at it read as an interruption. */
async function asked<T>(question: () => Promise<T>): Promise<T> {
  try {
    return await question();
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') throw new InterruptedError();
    throw error;
  }
}

/** The tool's definition, for typing its arguments; undefined when the server cannot list tools. */
async function findTool(client: Client, name: string): Promise<Tool | undefined> {
  let tools: Tool[];
  try {
    tools = await client.listAllTools();
  } catch {
    return undefined;
  }
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const names = tools.map((t) => t.name).join(', ') || '(none)';
    throw new CliError(`The server has no tool "${name}". Its tools: ${names}`);
  }
  return tool;
}

export function runCall(target: Target, tool: string, pairs: string[], options: RequestCommandOptions): Promise<number> {
  return withClient(target, options, async (client, progress) => {
    const definition = await findTool(client, tool);
    const parsed = parseToolArguments(pairs, definition?.inputSchema);
    const mayAsk = options.noInput !== true && options.answers === undefined && canAskPerson();
    const args = definition ? await asked(() => completeArguments(definition, parsed, { mayAsk, signal: new AbortController().signal })) : parsed;
    const status = new TaskStatus(progress);
    // Ctrl-C while the call runs ends it; a task the call became is cancelled on the server (tasks/cancel).
    const interrupt = new AbortController();
    const onInterrupt = (): void => {
      const taskId = status.followed;
      interrupt.abort(new InterruptedError(taskId ? `Interrupted; task ${taskId} was cancelled.` : 'Interrupted.'));
    };
    process.once('SIGINT', onInterrupt);
    try {
      const result = await client.callTool(tool, args, { onProgress: (update) => progress.update(update), onTask: status.observe, signal: interrupt.signal });
      return () => {
        const code = printToolResult(result, options.json === true);
        if (code !== EXIT_OK && client.era === 'modern' && refusesToAskAtModern(result)) {
          say(colors.yellow('The server says it cannot ask questions over 2026-07-28; its 2025-11-25 side may: try again with --era 2025-11-25'));
        }
        return code;
      };
    } finally {
      process.off('SIGINT', onInterrupt);
    }
  });
}

export function runRead(target: Target, uri: string, options: RequestCommandOptions): Promise<number> {
  return withClient(target, options, async (client, progress) => {
    const result = await client.readResource(uri, { onProgress: (update) => progress.update(update) });
    return () => {
      printResource(result, options.json === true);
      return EXIT_OK;
    };
  });
}

export function runPrompt(target: Target, name: string, pairs: string[], options: RequestCommandOptions): Promise<number> {
  return withClient(target, options, async (client, progress) => {
    const args = parsePromptArguments(pairs);
    const result = await client.getPrompt(name, args, { onProgress: (update) => progress.update(update) });
    return () => {
      printPrompt(result, options.json === true);
      return EXIT_OK;
    };
  });
}

async function allTemplates(client: Client): Promise<ResourceTemplate[]> {
  const all: ResourceTemplate[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResourceTemplates(cursor);
    all.push(...page.resourceTemplates);
    cursor = page.nextCursor;
  } while (cursor !== undefined && all.length < 100_000);
  return all;
}

/** `tessera skills`: list a server's skills, or load one (verified) and print it or one of its files. */
export function runSkills(target: Target, rest: string[], options: RequestCommandOptions): Promise<number> {
  return withClient(target, options, async (client) => (await skills()).skillsCommand(client, rest, options.json === true));
}

/** Lists what the server offers; a kind the server does not serve is left out rather than failing the listing. */
export function runList(target: Target, options: RequestCommandOptions): Promise<number> {
  return withClient(target, options, async (client) => {
    const discovered = await client.discover().catch(() => undefined);
    const capabilities = (discovered?.capabilities ?? {}) as Record<string, unknown>;
    const known = discovered !== undefined;
    const served = (kind: string): boolean => !known || capabilities[kind] !== undefined;
    const optional = async <T>(kind: string, list: () => Promise<T[]>): Promise<T[] | undefined> => {
      if (!served(kind)) return undefined;
      try {
        return await list();
      } catch (error) {
        if (error instanceof McpError) return undefined; // e.g. -32601: not served after all
        throw error;
      }
    };
    const listing: Listing = {
      tools: await optional<Tool>('tools', () => client.listAllTools()),
      resources: await optional<Resource>('resources', () => client.listAllResources()),
      resourceTemplates: await optional<ResourceTemplate>('resources', () => allTemplates(client)),
      prompts: await optional<Prompt>('prompts', () => client.listAllPrompts()),
    };
    // Skills only where the server declares the extension (listing them reads none of their files).
    if (isObject(capabilities.extensions) && Object.hasOwn(capabilities.extensions, SKILLS_EXTENSION)) {
      listing.skills = (await optional('extensions', async () => (await (await skills()).listSkills(client)).skills)) ?? [];
    }
    return () => {
      printListing(listing, options.json === true);
      return EXIT_OK;
    };
  });
}
