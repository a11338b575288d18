/**
 * The MCP 2026-07-28 client: stateless requests with per-request `_meta`,
 * version negotiation on -32022, the Streamable HTTP metadata headers, and the
 * multi round-trip loop that answers `input_required` results through the
 * registered handlers and retries with a new id, the answers and the exact
 * `requestState`.
 */

import { McpError, ErrorCode } from '../protocol/errors.js';
import {
  collectHeaderParams,
  encodeHeaderValue,
  mirroredText,
  readMirroredArgument,
  type HeaderParam,
} from '../protocol/header-values.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROGRESS_TOKEN,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
} from '../protocol/meta.js';
import { Method, Notification, mcpNameSource } from '../protocol/methods.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Implementation,
  InputRequest,
  InputResponses,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  SubscriptionFilter,
  Tool,
} from '../protocol/types.js';
import { LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { ClientError, InputFlowError, ProtocolViolationError, RequestTimeoutError, TransportError } from './errors.js';
import { answerServerRequest } from './server-requests.js';
import { capabilitiesFor, samplingHandlerOf, type InputContext, type InputHandlers } from './handlers.js';
import type { HttpAuthProvider } from '../auth/client/auth-provider.js';
import { HttpClientTransport, type HttpClientTransportOptions } from './http-transport.js';
import { PendingRound } from './pending-round.js';
import { readResult } from './result-checks.js';
import { StdioClientTransport, type StdioServerParameters } from './stdio-transport.js';
import type { ClientTransport } from './transport.js';

/** Which protocol era a server speaks: 2026-07-28 (`modern`) or 2025-11-25 and earlier (`legacy`). */
export type Era = 'modern' | 'legacy';

export interface RoundInfo {
  method: string;
  params: Readonly<Record<string, unknown>>;
  /** 1 for the first input round. */
  round: number;
  pending: PendingRound;
}

export interface ClientOptions extends InputHandlers {
  /** Capabilities to declare beyond those implied by the handlers (e.g. extensions). */
  capabilities?: ClientCapabilities;
  /** The protocol version to speak first (default: the latest). */
  protocolVersion?: string;
  /** Ask servers for log messages at this level on every request (deprecated feature). */
  logLevel?: LoggingLevel;
  /** Log messages from the server. */
  onLog?: (message: { level: LoggingLevel; logger?: string; data: unknown }) => void;
  /** Most input rounds one call may take (default 10). */
  maxRounds?: number;
  /** Longest a whole multi-round call may take, answers included, in ms (default 15 minutes). */
  flowTimeoutMs?: number;
  /** Longest one request may take, in ms (default 60 s). */
  requestTimeoutMs?: number;
  /** Watches each input round; returning false stops the flow with an InputFlowError. */
  onRound?: (round: RoundInfo) => void | boolean | Promise<void | boolean>;
  /** Where the client reports what it skipped (e.g. tools with invalid x-mcp-header annotations). */
  warn?: (message: string) => void;
  /**
   * The era to speak: `auto` (default) finds out on connect (HTTP: a 2026
   * request, falling back to `initialize` unless the reply is a recognised
   * 2026 error; stdio: a `server/discover` probe with a timeout); `modern` or
   * `legacy` pins it.
   */
  era?: Era | 'auto';
  /** How long the stdio era probe waits for an answer, in ms (default 5000). */
  probeTimeoutMs?: number;
  /** Authorization for HTTP servers (e.g. an OAuthProvider); connect()'s own `auth` option wins. */
  auth?: HttpAuthProvider;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Progress notifications for this request (a progress token is added). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Log level for this request (overrides the client's). */
  logLevel?: LoggingLevel;
  /** Per-request timeout in ms (overrides the client's). */
  timeoutMs?: number;
}

export type Step<R> = { status: 'complete'; result: R } | { status: 'input_required'; pending: PendingRound };

export interface Subscription {
  /** The filter the server agreed to honour. */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /** Settles when the stream ends (resolves on a graceful close by the server or by `close()`). */
  readonly closed: Promise<void>;
  close(): void;
}

export type ConnectTarget = ClientTransport | string | URL | StdioServerParameters;

type ResultOf<M extends string> = M extends 'tools/call'
  ? CallToolResult
  : M extends 'prompts/get'
    ? GetPromptResult
    : M extends 'resources/read'
      ? ReadResourceResult
      : Record<string, unknown>;

function isAuthorizationStatus(error: unknown): boolean {
  return error instanceof TransportError && (error.status === 401 || error.status === 403);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Client {
  readonly info: Implementation;
  readonly capabilities: ClientCapabilities;
  private readonly options: ClientOptions;
  private transport: ClientTransport | undefined;
  private version: string;
  /** Starts anywhere, so a flow resumed by another client (or process) never reuses the id of its first request. */
  private nextId = 1 + Math.floor(Math.random() * 2 ** 30);
  private nextToken = 1;
  /** Mirrored-header definitions of the tools in the most recent tools/list, by name. */
  private readonly toolHeaders = new Map<string, HeaderParam[]>();
  private serverInfo: Implementation | undefined;
  private currentEra: Era = 'modern';
  /** The initialize result, on a 2025-era server. */
  private initialized: Record<string, unknown> | undefined;

  constructor(info: Implementation, options: ClientOptions = {}) {
    this.info = info;
    this.options = options;
    this.capabilities = capabilitiesFor(options, options.capabilities);
    this.version = options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
  }

  /** The protocol version in use (after negotiation). */
  get protocolVersion(): string {
    return this.version;
  }

  /** The server's self-reported identity, from the last result that carried it. */
  get server(): Implementation | undefined {
    return this.serverInfo;
  }

  /** The era the connected server speaks. */
  get era(): Era {
    return this.currentEra;
  }

  /**
   * Connects to a URL (Streamable HTTP), a command to spawn (stdio), or any
   * transport, and settles the era (see `ClientOptions.era`).
   */
  async connect(target: ConnectTarget, httpOptions?: HttpClientTransportOptions): Promise<this> {
    if (typeof target === 'string' || target instanceof URL) {
      const auth = httpOptions?.auth ?? this.options.auth;
      this.transport = new HttpClientTransport(target, auth ? { ...httpOptions, auth } : httpOptions);
    } else if ('request' in target) this.transport = target;
    else this.transport = new StdioClientTransport(target);
    this.transport.onUnrouted?.((note) => this.unrouted(note));
    this.transport.onServerRequest?.((request) => answerServerRequest(request, this.options, this.serverInfo));
    const era = this.options.era ?? 'auto';
    this.currentEra = 'modern';
    if (era === 'legacy') await this.initializeLegacy();
    else if (era === 'auto') await this.detectEra();
    return this;
  }

  /** Finds out whether the server speaks 2026-07-28, falling back to the 2025 handshake (spec §16.2). */
  private async detectEra(): Promise<void> {
    const probeMs = this.transport?.kind === 'http' ? undefined : (this.options.probeTimeoutMs ?? 5000);
    try {
      await this.request(Method.Discover, {}, { timeoutMs: probeMs });
      return;
    } catch (error) {
      if (error instanceof McpError) {
        // A recognised 2026 error means a 2026 server: never fall back (request() already renegotiated).
        if (error.code === ErrorCode.HeaderMismatch || error.code === ErrorCode.MissingRequiredClientCapability) throw error;
        if (error.code === ErrorCode.UnsupportedProtocolVersion) {
          const supported = isObject(error.data) && Array.isArray(error.data.supported) ? (error.data.supported as string[]) : [];
          const legacy = supported.find((v) => LEGACY_PROTOCOL_VERSIONS.includes(v));
          if (!legacy) throw error;
          return this.initializeLegacy(legacy);
        }
      } else if (!(error instanceof ClientError) || isAuthorizationStatus(error)) {
        // Not signed in (or not allowed) is no sign of a 2025 server: never fall back on 401/403.
        throw error;
      }
      await this.initializeLegacy();
    }
  }

  /** The 2025-11-25 handshake: initialize, then notifications/initialized; a session on HTTP. */
  private async initializeLegacy(version = LEGACY_PROTOCOL_VERSIONS[0]!): Promise<void> {
    this.currentEra = 'legacy';
    const { extensions: _extensions, ...capabilities } = this.capabilities;
    const result = await this.request('initialize', { protocolVersion: version, capabilities, clientInfo: this.info });
    const negotiated = result.protocolVersion;
    if (typeof negotiated !== 'string' || !LEGACY_PROTOCOL_VERSIONS.includes(negotiated)) {
      throw new ProtocolViolationError(`The server answered initialize with protocol version ${JSON.stringify(negotiated)}, which this client does not speak`, result);
    }
    this.version = negotiated;
    this.initialized = result;
    if (isObject(result.serverInfo)) this.serverInfo = result.serverInfo as unknown as Implementation;
    const transport = this.transport!;
    if (transport instanceof HttpClientTransport) transport.useSession({ id: transport.lastSessionId, version: negotiated });
    await transport.notify?.({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (transport instanceof HttpClientTransport) transport.openStandaloneStream();
    if (this.options.logLevel !== undefined) await this.request('logging/setLevel', { level: this.options.logLevel });
  }

  async close(): Promise<void> {
    await this.transport?.close();
    this.transport = undefined;
  }

  private unrouted(note: JsonRpcNotification): void {
    if (note.method === Notification.Message) this.options.onLog?.(note.params as { level: LoggingLevel; data: unknown });
  }

  /* ---------------- one request ---------------- */

  /** The `_meta` every 2026 request carries, made once per protocol version (it is only ever serialised). */
  private baseMeta: { version: string; meta: Record<string, unknown> } | undefined;

  private meta(options: RequestOptions, progressToken: string | undefined, extra: unknown): Record<string, unknown> | undefined {
    const logLevel = options.logLevel ?? this.options.logLevel;
    if (this.currentEra === 'legacy') {
      const own = isObject(extra) ? extra : {};
      return progressToken === undefined ? (isObject(extra) ? own : undefined) : { ...own, [META_PROGRESS_TOKEN]: progressToken };
    }
    if (this.baseMeta?.version !== this.version) {
      this.baseMeta = {
        version: this.version,
        meta: { [META_PROTOCOL_VERSION]: this.version, [META_CLIENT_INFO]: this.info, [META_CLIENT_CAPABILITIES]: this.capabilities },
      };
    }
    const base = this.baseMeta.meta;
    if (logLevel === undefined && progressToken === undefined && !isObject(extra)) return base;
    const meta: Record<string, unknown> = { ...(isObject(extra) ? extra : {}), ...base };
    if (logLevel !== undefined) meta[META_LOG_LEVEL] = logLevel;
    if (progressToken !== undefined) meta[META_PROGRESS_TOKEN] = progressToken;
    return meta;
  }

  /** The Streamable HTTP request-metadata headers for a request (SEP-2243). */
  private headers(method: string, params: Record<string, unknown>): Record<string, string> {
    const headers: Record<string, string> = { 'mcp-protocol-version': this.version, 'mcp-method': method };
    const source = mcpNameSource(method);
    const name = source === undefined ? undefined : params[source];
    if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
    if (method === Method.ToolsCall && typeof name === 'string') {
      for (const param of this.toolHeaders.get(name) ?? []) {
        const text = mirroredText(readMirroredArgument(params.arguments, param.path));
        if (text !== undefined) headers[`mcp-param-${param.name.toLowerCase()}`] = encodeHeaderValue(text);
      }
    }
    return headers;
  }

  /**
   * Sends one request and returns its result (whatever its resultType).
   * JSON-RPC errors throw McpError with the server's code and data.
   */
  async request(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    const transport = this.transport;
    if (!transport) throw new ClientError('Not connected: call connect() first');
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.send(transport, method, params, options);
        // An unknown resultType, or input_required where the spec forbids it, is never handed on.
        readResult(method, result, this.capabilities);
        return result;
      } catch (error) {
        if (attempt > 0) throw error;
        // A 2025 session the server no longer knows (ended, or another instance): start a new one (2025 rule).
        if (error instanceof TransportError && error.status === 404 && this.currentEra === 'legacy' && method !== 'initialize') {
          if (transport instanceof HttpClientTransport) transport.useSession(undefined);
          await this.initializeLegacy(this.version);
          continue;
        }
        if (!(error instanceof McpError)) throw error;
        if (error.code === ErrorCode.UnsupportedProtocolVersion && this.currentEra === 'modern' && this.renegotiate(error)) continue;
        // Headers mirrored from a schema we did not know yet: learn the tools, then retry once.
        if (error.code === ErrorCode.HeaderMismatch && method === Method.ToolsCall && transport.kind === 'http' && !this.toolHeaders.has(String(params.name))) {
          await this.listAllTools({ signal: options.signal });
          continue;
        }
        throw error;
      }
    }
  }

  /**
   * Picks a version from a -32022 error's `supported` list (the latest this
   * client speaks, even the one just sent: the request is then simply retried);
   * false when it lists none this client speaks.
   */
  private renegotiate(error: McpError): boolean {
    const supported = isObject(error.data) && Array.isArray(error.data.supported) ? (error.data.supported as unknown[]) : [];
    const choice = MODERN_PROTOCOL_VERSIONS.find((v) => supported.includes(v));
    if (!choice) return false;
    this.version = choice;
    return true;
  }

  private async send(transport: ClientTransport, method: string, params: Record<string, unknown>, options: RequestOptions): Promise<Record<string, unknown>> {
    const token = options.onProgress ? `p${this.nextToken++}` : undefined;
    const meta = this.meta(options, token, params._meta);
    const message: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: this.nextId++,
      method,
      params: meta === undefined ? { ...params } : { ...params, _meta: meta },
    };
    const response = await transport.request(message, {
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? this.options.requestTimeoutMs ?? 60_000,
      // 2025-era requests carry the session's headers only (the transport adds them).
      headers: transport.kind === 'http' && this.currentEra === 'modern' ? this.headers(method, message.params!) : undefined,
      onNotification: (note) => this.notified(note, options, token),
    });
    if ('error' in response) {
      const e = response.error;
      throw new McpError(typeof e?.code === 'number' ? e.code : ErrorCode.InternalError, String(e?.message ?? 'Unknown error'), e?.data);
    }
    const result = response.result;
    if (!isObject(result)) throw new ProtocolViolationError(`The server answered ${method} without a result object`, response);
    const resultMeta = result._meta;
    if (isObject(resultMeta) && isObject(resultMeta[META_SERVER_INFO])) this.serverInfo = resultMeta[META_SERVER_INFO] as unknown as Implementation;
    return result;
  }

  private notified(note: JsonRpcNotification, options: RequestOptions, token: string | undefined): void {
    const params = note.params ?? {};
    if (note.method === Notification.Progress && token !== undefined && params.progressToken === token) {
      options.onProgress?.(params as { progress: number; total?: number; message?: string });
    } else if (note.method === Notification.Message) {
      this.options.onLog?.(params as { level: LoggingLevel; data: unknown });
    }
  }

  /* ---------------- input rounds ---------------- */

  /** Sends a request that may need input and returns its first step (manual mode). */
  async begin<M extends string>(method: M, params: Record<string, unknown>, options: RequestOptions = {}): Promise<Step<ResultOf<M>>> {
    return this.step(method, params, 1, this.request(method, params, options));
  }

  /**
   * Retries a pending request with answers (manual mode): a new request id, the
   * same method and params, `inputResponses` and the exact `requestState`.
   */
  async resume<R = Record<string, unknown>>(pending: PendingRound, inputResponses: InputResponses, options: RequestOptions = {}): Promise<Step<R>> {
    const params: Record<string, unknown> = { ...pending.params };
    if (Object.keys(inputResponses).length > 0 || Object.keys(pending.inputRequests).length > 0) params.inputResponses = inputResponses;
    if (pending.hasRequestState) params.requestState = pending.requestState;
    return this.step(pending.method, pending.params, pending.round + 1, this.request(pending.method, params, options)) as Promise<Step<R>>;
  }

  private async step<R>(method: string, params: Record<string, unknown>, round: number, sent: Promise<Record<string, unknown>>): Promise<Step<R>> {
    const read = readResult(method, await sent, this.capabilities);
    if (read.kind === 'complete') return { status: 'complete', result: read.result as R };
    const json = { v: 1 as const, method, params: { ...params }, round, server: this.serverInfo } as ConstructorParameters<typeof PendingRound>[0];
    delete json.params._meta;
    if (read.result.inputRequests) json.inputRequests = read.result.inputRequests;
    if ('requestState' in read.result) json.requestState = read.result.requestState;
    return { status: 'input_required', pending: new PendingRound(json) };
  }

  /** Answers every input request of a pending round through the registered handlers, one after another. */
  async answer(pending: PendingRound, signal: AbortSignal = new AbortController().signal): Promise<InputResponses> {
    const answers: InputResponses = {};
    for (const [key, request] of Object.entries(pending.inputRequests)) {
      signal.throwIfAborted();
      const context: InputContext = { key, method: pending.method, params: pending.params, round: pending.round, era: 'modern', server: pending.server, signal };
      answers[key] = await this.answerOne(request, context);
    }
    return answers;
  }

  private async answerOne(request: InputRequest, context: InputContext): Promise<InputResponses[string]> {
    switch (request.method) {
      case 'elicitation/create': {
        const params = request.params;
        if (params.mode === 'url') return this.options.elicitation!.url!(params, context);
        return this.options.elicitation!.form!({ ...params, mode: 'form' }, context);
      }
      case 'sampling/createMessage':
        return samplingHandlerOf(this.options)!(request.params, context);
      case 'roots/list': {
        const roots = this.options.roots!;
        return { roots: typeof roots === 'function' ? await roots(context) : roots };
      }
    }
  }

  /**
   * Sends a request and runs its input rounds to the end: answers each round
   * through the handlers and retries, bounded by `maxRounds` and `flowTimeoutMs`.
   */
  async run<M extends string>(method: M, params: Record<string, unknown>, options: RequestOptions = {}): Promise<ResultOf<M>> {
    const started = Date.now();
    let step: Step<ResultOf<M>> = await this.begin(method, params, options);
    if (step.status === 'complete') return step.result;
    // Input rounds follow: from here the whole flow, answers included, runs against one deadline.
    const flowMs = this.options.flowTimeoutMs ?? 15 * 60_000;
    const flow = new AbortController();
    const timer = setTimeout(() => flow.abort(), Math.max(0, flowMs - (Date.now() - started)));
    const signal = options.signal ? AbortSignal.any([options.signal, flow.signal]) : flow.signal;
    const perRequest = { ...options, signal };
    const maxRounds = this.options.maxRounds ?? 10;
    try {
      while (step.status === 'input_required') {
        const pending: PendingRound = step.pending;
        if (pending.round > maxRounds) {
          throw new InputFlowError(`${method} still needed input after ${maxRounds} rounds; giving up`, pending.round - 1);
        }
        if ((await this.options.onRound?.({ method, params: pending.params, round: pending.round, pending })) === false) {
          throw new InputFlowError(`${method} was stopped by onRound at round ${pending.round}`, pending.round);
        }
        const answers = await this.answer(pending, signal);
        step = await this.resume<ResultOf<M>>(pending, answers, perRequest);
      }
      return step.result;
    } catch (error) {
      if (flow.signal.aborted && !options.signal?.aborted && !(error instanceof McpError)) {
        throw new RequestTimeoutError(`${method} did not finish within ${flowMs} ms`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /* ---------------- the methods ---------------- */

  /** `server/discover`; on a 2025-era server, the same facts from its initialize result. */
  async discover(options?: RequestOptions): Promise<Record<string, unknown>> {
    if (this.currentEra === 'legacy' && this.initialized) {
      const { protocolVersion, capabilities, instructions } = this.initialized;
      return { supportedVersions: [protocolVersion], capabilities, ...(instructions === undefined ? {} : { instructions }) };
    }
    return this.request(Method.Discover, {}, options);
  }

  /** One page of tools. Tools whose `x-mcp-header` annotations are invalid are left out (with a warning) over HTTP. */
  async listTools(cursor?: string, options?: RequestOptions): Promise<{ tools: Tool[]; nextCursor?: string }> {
    const result = await this.request(Method.ToolsList, cursor === undefined ? {} : { cursor }, options);
    const tools: Tool[] = [];
    for (const tool of (Array.isArray(result.tools) ? result.tools : []) as Tool[]) {
      const { params, problems } = collectHeaderParams(isObject(tool.inputSchema) ? tool.inputSchema : {});
      if (problems.length > 0 && this.transport?.kind === 'http') {
        (this.options.warn ?? ((m: string) => console.warn(`[tessera] ${m}`)))(`Leaving out tool "${tool.name}": ${problems.join('; ')}`);
        this.toolHeaders.delete(tool.name);
        continue;
      }
      this.toolHeaders.set(tool.name, params);
      tools.push(tool);
    }
    return typeof result.nextCursor === 'string' ? { tools, nextCursor: result.nextCursor } : { tools };
  }

  async listAllTools(options?: RequestOptions): Promise<Tool[]> {
    return this.collect((cursor) => this.listTools(cursor, options).then((p) => [p.tools, p.nextCursor]));
  }

  /** Calls a tool, answering any input rounds through the registered handlers. */
  callTool(name: string, args: Record<string, unknown> = {}, options?: RequestOptions): Promise<CallToolResult> {
    return this.run(Method.ToolsCall, { name, arguments: args }, options);
  }

  async listResources(cursor?: string, options?: RequestOptions): Promise<{ resources: Resource[]; nextCursor?: string }> {
    return (await this.request(Method.ResourcesList, cursor === undefined ? {} : { cursor }, options)) as unknown as {
      resources: Resource[];
      nextCursor?: string;
    };
  }

  async listAllResources(options?: RequestOptions): Promise<Resource[]> {
    return this.collect((cursor) => this.listResources(cursor, options).then((p) => [p.resources, p.nextCursor]));
  }

  async listResourceTemplates(cursor?: string, options?: RequestOptions): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }> {
    return (await this.request(Method.ResourceTemplatesList, cursor === undefined ? {} : { cursor }, options)) as unknown as {
      resourceTemplates: ResourceTemplate[];
      nextCursor?: string;
    };
  }

  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.run(Method.ResourcesRead, { uri }, options);
  }

  async listPrompts(cursor?: string, options?: RequestOptions): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    return (await this.request(Method.PromptsList, cursor === undefined ? {} : { cursor }, options)) as unknown as {
      prompts: Prompt[];
      nextCursor?: string;
    };
  }

  async listAllPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.collect((cursor) => this.listPrompts(cursor, options).then((p) => [p.prompts, p.nextCursor]));
  }

  getPrompt(name: string, args: Record<string, string> = {}, options?: RequestOptions): Promise<GetPromptResult> {
    return this.run(Method.PromptsGet, { name, arguments: args }, options);
  }

  async complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<CompleteResult['completion']> {
    const result = await this.request(Method.Complete, context ? { ref, argument, context } : { ref, argument }, options);
    return (result as unknown as CompleteResult).completion;
  }

  /**
   * Opens a `subscriptions/listen` stream. `onNotification` receives the change
   * notifications (not the acknowledgement). Close it with `close()`.
   */
  listen(filter: SubscriptionFilter, onNotification: (notification: JsonRpcNotification) => void, options: { signal?: AbortSignal } = {}): Subscription {
    const controller = new AbortController();
    if (options.signal) options.signal.addEventListener('abort', () => controller.abort(), { once: true });
    let acknowledge!: (filter: SubscriptionFilter) => void;
    let refuse!: (error: unknown) => void;
    const acknowledged = new Promise<SubscriptionFilter>((resolve, reject) => {
      acknowledge = resolve;
      refuse = reject;
    });
    acknowledged.catch(() => undefined);
    const transport = this.transport;
    if (!transport) throw new ClientError('Not connected: call connect() first');
    if (this.currentEra === 'legacy') {
      throw new ClientError('subscriptions/listen is 2026-07-28; this server speaks 2025-11-25 (use request("resources/subscribe", { uri }))');
    }
    const params = { notifications: filter };
    const message: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: this.nextId++,
      method: Method.SubscriptionsListen,
      params: { ...params, _meta: this.meta({}, undefined, undefined) },
    };
    const closed = transport
      .request(message, {
        signal: controller.signal,
        headers: transport.kind === 'http' ? this.headers(Method.SubscriptionsListen, message.params!) : undefined,
        onNotification: (note) => {
          if (note.method === Notification.SubscriptionsAcknowledged) acknowledge((note.params?.notifications ?? {}) as SubscriptionFilter);
          else onNotification(note);
        },
      })
      .then((response) => {
        if ('error' in response) {
          const error = new McpError(response.error.code, response.error.message, response.error.data);
          refuse(error);
          throw error;
        }
        readResult(Method.SubscriptionsListen, isObject(response.result) ? response.result : {}, this.capabilities);
        refuse(new ClientError('The subscription ended before it was acknowledged'));
      })
      .catch((error: unknown) => {
        refuse(error);
        if (controller.signal.aborted) return;
        throw error;
      });
    return { acknowledged, closed, close: () => controller.abort() };
  }

  private async collect<T>(page: (cursor: string | undefined) => Promise<[T[], string | undefined]>): Promise<T[]> {
    const all: T[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10_000; pages++) {
      const [items, next] = await page(cursor);
      all.push(...items);
      if (next === undefined) return all;
      cursor = next;
    }
    throw new ProtocolViolationError('The server kept returning pages (10,000 and counting)');
  }
}
