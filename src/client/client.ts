/**
 * The MCP client: connects over Streamable HTTP, stdio or any transport,
 * settles the server's era (era.ts), sends requests with their envelope
 * (envelope.ts, requester.ts), runs multi round-trip flows through the
 * registered input handlers (input-loop.ts), follows tasks to their results
 * (task-flow.ts; 2025-11-25 tasks: session-task-calls.ts), and listens for
 * changes (listen.ts; 2025-11-25: session-subscriptions.ts). 2025-11-25
 * servers are served by the same handlers (and may withdraw what they asked:
 * server-requests.ts); a 2026-07-28 server's own requests are never answered
 * (they are reported through `warn`).
 */

import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import { TASKS_EXTENSION } from '../protocol/meta.js';
import { Method, Notification, TaskMethod } from '../protocol/methods.js';
import type {
  CallerParams,
  ClientMethod,
  CreateTaskResult,
  DetailedTask,
  DiscoverResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ResultByMethod,
  TaskInfo,
} from '../protocol/method-types.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Implementation,
  InputResponses,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  Result,
  SubscriptionFilter,
  Tool,
} from '../protocol/types.js';
import type { HttpAuthProvider } from '../auth/client/auth-provider.js';
import type { TelemetryOptions } from '../telemetry/telemetry-options.js';
import { settleEra, type Era } from './era.js';
import { ProtocolViolationError, TransportError } from './errors.js';
import { capabilitiesFor, type InputHandlers } from './handlers.js';
import { HttpClientTransport, type HttpClientTransportOptions } from './http-transport.js';
import type { BusyRetryOptions } from './retry-after.js';
import { InputLoop, type RoundInfo, type Step } from './input-loop.js';
import { listen, type Subscription } from './listen.js';
import type { PendingRound } from './pending-round.js';
import { Requester, type RequestOptions } from './requester.js';
import { ServerRequests } from './server-requests.js';
import { SessionSubscriptions } from './session-subscriptions.js';
import { SessionTaskCalls } from './session-task-calls.js';
import { TaskFlow, type ClientTaskOptions } from './task-flow.js';
import type { TaskObserver, TaskUpdate } from './task-observer.js';
import type { ClientTransport } from './transport.js';

export type { BusyRetryOptions, ClientTaskOptions, Era, RequestOptions, RoundInfo, Step, Subscription, TaskObserver, TaskUpdate };

export interface ClientOptions extends InputHandlers {
  /** Capabilities to declare beyond those implied by the handlers (e.g. extensions). */
  capabilities?: ClientCapabilities;
  /** The protocol version to speak first (default: the latest). */
  protocolVersion?: string;
  /** Ask servers for log messages at this level on every request (2025-11-25 servers: with logging/setLevel; deprecated feature). */
  logLevel?: LoggingLevel;
  /** Log messages from the server. */
  onLog?: (message: { level: LoggingLevel; logger?: string; data: unknown }) => void;
  /** Most input rounds one call may take (default 10). */
  maxRounds?: number;
  /** Longest a whole multi-round call may take, answers included, in ms (default 15 minutes). */
  flowTimeoutMs?: number;
  /** Longest one request may take, in ms, every attempt and recovery included (default 60 s). */
  requestTimeoutMs?: number;
  /**
   * The largest reply the client reads over HTTP, in bytes (default 16 MiB):
   * a JSON body (after decompression), one SSE line or event. Past it the
   * request fails with a ResponseTooLargeError. (stdio: lines over 16 MiB are dropped.)
   */
  maxResponseBytes?: number;
  /**
   * HTTP: a request answered 503 or 429 with `Retry-After` (the server ran
   * nothing: Redis failing over, a limit) is sent again after that wait, at
   * most `maxAttempts` times in all (5) and `maxTotalWaitMs` of waiting (30 s),
   * never past the request's time limit; then a ServerBusyError. `false`:
   * never. connect()'s own `busyRetry` wins.
   */
  busyRetry?: BusyRetryOptions | false;
  /** Tasks (the `io.modelcontextprotocol/tasks` extension): whether to declare it, and the bounds of following a task. */
  tasks?: ClientTaskOptions;
  /** Hears of each task's status changes (creation, status, status message); returning false cancels it. */
  onTask?: TaskObserver;
  /** Watches each input round; returning false stops the flow with an InputFlowError. */
  onRound?: (round: RoundInfo) => void | boolean | Promise<void | boolean>;
  /** Where the client reports what it skipped or refused (tools with invalid x-mcp-header annotations, requests a 2026-07-28 server may not send). */
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
  /**
   * OpenTelemetry spans and metrics, and W3C trace context in each request's
   * `_meta` (docs/observability.md): the global providers by default (a no-op
   * without an SDK), providers of its own, or `false` for none.
   */
  telemetry?: TelemetryOptions | false;
}

