/**
 * The server's parts, put together: registries, capabilities derived from
 * what is registered, the change bus, the requestState rounds and the
 * extensions. The request path itself is request-path.ts; this class is what
 * it (and each extension, as the ServerHost) works with.
 */

import type { Interaction } from '../mrtr/interaction.js';
import type { InputRounds } from '../mrtr/input-rounds.js';
import type { Reply, RequestChannel } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import { errorResponse, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { META_SERVER_INFO } from '../protocol/meta.js';
import type { CacheHints, ClientCapabilities, Implementation, Result, ServerCapabilities } from '../protocol/types.js';
import type { SchemaInput } from '../schema/resolve.js';
import { MemoryChangeBus, type ChangeBus, type ChangeList } from '../stores/change-bus.js';
import type { ServerContext } from './context.js';
import { contextClass, type ContextClass } from './context-class.js';
import type { ContextMember, ExtensionFactory, MethodHandler, ServerExtension, ServerHost } from './extension.js';
import { admittedOperation, type GateLookups } from './gates.js';
import { inputRoundsFor } from './input-state.js';
import type { Operation } from './operation.js';
import { operationScopes, type ScopeSources } from './operation-scopes.js';
import { coreMethodOffered, coreMethods } from './methods.js';
import { cacheHints, stderrLogger, type CacheableList, type ServerLogger, type ServerOptions } from './options.js';
import { PromptRegistry, type RegisteredPrompt } from './prompts.js';
import type { RequestLog } from './request-log.js';
import { RequestObserver } from './request-observer.js';
import type { RequestMeta } from './request-meta.js';
import { ResourceRegistry, type ResourceDefinition, type ResourceHandler, type ResourceTarget } from './resources.js';
import { clientError } from './results.js';
import { SubscriptionHub } from './subscriptions.js';
import { ToolRegistry, type HiddenTools, type RegisteredTool, type TakeHandOff, type ToolDefinition } from './tools.js';

export class ServerCore implements ServerHost, GateLookups {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly logger: ServerLogger;
  readonly changes: ChangeBus;
  readonly tools: ToolRegistry;
  readonly resources: ResourceRegistry;
  readonly prompts: PromptRegistry;
  readonly extensions: readonly ServerExtension[];
  /** The extensions that take requests of another era (the era step of the request path). */
  readonly routes: readonly ServerExtension[];
  /** The extensions that hide tools from some clients. */
  private readonly toolHiders: readonly ServerExtension[];
  readonly loggingEnabled: boolean;
  /** `serverInfo` for every result's `_meta`, or undefined when turned off. */
  readonly identity: Record<string, unknown> | undefined;
  /** Spans, metrics and request logs (observation, around the whole request path). */
  readonly observer: RequestObserver;
  private readonly options: ServerOptions;
  private readonly hub: SubscriptionHub;
  private readonly methods: Map<string, MethodHandler>;
  /** The extension each contributed method comes from. */
  private readonly methodOwners = new Map<string, ServerExtension>();
  private readonly Context: ContextClass;
  private capabilityCache: ServerCapabilities | undefined;
  private legacyCapabilityCache: ServerCapabilities | undefined;
  private offeredCache: Map<string, MethodHandler> | undefined;
  private inputRounds: InputRounds | undefined;
  private readonly scopeSources: ScopeSources = {
    tool: (name) => this.tools.scopes(name),
    prompt: (name) => this.prompts.scopes(name),
    resource: (uri) => this.resources.scopesFor(uri),
    template: (uriTemplate) => this.resources.templateScopes(uriTemplate),
  };

  /** The run step of the request path: a tool's hand-off goes to the extension it names. */
  private readonly takeHandOff: TakeHandOff = (handOff, call) => {
    const extension = this.extensions.find((e) => e.name === handOff.handOffTo && e.takeHandOff);
    if (!extension?.takeHandOff) throw new TypeError(`Tool "${call.name}" handed its result off to "${handOff.handOffTo}", which this server does not have`);
    return extension.takeHandOff(handOff, call);
  };

  constructor(info: Implementation, options: ServerOptions, extensions: readonly ExtensionFactory[]) {
    this.info = info;
    this.options = options;
    this.instructions = options.instructions;
    this.logger = options.logger ?? stderrLogger;
    this.loggingEnabled = options.logging !== false;
    this.identity = options.serverInfoInResults === false ? undefined : { [META_SERVER_INFO]: info };
    this.changes = options.changes ?? new MemoryChangeBus();
    this.observer = new RequestObserver(options.telemetry, options.requestLog, this.logger);
    this.hub = new SubscriptionHub(this.changes);
    this.tools = new ToolRegistry(() => this.listChanged('tools'));
    this.resources = new ResourceRegistry(() => this.listChanged('resources'));
    this.prompts = new PromptRegistry(() => this.listChanged('prompts'));
    // Each core handler is typed by its method's checked params; the gates check them before it is called (method-params.ts).
    this.methods = new Map(Object.entries(coreMethods({
      tools: this.tools,
      resources: this.resources,
      prompts: this.prompts,
      hub: this.hub,
      cache: cacheHints(options.cache) satisfies Record<CacheableList, CacheHints>,
      pageSize: options.pageSize ?? 100,
      instructions: options.instructions,
      capabilities: () => this.capabilities(),
      takeHandOff: this.takeHandOff,
      hiddenTools: this.hiddenTools.bind(this),
    })) as Array<[string, MethodHandler]>);
    this.extensions = extensions.map((make) => make(this));
    this.routes = this.extensions.filter((e) => e.route);
    this.toolHiders = this.extensions.filter((e) => e.hidesTool);
    const members: Array<readonly [string, ContextMember]> = [];
    for (const extension of this.extensions) {
      for (const [name, handler] of Object.entries(extension.methods ?? {})) {
        if (this.methods.has(name)) throw new TypeError(`Extension ${extension.name} defines ${name}, which the server already has`);
        this.methods.set(name, handler);
        this.methodOwners.set(name, extension);
      }
      members.push(...Object.entries(extension.context ?? {}));
    }
    this.Context = contextClass(members);
  }

  /** The requestState rounds, set up on first use (no keys are made at start-up, which Workers refuse at global scope). */
  get rounds(): InputRounds {
    this.inputRounds ??= inputRoundsFor(this.options.state ?? {}, this.info.name, this.logger);
    return this.inputRounds;
  }

  /** The OAuth scopes `request` needs, from the definition of what it calls (operation-scopes.ts). */
  requiredScopes(request: JsonRpcRequest): readonly string[] {
    return operationScopes(request, this.scopeSources);
  }

  /** Whether a retry of this operation must redeem its state once: for every flow, or for the tool that asks it. */
  singleUse(operation: Operation): boolean {
    return this.options.state?.singleUse === true || operation.tool?.definition.singleUseState === true;
  }

  /* ---------------- what is offered ---------------- */

  capabilities(): ServerCapabilities {
    this.capabilityCache ??= this.extensions.reduce((capabilities, e) => e.capabilities?.(capabilities) ?? capabilities, this.coreCapabilities());
    return this.capabilityCache;
  }

  legacyCapabilities(): ServerCapabilities {
    this.legacyCapabilityCache ??= this.extensions
      .filter((e) => e.advertisedToLegacy)
      .reduce((capabilities, e) => e.capabilities?.(capabilities) ?? capabilities, this.coreCapabilities());
    return this.legacyCapabilityCache;
  }

  private coreCapabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = {};
    if (this.tools.size > 0) capabilities.tools = { listChanged: true };
    if (this.prompts.size > 0) capabilities.prompts = { listChanged: true };
    if (this.resources.size > 0) capabilities.resources = { subscribe: true, listChanged: true };
    if (this.prompts.size > 0 || this.resources.size > 0) capabilities.completions = {};
    if (this.loggingEnabled) capabilities.logging = {};
    return capabilities;
  }

  /** The handler of a method this server offers now, or undefined. */
  method(name: string): MethodHandler | undefined {
    return (this.offeredCache ??= this.offeredMethods()).get(name);
  }

  /** The methods offered given what the server advertises now (made again when a list changes, as the capabilities are). */
  private offeredMethods(): Map<string, MethodHandler> {
    const capabilities = this.capabilities();
    const offered = new Map<string, MethodHandler>();
    for (const [name, handler] of this.methods) {
      const owner = this.methodOwners.get(name);
      if (owner ? (owner.offersMethods?.(capabilities) ?? true) : coreMethodOffered(name, capabilities)) offered.set(name, handler);
    }
    return offered;
  }

  /* The gates look each request's target up once (operation.ts). */

  tool(name: string): RegisteredTool | undefined {
    return this.tools.resolve(name);
  }

  prompt(name: string): RegisteredPrompt | undefined {
    return this.prompts.resolve(name);
  }

  resource(uri: string): ResourceTarget | undefined {
    return this.resources.resolve(uri);
  }

  offers(method: string): boolean {
    return this.method(method) !== undefined;
  }

  /** The tools the extensions hide from a client with these capabilities (none, with no extension that hides any). */
  private hiddenTools(client: ClientCapabilities): HiddenTools | undefined {
    if (this.toolHiders.length === 0) return undefined;
    return (definition) => this.toolHiders.some((e) => e.hidesTool!(definition, client));
  }

  toolDefinition(name: unknown): ToolDefinition<SchemaInput | undefined> | undefined {
    return this.tools.definition(name);
  }

  toolDefinitions(): Iterable<ToolDefinition<SchemaInput | undefined>> {
    return this.tools.definitions();
  }

  addResource(definition: ResourceDefinition, handler: ResourceHandler): () => void {
    return this.resources.add(definition, handler);
  }

  /* ---------------- changes ---------------- */

  listChanged(list: ChangeList): void {
    this.capabilityCache = undefined;
    this.legacyCapabilityCache = undefined;
    this.offeredCache = undefined;
    void this.changes.publish({ type: 'list', list });
  }

  resourceUpdated(uri: string): void {
    void this.changes.publish({ type: 'resource', uri });
  }

  /* ---------------- running methods ---------------- */

  /** The gates step of the request path (after the gates): each extension may refuse what it governs. */
  admit(operation: Operation): void {
    for (const extension of this.extensions) extension.admit?.(operation);
  }


  context(request: JsonRpcRequest, channel: RequestChannel, meta: RequestMeta, interaction: Interaction | undefined): ServerContext {
    return new this.Context(request, meta, channel, this.loggingEnabled, interaction);
  }

  async invoke(request: JsonRpcRequest, channel: RequestChannel, meta: RequestMeta, interaction: Interaction | undefined): Promise<Result> {
    const handler = this.method(request.method);
    if (!handler) throw McpError.methodNotFound(request.method);
    const operation = admittedOperation(request, meta, this, handler);
    this.admit(operation);
    const ctx = this.context(request, channel, meta, interaction);
    try {
      return await handler(operation, ctx, channel);
    } finally {
      ctx.finish();
    }
  }



  clientError(error: unknown, method: string): McpError {
    return clientError(error, method, this.logger);
  }

  taskStatus(status: string): void {
    this.observer.taskStatus(status);
  }

  /** Adds a request log; returns the function that removes it. */
  logRequests(log: RequestLog): () => void {
    return this.observer.addLog(log);
  }

  errorReply(request: JsonRpcRequest, error: unknown): Reply {
    const mcpError = this.clientError(error, request.method);
    return { message: errorResponse(request.id, mcpError), condition: mcpError.condition };
  }

  close(): void {
    this.hub.close();
    for (const extension of this.extensions) extension.close?.();
  }
}
