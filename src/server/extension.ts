/**
 * How features plug into the server without it knowing them: an extension
 * contributes methods, capabilities, members of the handler context, and
 * hooks at named points of the request path (request-path.ts). The
 * 2025-11-25 era (legacy/) and the Tasks extension (tasks/) are extensions;
 * the core imports neither.
 */

import type { Interaction } from '../mrtr/interaction.js';
import type { McpError } from '../protocol/errors.js';
import type { Reply, RequestChannel, SessionPeer } from '../protocol/channel.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { ResultByMethod } from '../protocol/method-types.js';
import type { ClientCapabilities, Implementation, Result, ServerCapabilities } from '../protocol/types.js';
import type { SchemaInput } from '../schema/resolve.js';
import type { ChangeBus } from '../stores/change-bus.js';
import type { RequestContext, ServerContext } from './context.js';
import type { ServerLogger } from './options.js';
import type { Operation, UncheckedParams } from './operation.js';
import type { RequestMeta } from './request-meta.js';
import type { ResourceDefinition, ResourceHandler } from './resources.js';
import type { ToolCall, ToolDefinition, ToolHandOff } from './tools.js';

/** Answers one method: its result (whatever its resultType), or throws an McpError. `operation` is the request as admitted, its target resolved. */
/** A method's handler: the operation the gates admitted (its params checked, its target looked up), the context, the channel. */
export type MethodHandler<R extends Result = Result, P extends object = UncheckedParams> = (operation: Operation<P>, ctx: ServerContext, channel: RequestChannel) => Promise<R>;

/** A member an extension adds to every handler context (`this` is the context). */
export type ContextMember = (this: RequestContext, ...args: never[]) => unknown;

export interface ServerExtension {
  /** Names the extension in errors, and is what a tool hand-off names (`handOffTo`). */
  readonly name: string;
  /** 2026-07-28 methods it adds, by name. */
  readonly methods?: Readonly<Record<string, MethodHandler>>;
  /** Whether its methods are offered, given what the server advertises (default: always); when not, they are unknown (-32601). */
  offersMethods?(capabilities: ServerCapabilities): boolean;
  /** Members it adds to every handler context, by name (e.g. `task`). */
  readonly context?: Readonly<Record<string, ContextMember>>;
  /** What it adds to the capabilities the core derived from what is registered. */
  capabilities?(core: ServerCapabilities): ServerCapabilities;
  /** Whether what it adds to the capabilities is advertised to 2025-11-25 clients too (default: 2026-07-28 only). */
  readonly advertisedToLegacy?: boolean;

  /** The era step: before the 2026-07-28 gates, answers a request of another era itself, or returns undefined to go on. */
  route?(request: JsonRpcRequest, channel: RequestChannel): Promise<Reply> | undefined;
  /** The gates step, admission: after the gates and before any state is opened, refuses what it governs (throws McpError). */
  admit?(operation: Operation): void;
  /** The run step, hand-off: a tool returned a hand-off that names this extension; its result is the tool's. */
  takeHandOff?(handOff: ToolHandOff, call: ToolCall): Promise<ResultByMethod['tools/call']>;
  /**
   * Whether a tool is not there for a client with these capabilities: left out
   * of its `tools/list` and unknown to its `tools/call` (-32602), as if it were
   * not registered (e.g. an app-only tool for a client that renders no apps).
   */
  hidesTool?(definition: ToolDefinition<SchemaInput | undefined>, client: ClientCapabilities): boolean;

  /** Messages that are not requests, and HTTP GET and DELETE, of the sessions it serves (the 2025-11-25 era); at most one extension has one. */
  readonly sessionPeer?: SessionPeer;

  /** The server is shutting down. */
  close?(): void;
}

/** What an extension may use of the server it is part of. */
export interface ServerHost {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly logger: ServerLogger;
  readonly changes: ChangeBus;
  /** What the server advertises (the core's capabilities and every extension's). */
  capabilities(): ServerCapabilities;
  /** What a 2025-11-25 client is told: the core's capabilities and those of the extensions `advertisedToLegacy`. */
  legacyCapabilities(): ServerCapabilities;
  /** A tool's definition as registered (extensions read their own fields of it). */
  toolDefinition(name: unknown): ToolDefinition<SchemaInput | undefined> | undefined;
  /** Every registered tool's definition. */
  toolDefinitions(): Iterable<ToolDefinition<SchemaInput | undefined>>;
  /** Registers a resource as `McpServer.resource` does (an extension that serves files through `resources/read`); returns what removes it. */
  addResource(definition: ResourceDefinition, handler: ResourceHandler): () => void;
  /**
   * Runs a method for a request another era admitted: the extensions'
   * admission, then the handler with a context made from `meta`, asking
   * through `interaction`. The raw result, or the error the handler threw.
   */
  invoke(request: JsonRpcRequest, channel: RequestChannel, meta: RequestMeta, interaction: Interaction | undefined): Promise<Result>;
  /** Whether the server offers `method` now (given what is registered). */
  offers(method: string): boolean;
  /** The error a client may see for what a handler threw (logged when it is not the handler's own McpError). */
  clientError(error: unknown, method: string): McpError;
  /** Counts a task entering `status` (metrics, docs/observability.md). */
  taskStatus(status: string): void;
}

/** Makes an extension for one server. */
export type ExtensionFactory = (host: ServerHost) => ServerExtension;

/**
 * An extension as the package's entry points hand it out (`apps()` from
 * `tessera-mcp/apps`), for McpServer's `extensions` option. Opaque: what it
 * makes stays inside the package.
 */
export interface Extension {
  /** Its name; a server has at most one extension of each name. */
  readonly name: string;
}

const factories = new WeakMap<Extension, ExtensionFactory>();

/** Wraps a factory as an `Extension` for the `extensions` option. */
export function packagedExtension(name: string, make: ExtensionFactory): Extension {
  const extension: Extension = Object.freeze({ name });
  factories.set(extension, make);
  return extension;
}

/** The factory of an `Extension` this package made; a TypeError for anything else (e.g. one from another copy of the package). */
export function factoryOf(extension: Extension): ExtensionFactory {
  const make = factories.get(extension);
  if (!make) throw new TypeError(`${String((extension as Partial<Extension> | undefined)?.name ?? extension)} is not an extension made by this copy of tessera-mcp`);
  return make;
}