/** A URL (Streamable HTTP) or any transport; spawn a stdio server with `StdioClientTransport` from `tessera-mcp/stdio`. */
export type ConnectTarget = ClientTransport | string | URL;

/** A `{ command }` from JavaScript (the type no longer allows it): say where spawning lives. */
function unspawnable(target: object): never {
  const what = 'command' in target ? `the command ${String(target.command)}` : 'this target';
  throw new TypeError(`connect() cannot spawn ${what}: pass new StdioClientTransport({ command, args }) from 'tessera-mcp/stdio'`);
}

/** What a method that may ask for input completes with. */
export type CompleteOf<M extends ClientMethod> = Exclude<ResultByMethod[M], { resultType: 'input_required' } | { resultType: 'task' }>;

/** The capabilities the client declares: its handlers', the caller's, and the Tasks extension unless turned off. */
function declaredCapabilities(options: ClientOptions): ClientCapabilities {
  const capabilities = capabilitiesFor(options, options.capabilities);
  if (options.tasks?.declare === false) return capabilities;
  return { ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION]: {} } };
}

export class Client {
  readonly info: Implementation;
  readonly capabilities: ClientCapabilities;
  private readonly options: ClientOptions;
  private readonly requester: Requester;
  private readonly loop: InputLoop;
  private readonly tasks: TaskFlow;
  /** 2025-11-25: the server's requests being answered, resources followed, tools called as tasks. */
  private readonly serverRequests = new ServerRequests();
  private readonly subscriptions: SessionSubscriptions;
  private readonly sessionTasks: SessionTaskCalls;
  /** The initialize result, on a 2025-era server. */
  private initialized: Result | undefined;

  constructor(info: Implementation, options: ClientOptions = {}) {
    this.info = info;
    this.options = options;
    this.capabilities = declaredCapabilities(options);
    this.requester = new Requester(info, this.capabilities, options, (requestOptions) => this.listAllTools(requestOptions));
    this.tasks = new TaskFlow(this.requester, options, options);
    this.loop = new InputLoop(this.requester, options, options, this.tasks);
    this.subscriptions = new SessionSubscriptions(this.requester);
    this.sessionTasks = new SessionTaskCalls(this.requester, options, (requestOptions) => this.listAllTools(requestOptions));
    this.requester.overheard = (note) => this.overheard(note);
  }

  private warn(message: string): void {
    (this.options.warn ?? ((m: string) => console.warn(`[tessera] ${m}`)))(message);
  }

  /** The protocol version in use (after negotiation). */
  get protocolVersion(): string {
    return this.requester.version;
  }

  /** The server's self-reported identity, from the last result that carried it. */
  get server(): Implementation | undefined {
    return this.requester.serverInfo;
  }

  /** The era the connected server speaks. */
  get era(): Era {
    return this.requester.era;
  }

  /**
   * Connects to a URL (Streamable HTTP) or any transport (e.g.
   * `new StdioClientTransport({ command, args })` from `tessera-mcp/stdio`),
   * and settles the era (see `ClientOptions.era`). The client itself spawns
   * nothing, so it runs in browsers and Workers.
   */
  async connect(target: ConnectTarget, httpOptions?: HttpClientTransportOptions): Promise<this> {
    const auth = httpOptions?.auth ?? this.options.auth;
    const maxResponseBytes = httpOptions?.maxResponseBytes ?? this.options.maxResponseBytes;
    const busyRetry = httpOptions?.busyRetry ?? this.options.busyRetry;
    const transport =
      typeof target === 'string' || target instanceof URL
        ? new HttpClientTransport(target, {
            ...httpOptions,
            ...(auth ? { auth } : {}),
            ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
            ...(busyRetry === undefined ? {} : { busyRetry }),
          })
        : 'request' in target
          ? target
          : unspawnable(target);
    this.requester.transport = transport;
    transport.onUnrouted?.((note) => this.overheard(note));
    transport.onServerRequest?.((request) => this.serverRequest(request));
    this.initialized = await settleEra(this.requester, this.options);
    return this;
  }

