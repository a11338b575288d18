/**
 * The stateless MCP server: registration API, the request gates, and the
 * method table. Every request is answered from its own contents; the server
 * keeps nothing between requests but what was registered.
 */

import type { Reply, RequestChannel, RequestHandler } from '../protocol/channel.js';
import { McpError, httpStatusForError, isReservedErrorCode } from '../protocol/errors.js';
import { errorResponse, resultResponse, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { META_SERVER_INFO, TASKS_EXTENSION } from '../protocol/meta.js';
import { INPUT_REQUIRED_METHODS, Method } from '../protocol/methods.js';
import type { CacheHints, Implementation, ServerCapabilities } from '../protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { complete } from './completion.js';
import { RequestExchange, type RequestContext } from './context.js';
import { checkParamHeaders, checkRoutingHeaders, checkVersionHeader } from './header-gate.js';
import { PromptRegistry, type PromptArguments, type PromptDefinition, type PromptHandler } from './prompts.js';
import { hasModernMeta, readRequestMeta, type RequestMeta } from './request-meta.js';
import {
  ResourceRegistry,
  type ResourceDefinition,
  type ResourceHandler,
  type ResourceTemplateDefinition,
  type TemplateHandler,
} from './resources.js';
import type { SchemaInput } from '../schema/resolve.js';
import { InteractionEngine, type RoundRunner } from '../mrtr/engine.js';
import { KeyRing } from '../mrtr/keyring.js';
import { MemoryRedemptionStore, type RedemptionStore } from '../mrtr/redemption-store.js';
import { StateSealer } from '../mrtr/sealed-state.js';
import { SubscriptionHub } from './subscriptions.js';
import { ToolRegistry, type ToolDefinition, type ToolHandler } from './tools.js';
import type { TaskWork } from './task-work.js';

/** Where the server reports what the client must not see: handler failures, rejected state. */
export interface ServerLogger {
  error(message: string, detail?: unknown): void;
  warn(message: string, detail?: unknown): void;
}

const stderrLogger: ServerLogger = {
  error: (message, detail) => console.error(`[tessera] ${message}`, ...(detail === undefined ? [] : [detail])),
  warn: (message, detail) => console.error(`[tessera] ${message}`, ...(detail === undefined ? [] : [detail])),
};

export type CacheableList = 'discover' | 'tools' | 'prompts' | 'resources' | 'templates' | 'read';

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

let warnedEphemeralKey = false;

const DEFAULT_CACHE: Record<CacheableList, CacheHints> = {
  discover: { ttlMs: 60_000, cacheScope: 'public' },
  tools: { ttlMs: 60_000, cacheScope: 'public' },
  prompts: { ttlMs: 60_000, cacheScope: 'public' },
  resources: { ttlMs: 60_000, cacheScope: 'public' },
  templates: { ttlMs: 60_000, cacheScope: 'public' },
  // A resource's contents may be about the caller: private unless the author says otherwise.
  read: { ttlMs: 0, cacheScope: 'private' },
};

export type MethodHandler = (request: JsonRpcRequest, ctx: RequestExchange, channel: RequestChannel) => Promise<Record<string, unknown>>;

/**
 * The 2026-07-28 server: stateless, every request self-describing. The
 * exported `McpServer` (src/mcp-server.ts) adds the 2025-11-25 lifecycle
 * (legacy/) and the Tasks extension (tasks/).
 */
export class StatelessServer implements RequestHandler {
  readonly info: Implementation;
  protected readonly options: ServerOptions;
  protected readonly logger: ServerLogger;
  private readonly tools: ToolRegistry;
  private readonly resources: ResourceRegistry;
  private readonly prompts: PromptRegistry;
  private readonly hub = new SubscriptionHub();
  private readonly methods: Map<string, MethodHandler>;
  private readonly cache: Record<CacheableList, CacheHints>;
  private readonly pageSize: number;
  private readonly serverInfoMeta: Record<string, unknown> | undefined;
  private readonly engine: InteractionEngine;
  private readonly singleUseState: boolean;

  constructor(info: Implementation, options: ServerOptions = {}) {
    this.info = info;
    this.options = options;
    this.logger = options.logger ?? stderrLogger;
    this.pageSize = options.pageSize ?? 100;
    this.cache = { ...DEFAULT_CACHE };
    for (const [list, hints] of Object.entries(options.cache ?? {})) {
      const key = list as CacheableList;
      this.cache[key] = { ...DEFAULT_CACHE[key], ...hints };
    }
    this.serverInfoMeta = options.serverInfoInResults === false ? undefined : { [META_SERVER_INFO]: info };
    this.engine = this.createEngine(options.state ?? {});
    this.singleUseState = options.state?.singleUse ?? false;
    this.tools = new ToolRegistry(() => this.listChanged('tools'));
    this.resources = new ResourceRegistry(() => this.listChanged('resources'));
    this.prompts = new PromptRegistry(() => this.listChanged('prompts'));
    this.methods = this.methodTable();
  }

  private createEngine(options: StateOptions): InteractionEngine {
    const configured = typeof options.keys === 'string' ? KeyRing.parse(options.keys) : options.keys;
    const keys = configured ?? KeyRing.fromEnv() ?? KeyRing.ephemeral();
    const sealer = new StateSealer({ keys, ttlMs: options.ttlMs, maxBytes: options.maxBytes, clock: options.clock });
    const redemptions = options.redemptions ?? new MemoryRedemptionStore(options.clock);
    return new InteractionEngine({
      sealer,
      audience: options.audience ?? this.info.name,
      redemptions,
      log: (message) => this.logger.warn(message),
      beforeSeal: keys.ephemeral
        ? () => {
            if (warnedEphemeralKey) return;
            warnedEphemeralKey = true;
            this.logger.warn(
              'WARNING: no requestState key is configured, so this process made its own. Other instances cannot open ' +
                'state it seals, and restarting it breaks flows in flight. Set TESSERA_STATE_KEYS (make a key with ' +
                '`tessera keygen`) or the `state.keys` option on every instance.',
            );
          }
        : undefined,
    });
  }

  /* ---------------- registration ---------------- */

  /** Registers a tool. Returns a function that removes it again (listeners hear `tools/list_changed`). */
  tool<S extends SchemaInput | undefined = undefined>(name: string, definition: ToolDefinition<S>, handler: ToolHandler<S>): () => void {
    return this.tools.add(name, definition, handler);
  }

  resource(definition: ResourceDefinition, handler: ResourceHandler): () => void {
    return this.resources.add(definition, handler);
  }

  resourceTemplate(definition: ResourceTemplateDefinition, handler: TemplateHandler): () => void {
    return this.resources.addTemplate(definition, handler);
  }

  prompt<A extends PromptArguments | undefined = undefined>(
    name: string,
    definition: PromptDefinition<A>,
    handler: PromptHandler<A>,
  ): () => void {
    return this.prompts.add(name, definition, handler);
  }

  /** Tells subscribers of `uri` (or of a URI it lies under) that the resource changed. */
  resourceUpdated(uri: string): void {
    this.hub.resourceUpdated(uri);
  }

  /** A list changed: listen streams that asked hear of it. Subclasses add other audiences. */
  protected listChanged(list: 'tools' | 'prompts' | 'resources'): void {
    this.capabilityCache = undefined;
    if (list === 'tools') this.hub.toolsChanged();
    else if (list === 'prompts') this.hub.promptsChanged();
    else this.hub.resourcesChanged();
  }

  /** Ends every open `subscriptions/listen` stream gracefully. */
  close(): void {
    this.hub.closeAll();
  }

  private capabilityCache: ServerCapabilities | undefined;

  /** What `server/discover` advertises, derived from what is registered (kept until a list changes). */
  capabilities(): ServerCapabilities {
    this.capabilityCache ??= this.deriveCapabilities();
    return this.capabilityCache;
  }

  protected deriveCapabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = {};
    if (this.tools.size > 0) capabilities.tools = { listChanged: true };
    if (this.prompts.size > 0) capabilities.prompts = { listChanged: true };
    if (this.resources.size > 0) capabilities.resources = { subscribe: true, listChanged: true };
    if (this.prompts.size > 0 || this.resources.size > 0) capabilities.completions = {};
    if (this.options.logging !== false) capabilities.logging = {};
    return capabilities;
  }

  /* ---------------- request path ---------------- */

  async handleRequest(request: JsonRpcRequest, channel: RequestChannel): Promise<Reply> {
    let admitted: { handler: MethodHandler; meta: RequestMeta };
    try {
      admitted = this.admit(request, channel);
    } catch (error) {
      return this.errorReply(request, error);
    }
    return this.execute(request, channel, admitted.meta, admitted.handler, this.engine);
  }

  /**
   * Runs a method handler with a context built from `meta`; `rounds` serves
   * the handler's asks; `translate` maps the outgoing error to another era's codes.
   */
  protected async execute(
    request: JsonRpcRequest,
    channel: RequestChannel,
    meta: RequestMeta,
    handler: MethodHandler,
    rounds: RoundRunner,
    translate: (error: McpError) => McpError = (error) => error,
  ): Promise<Reply> {
    const exchange = new RequestExchange(request.method, request.id, meta, channel, this.options.logging !== false, rounds);
    try {
      const result = await handler(request, exchange, channel);
      exchange.finish();
      return { message: resultResponse(request.id, this.finishResult(request.method, result)), status: 200 };
    } catch (error) {
      exchange.finish();
      return this.errorReply(request, error, translate);
    }
  }

  protected errorReply(request: JsonRpcRequest, error: unknown, translate: (error: McpError) => McpError = (e) => e): Reply {
    const mcpError = translate(this.toMcpError(error, request.method));
    return { message: errorResponse(request.id, mcpError), status: httpStatusForError(mcpError) };
  }

  /**
   * How this request's task work becomes a task, or undefined when it cannot
   * (then the work runs inline). The stateless server has no task store; the
   * exported McpServer does.
   */
  protected taskStarter(_request: JsonRpcRequest, _ctx: RequestExchange): ((work: TaskWork) => Promise<Record<string, unknown>>) | undefined {
    return undefined;
  }

  /** Whether any tool takes part in the Tasks extension. */
  protected get offersTasks(): boolean {
    return this.tools.hasTaskTools;
  }

  /** The handler of a method this server offers (given what is registered), or undefined. */
  protected lookup(method: string): MethodHandler | undefined {
    const handler = this.methods.get(method);
    return handler && this.methodAvailable(method) ? handler : undefined;
  }

  /**
   * The gates, in the order that gives each failure its mandated error:
   * `_meta` (-32602/400), version header (-32020/400), version (-32022/400),
   * method (-32601/404), routing headers (-32020/400).
   */
  private admit(request: JsonRpcRequest, channel: RequestChannel): { handler: MethodHandler; meta: RequestMeta } {
    const header = channel.header?.bind(channel);
    if (request.method === 'initialize' && !hasModernMeta(request.params)) {
      // A 2025-era handshake: name the versions served here, since such a client cannot fall forward by itself.
      const requested = request.params?.protocolVersion;
      throw McpError.unsupportedVersion(typeof requested === 'string' ? requested : 'unknown', MODERN_PROTOCOL_VERSIONS);
    }
    const meta = readRequestMeta(request.params);
    if (header) checkVersionHeader(header, meta.protocolVersion);
    if (!MODERN_PROTOCOL_VERSIONS.includes(meta.protocolVersion)) {
      throw McpError.unsupportedVersion(meta.protocolVersion, MODERN_PROTOCOL_VERSIONS);
    }
    // Removed methods (initialize, ping, logging/setLevel, resources/subscribe…) are unknown here: -32601 on 404.
    const handler = this.lookup(request.method);
    if (!handler) throw McpError.methodNotFound(request.method);
    if (header) {
      checkRoutingHeaders(header, request);
      if (request.method === Method.ToolsCall && typeof request.params?.name === 'string') {
        const mirrors = this.tools.headerParams(request.params.name);
        if (mirrors && mirrors.length > 0) checkParamHeaders(header, mirrors, request.params.arguments);
      }
    }
    return { handler, meta };
  }

  private methodAvailable(method: string): boolean {
    const capabilities = this.capabilities();
    switch (method) {
      case Method.ToolsList:
      case Method.ToolsCall:
        return capabilities.tools !== undefined;
      case Method.PromptsList:
      case Method.PromptsGet:
        return capabilities.prompts !== undefined;
      case Method.ResourcesList:
      case Method.ResourceTemplatesList:
      case Method.ResourcesRead:
        return capabilities.resources !== undefined;
      case Method.Complete:
        return capabilities.completions !== undefined;
      default:
        return true;
    }
  }

  private methodTable(): Map<string, MethodHandler> {
    const params = (r: JsonRpcRequest): Record<string, unknown> => r.params ?? {};
    const withCache = (result: Record<string, unknown>, hints: CacheHints): Record<string, unknown> => ({
      ...result,
      ttlMs: hints.ttlMs,
      cacheScope: hints.cacheScope,
    });
    return new Map<string, MethodHandler>([
      [
        Method.Discover,
        async () => {
          const result: Record<string, unknown> = {
            supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
            capabilities: this.capabilities(),
          };
          if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
          return withCache(result, this.cache.discover);
        },
      ],
      [Method.ToolsList, async (r) => withCache(this.tools.list(params(r).cursor, this.pageSize), this.cache.tools)],
      [
        Method.ToolsCall,
        async (r, ctx) => {
          const name = params(r).name;
          const mode = this.tools.taskMode(name);
          const startTask = mode ? this.taskStarter(r, ctx) : undefined;
          if (mode === 'required' && !startTask) {
            throw McpError.missingCapability(`Tool ${String(name)} runs only as a task: declare the ${TASKS_EXTENSION} extension`, {
              extensions: { [TASKS_EXTENSION]: {} },
            });
          }
          return ctx.rounds.run(r, ctx, () => this.tools.call(params(r), ctx, startTask), this.singleUseState || this.tools.singleUse(name));
        },
      ],
      [Method.PromptsList, async (r) => withCache(this.prompts.list(params(r).cursor, this.pageSize), this.cache.prompts)],
      [Method.PromptsGet, async (r, ctx) => ctx.rounds.run(r, ctx, () => this.prompts.get(params(r), ctx), this.singleUseState)],
      [Method.ResourcesList, async (r) => withCache(this.resources.list(params(r).cursor, this.pageSize), this.cache.resources)],
      [
        Method.ResourceTemplatesList,
        async (r) => withCache(this.resources.listTemplates(params(r).cursor, this.pageSize), this.cache.templates),
      ],
      [
        Method.ResourcesRead,
        async (r, ctx) => {
          let cache: Partial<CacheHints> | undefined;
          const result = await ctx.rounds.run(
            r,
            ctx,
            async () => {
              const read = await this.resources.read(params(r), ctx);
              cache = read.cache;
              return read.result;
            },
            this.singleUseState,
          );
          if (result.resultType === 'input_required') return result;
          return withCache(result, { ...this.cache.read, ...cache });
        },
      ],
      [
        Method.Complete,
        async (r, ctx) =>
          complete(params(r), ctx, (ref, argument) =>
            ref.type === 'ref/prompt'
              ? this.prompts.completer(String(ref.name), argument)
              : this.resources.templateCompleter(String(ref.uri), argument),
          ),
      ],
      [Method.SubscriptionsListen, async (r, _ctx, channel) => this.hub.listen(r.id, params(r), channel, this.capabilities())],
    ]);
  }

  /** Adds `resultType` and `serverInfo`; refuses `input_required` where the spec forbids it. */
  protected finishResult(method: string, result: Record<string, unknown>): Record<string, unknown> {
    const resultType = result.resultType;
    if (resultType === 'input_required' && !INPUT_REQUIRED_METHODS.has(method)) {
      throw new McpError(-32603, 'Internal error');
    }
    const meta = this.serverInfoMeta
      ? result._meta === undefined
        ? this.serverInfoMeta
        : { ...(result._meta as Record<string, unknown>), ...this.serverInfoMeta }
      : result._meta;
    const finished: Record<string, unknown> = { resultType: resultType ?? 'complete', ...result };
    if (meta !== undefined) finished._meta = meta;
    return finished;
  }

  private toMcpError(error: unknown, method: string): McpError {
    if (error instanceof McpError) {
      if (!isReservedErrorCode(error.code)) return error;
      this.logger.error(`${method} threw error code ${error.code}, which 2026-07-28 reserves or removed; sent -32603 instead`, error);
      return McpError.internal();
    }
    this.logger.error(`${method} failed`, error);
    return McpError.internal();
  }
}

export type { RequestContext };
