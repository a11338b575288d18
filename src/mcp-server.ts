/**
 * The server Tessera exports: the 2026-07-28 core (server/), composed with
 * the 2025-11-25 era on the same URL and over stdio (legacy/), the Tasks
 * extension (tasks/) and those the `extensions` option brings (each from its
 * own entry point). Registration goes to the core; transports talk to the
 * request path (server/request-path.ts).
 */

import { legacyEra, type LegacyOptions } from './legacy/era.js';
import type { Reply, RequestChannel, RequestHandler, SessionPeer } from './protocol/channel.js';
import type { JsonRpcRequest } from './protocol/jsonrpc.js';
import type { Implementation, JsonValue, ServerCapabilities } from './protocol/types.js';
import type { SchemaInput } from './schema/resolve.js';
import { ServerCore } from './server/core.js';
import { factoryOf, type Extension, type ExtensionFactory } from './server/extension.js';
import type { ServerOptions } from './server/options.js';
import type { SharedStores } from './stores/shared-stores.js';
import type { PromptArguments, PromptDefinition, PromptHandler } from './server/prompts.js';
import type { RequestLog } from './server/request-log.js';
import { answerRequest } from './server/request-path.js';
import type { ResourceDefinition, ResourceHandler, ResourceTemplateDefinition, TemplateHandler } from './server/resources.js';
import type { ToolDefinition, ToolHandler } from './server/tools.js';
import { tasks, type TasksOptions } from './tasks/extension.js';

export interface McpServerOptions extends ServerOptions {
  /** Stores shared by every instance (e.g. `redisStores({ url })` from `tessera-mcp/redis`); each overrides its own option below. */
  stores?: SharedStores;
  /** The 2025-11-25 lifecycle (sessions, server-initiated requests); `false` serves 2026-07-28 only. */
  legacy?: LegacyOptions | false;
  /** The Tasks extension: how long task records live, how often clients should poll, where tasks are kept. */
  tasks?: TasksOptions;
  /** More extensions, each from its own entry point: `skills(library)` from `tessera-mcp/skills`, `apps()` from `tessera-mcp/apps`. */
  extensions?: readonly Extension[];
}


export class McpServer implements RequestHandler {
  readonly info: Implementation;
  private readonly core: ServerCore;

  /** Only when the 2025-11-25 era is on: its sessions' client messages, GET streams and DELETE. */
  readonly sessionPeer?: SessionPeer;

  constructor(info: Implementation, options: McpServerOptions = {}) {
    this.info = info;
    const stores = options.stores ?? {};
    const tasksOptions = stores.tasks ? { ...options.tasks, store: stores.tasks } : options.tasks;
    const extensions: ExtensionFactory[] = [tasks(tasksOptions)];
    if (options.legacy !== false) {
      const legacy = { ...options.legacy, ...(stores.sessions ? { store: stores.sessions } : {}), ...(stores.sessionBus ? { bus: stores.sessionBus } : {}), ...(stores.events ? { events: stores.events } : {}) };
      extensions.unshift(legacyEra(legacy));
    }
    const names = new Set<string>();
    for (const extension of options.extensions ?? []) {
      if (names.has(extension.name)) throw new TypeError(`The extension ${extension.name} is given twice`);
      names.add(extension.name);
      extensions.push(factoryOf(extension));
    }
    const core: ServerOptions = {
      ...options,
      ...(stores.changes ? { changes: stores.changes } : {}),
      ...(stores.redemptions ? { state: { ...options.state, redemptions: stores.redemptions } } : {}),
    };
    this.core = new ServerCore(info, core, extensions);
    const peers = this.core.extensions.filter((e) => e.sessionPeer);
    if (peers.length > 1) throw new TypeError(`Only one extension may serve sessions; ${peers.map((e) => e.name).join(' and ')} both do`);
    this.sessionPeer = peers[0]?.sessionPeer;
  }

  /** Registers a tool. Returns a function that removes it again (listeners hear `tools/list_changed`). */
  // A handler's `State` (the type of its ctx.state) is its own word: the state it reads is what it sealed itself.

  tool<S extends SchemaInput | undefined = undefined, State = JsonValue>(name: string, definition: ToolDefinition<S>, handler: ToolHandler<S, State>): () => void {
    return this.core.tools.add(name, definition, handler as ToolHandler<S>);
  }

  resource<State = JsonValue>(definition: ResourceDefinition, handler: ResourceHandler<State>): () => void {
    return this.core.resources.add(definition, handler as ResourceHandler);
  }

  resourceTemplate<State = JsonValue>(definition: ResourceTemplateDefinition, handler: TemplateHandler<State>): () => void {
    return this.core.resources.addTemplate(definition, handler as TemplateHandler);
  }

  prompt<A extends PromptArguments | undefined = undefined, State = JsonValue>(name: string, definition: PromptDefinition<A>, handler: PromptHandler<A, State>): () => void {
    return this.core.prompts.add(name, definition, handler as PromptHandler<A>);
  }

  /** Tells subscribers of `uri` (or of a URI it lies under) that the resource changed, in both eras. */
  resourceUpdated(uri: string): void {
    this.core.resourceUpdated(uri);
  }

  /** What `server/discover` advertises, derived from what is registered. */
  capabilities(): ServerCapabilities {
    return this.core.capabilities();
  }

  handleRequest(request: JsonRpcRequest, channel: RequestChannel): Promise<Reply> {
    return answerRequest(this.core, request, channel);
  }

  /**
   * Adds a request log: one entry per request, after its reply (as the
   * `requestLog` option does; `tessera serve --log` uses this). Returns the
   * function that removes it.
   */
  logRequests(log: RequestLog): () => void {
    return this.core.logRequests(log);
  }

  /** The OAuth scopes a request needs (its tool's, prompt's or resource's `scopes`), for HTTP transports that check tokens. */
  requiredScopes(request: JsonRpcRequest): readonly string[] {
    return this.core.requiredScopes(request);
  }

  /** Ends every open listen stream gracefully, and every session and task this instance holds. */
  close(): void {
    this.core.close();
  }
}