  /**
   * A request from the server: a 2025-era server's is answered through the
   * handlers; a 2026-07-28 server may send none (the client MUST NOT
   * respond), so it is reported and dropped, and no handler ever sees it.
   */
  private async serverRequest(request: JsonRpcRequest): Promise<JsonRpcResponse | undefined> {
    if (this.requester.era === 'legacy') return this.serverRequests.answer(request, this.options, this.requester.serverInfo);
    this.warn(`The server sent a ${request.method} request, which 2026-07-28 servers may not send; it was not answered`);
    return undefined;
  }

  async close(): Promise<void> {
    this.subscriptions.endAll();
    this.serverRequests.abandonAll(new TransportError('The client closed the connection'));
    await this.requester.transport?.close();
    this.requester.transport = undefined;
  }

  /**
   * A notification that is not a request's progress: a log message (any
   * era), or from a 2025-era server the withdrawal of one of its requests
   * or a change for the listeners (2026-07-28 changes come on listen streams).
   */
  private overheard(note: JsonRpcNotification): void {
    if (note.method === Notification.Message) this.options.onLog?.(note.params as { level: LoggingLevel; data: unknown });
    else if (this.requester.era !== 'legacy') return;
    else if (note.method === Notification.Cancelled) this.serverRequests.cancel(note.params);
    else this.subscriptions.deliver(note);
  }

  /**
   * Sends one request and returns its result (whatever its resultType).
   * JSON-RPC errors throw McpError with the server's code and data.
   */
  request<M extends ClientMethod>(method: M, params?: CallerParams<M>, options?: RequestOptions): Promise<ResultByMethod[M]>;
  /** A method the schema does not have (an extension's): its params are not typed here. */
  request<M extends string>(method: M & (M extends ClientMethod ? never : unknown), params?: Record<string, unknown>, options?: RequestOptions): Promise<Result>;
  request(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Result> {
    return this.requester.request(method, params, options);
  }

  /* ---------------- input rounds ---------------- */

  /** Sends a request that may need input and returns its first step (manual mode). */
  begin<M extends ClientMethod>(method: M, params: CallerParams<M>, options?: RequestOptions): Promise<Step<CompleteOf<M>>>;
  begin<R extends Result = Result>(method: string, params: Record<string, unknown>, options?: RequestOptions): Promise<Step<R>>;
  begin(method: string, params: Record<string, unknown>, options: RequestOptions = {}): Promise<Step<Result>> {
    return this.loop.begin(method, params, options);
  }

  /**
   * Retries a pending request with answers (manual mode): a new request id, the
   * same method and params, `inputResponses` and the exact `requestState`.
   */
  resume<R extends Result = Result>(pending: PendingRound, inputResponses: InputResponses, options: RequestOptions = {}): Promise<Step<R>> {
    return this.loop.resume<R>(pending, inputResponses, options);
  }

  /** Answers every input request of a pending round through the registered handlers, one after another. */
  answer(pending: PendingRound, signal?: AbortSignal): Promise<InputResponses> {
    return this.loop.answer(pending, signal);
  }

  /**
   * Sends a request and runs its input rounds to the end: answers each round
   * through the handlers and retries, bounded by `maxRounds` and `flowTimeoutMs`.
   */
  run<M extends ClientMethod>(method: M, params: CallerParams<M>, options?: RequestOptions): Promise<CompleteOf<M>>;
  run<R extends Result = Result>(method: string, params: Record<string, unknown>, options?: RequestOptions): Promise<R>;
  run(method: string, params: Record<string, unknown>, options: RequestOptions = {}): Promise<Result> {
    return this.loop.run(method, params, options);
  }

  /* ---------------- the methods ---------------- */

  /** `server/discover`; on a 2025-era server, the same facts from its initialize result. */
  async discover(options?: RequestOptions): Promise<DiscoverResult | Result> {
    if (this.requester.era === 'legacy' && this.initialized) {
      const { protocolVersion, capabilities, instructions } = this.initialized;
      return { supportedVersions: [protocolVersion], capabilities, ...(instructions === undefined ? {} : { instructions }) };
    }
    return this.request(Method.Discover, {}, options);
  }

  /** One page of tools. Tools whose `x-mcp-header` annotations are invalid are left out (with a warning) over HTTP. */
  async listTools(cursor?: string, options?: RequestOptions): Promise<{ tools: Tool[]; nextCursor?: string }> {
    const result = await this.request(Method.ToolsList, cursor === undefined ? {} : { cursor }, options);
    const tools: Tool[] = [];
    const overHttp = this.requester.transport?.kind === 'http';
    for (const tool of Array.isArray(result.tools) ? result.tools : []) {
      if (this.requester.era === 'legacy') this.sessionTasks.learn(tool);
      const problems = this.requester.envelope.learnTool(tool);
      if (problems.length > 0 && overHttp) {
        this.warn(`Leaving out tool "${tool.name}": ${problems.join('; ')}`);
        continue;
      }
      tools.push(tool);
    }
    return typeof result.nextCursor === 'string' ? { tools, nextCursor: result.nextCursor } : { tools };
  }

  async listAllTools(options?: RequestOptions): Promise<Tool[]> {
    return collect((cursor) => this.listTools(cursor, options).then((p) => [p.tools, p.nextCursor]));
  }

  /**
   * Calls a tool, answering any input rounds through the registered handlers.
   * When the server answers with a task, follows it to the end (answering its
   * questions the same way) and returns the tool's result; the signal cancels it.
   * On a 2025-11-25 server, a tool whose `execution.taskSupport` is
   * "required" or "optional" is called as a task (that era's experimental
   * tasks) and followed the same way.
   */
  async callTool(name: string, args: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<CallToolResult> {
    if (this.requester.era === 'legacy' && (await this.sessionTasks.wanted(name, options))) return this.sessionTasks.call(name, args, options);
    return this.run(Method.ToolsCall, { name, arguments: args }, options);
  }

  /* ---------------- tasks, by hand (e.g. kept across processes) ---------------- */

  /** `tasks/get`: the task as the server reports it now (its questions, result or error by status). */
  getTask(taskId: string, options?: RequestOptions): Promise<DetailedTask> {
    return this.tasks.get(taskId, options);
  }

  /** `tasks/update`: answers to the questions a task asked (keys as in its `inputRequests`). */
  async updateTask(taskId: string, inputResponses: InputResponses, options?: RequestOptions): Promise<void> {
    await this.request(TaskMethod.Update, { taskId, inputResponses }, options);
  }

  /** `tasks/cancel`: asks the server to stop the task (cooperative; the task may still finish). */
  async cancelTask(taskId: string, options?: RequestOptions): Promise<void> {
    await this.request(TaskMethod.Cancel, { taskId }, options);
  }

  /**
   * Follows a task to its end, as `callTool` does after a task is created:
   * a `CreateTaskResult` (from `begin`) or a task id kept from earlier, even
   * from another process. Returns the task's result; answers its questions
   * through the handlers; the signal cancels it.
   */
  waitForTask<R extends Result = CallToolResult>(task: string | CreateTaskResult | TaskInfo, options?: RequestOptions): Promise<R> {
    return this.tasks.follow<R>(task, { method: Method.ToolsCall, params: {} }, options);
  }

  listResources(cursor?: string, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.request(Method.ResourcesList, cursor === undefined ? {} : { cursor }, options);
  }

  async listAllResources(options?: RequestOptions): Promise<Resource[]> {
    return collect((cursor) => this.listResources(cursor, options).then((p) => [p.resources, p.nextCursor]));
  }

  listResourceTemplates(cursor?: string, options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return this.request(Method.ResourceTemplatesList, cursor === undefined ? {} : { cursor }, options);
  }

  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.run(Method.ResourcesRead, { uri }, options);
  }

  listPrompts(cursor?: string, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.request(Method.PromptsList, cursor === undefined ? {} : { cursor }, options);
  }

  async listAllPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return collect((cursor) => this.listPrompts(cursor, options).then((p) => [p.prompts, p.nextCursor]));
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
    return result.completion;
  }

  /**
   * Follows changes: list changes and updates of the resources named in the
   * filter. `onNotification` receives the change notifications (not the
   * acknowledgement); `acknowledged` says what the server agreed to. Close it
   * with `close()`. At 2026-07-28 this is a `subscriptions/listen` stream; a
   * 2025-11-25 server sends list changes unasked (those its capabilities
   * declare) and is sent `resources/subscribe` for each resource
   * (`resources/unsubscribe` when the last listener of it closes).
   */
  listen(filter: SubscriptionFilter, onNotification: (notification: JsonRpcNotification) => void, options: { signal?: AbortSignal } = {}): Subscription {
    if (this.requester.era === 'legacy') return this.subscriptions.listen(filter, onNotification, options);
    return listen(this.requester, filter, onNotification, options);
  }
}

async function collect<T>(page: (cursor: string | undefined) => Promise<[T[], string | undefined]>): Promise<T[]> {
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
