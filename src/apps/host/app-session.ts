/**
 * The host half of the app protocol (SEP-1865) for one app: JSON-RPC messages
 * to and from the app's page, whatever carries them (app-frame.ts posts them
 * through the sandbox proxy). It answers `ui/initialize`, holds everything for
 * the app until `ui/notifications/initialized`, proxies the app's `tools/call`
 * and `resources/read` to the server (a tool whose visibility leaves out
 * `app` is refused), passes the app's requests to the host's handlers, and
 * tears the app down with `ui/resource-teardown`.
 */

import { McpError, ErrorCode } from '../../protocol/errors.js';
import { isObject } from '../../protocol/guards.js';
import { classifyMessage, errorResponse, notification, resultResponse, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse } from '../../protocol/jsonrpc.js';
import type { CallToolResult, Implementation, ReadResourceResult, RequestId, Result, Tool } from '../../protocol/types.js';
import type { AppCsp } from '../ui-meta.js';
import { APPS_PROTOCOL_VERSION, visibilityOf } from '../ui-meta.js';

/** What the app may reach of the server, through the host (open-app.ts makes it from the Client). */
export interface ServerAccess {
  /** The server's tools, as listed (visibility is read from them); `refresh` asks the server again. */
  tools(refresh: boolean): Promise<readonly Tool[]>;
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
  readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult>;
}

/** What the host tells the app about where it runs (`hostContext` of SEP-1865; `toolInfo` is filled in). */
export interface HostContext {
  theme?: 'light' | 'dark';
  styles?: { variables?: Record<string, string | undefined>; css?: { fonts?: string } };
  displayMode?: 'inline' | 'fullscreen' | 'pip';
  availableDisplayModes?: string[];
  containerDimensions?: { width?: number; maxWidth?: number; height?: number; maxHeight?: number };
  locale?: string;
  timeZone?: string;
  userAgent?: string;
  platform?: 'web' | 'desktop' | 'mobile';
  deviceCapabilities?: { touch?: boolean; hover?: boolean };
  safeAreaInsets?: { top: number; right: number; bottom: number; left: number };
  [key: string]: unknown;
}

/** A message the app sends to the conversation (`ui/message`) or its context for the model (`ui/update-model-context`). */
export type AppContent = Record<string, unknown>;

/** The host's part: what it does when the app asks. A request without its handler is unknown to the app (-32601). */
export interface AppHandlers {
  /** `ui/open-link`: the URL (http or https only) the app wants opened. */
  openLink?(url: string): void | Promise<void>;
  /** `ui/message`: content the app adds to the conversation. */
  message?(params: AppContent): void | Promise<void>;
  /** `ui/update-model-context`: what the model should know of the app's state from now on. */
  updateModelContext?(params: AppContent): void | Promise<void>;
  /** `notifications/message`: the app's log. */
  onLog?(params: Record<string, unknown>): void;
  /** `ui/notifications/size-changed`: the app's content size, in CSS pixels. */
  onSizeChanged?(size: { width?: number; height?: number }): void;
  /** `ui/notifications/request-teardown`: the app asks to be closed. */
  onRequestTeardown?(): void;
  /** Problems worth a line in the host's console (a malformed message, a refused call). */
  warn?(message: string): void;
}

export interface AppSessionOptions extends AppHandlers {
  tool: Tool;
  hostInfo: Implementation;
  hostContext?: HostContext;
  /** The CSP origins the host applies (reported to the app in `hostCapabilities.sandbox`). */
  csp: AppCsp;
  server: ServerAccess;
  /** Sends one message to the app. */
  post(message: JsonRpcMessage): void;
}

/** Requests the host sends the app (only `ui/resource-teardown`), awaiting the app's answer. */
interface Pending {
  resolve(result: Result): void;
  reject(error: Error): void;
}

/** The methods an app may send that reach the server (SEP-1865 "Standard MCP Messages"). */
const PROXIED = new Set(['tools/call', 'tools/list', 'resources/read']);

export class AppSession {
  /** Resolves when the app has sent `ui/notifications/initialized`. */
  readonly initialized: Promise<void>;
  private markInitialized!: () => void;
  private isInitialized = false;
  /** What the host sent before the app was ready: sent, in order, once it is. */
  private readonly held: JsonRpcMessage[] = [];
  private readonly pending = new Map<RequestId, Pending>();
  private nextId = 1;
  private hostContext: HostContext;
  /** Aborts the server calls the app started when it is torn down. */
  private readonly calls = new AbortController();
  private ended = false;

  constructor(private readonly options: AppSessionOptions) {
    this.initialized = new Promise((resolve) => (this.markInitialized = resolve));
    this.hostContext = { ...options.hostContext, toolInfo: { tool: options.tool } };
  }

  /** One message from the app (already known to come from its page). */
  receive(data: unknown): void {
    if (this.ended) return;
    const incoming = classifyMessage(data);
    switch (incoming.kind) {
      case 'request':
        void this.answer(incoming.message);
        return;
      case 'notification':
        this.hear(incoming.message.method, incoming.message.params ?? {});
        return;
      case 'response':
        this.settle(incoming.message);
        return;
      case 'invalid':
        this.options.warn?.(`The app sent an invalid message: ${incoming.error.message}`);
        if (incoming.id !== undefined) this.options.post(errorResponse(incoming.id, incoming.error));
    }
  }

  /** `ui/notifications/tool-input`: the complete arguments of the call the app shows. */
  sendToolInput(args: Record<string, unknown>): void {
    this.send(notification('ui/notifications/tool-input', { arguments: args }));
  }

  /** `ui/notifications/tool-input-partial`: arguments so far, while they stream. */
  sendToolInputPartial(args: Record<string, unknown>): void {
    this.send(notification('ui/notifications/tool-input-partial', { arguments: args }));
  }

  /** `ui/notifications/tool-result`: the call's result. */
  sendToolResult(result: CallToolResult): void {
    this.send(notification('ui/notifications/tool-result', { ...result }));
  }

  /** `ui/notifications/tool-cancelled`: the call will have no result. */
  sendToolCancelled(reason: string): void {
    this.send(notification('ui/notifications/tool-cancelled', { reason }));
  }

  /** Changes what the app knows of the host (`ui/notifications/host-context-changed` with the changed fields). */
  setHostContext(changes: HostContext): void {
    this.hostContext = { ...this.hostContext, ...changes };
    this.send(notification('ui/notifications/host-context-changed', { ...changes }));
  }

  /**
   * Asks the app to finish (`ui/resource-teardown`) and waits for its answer,
   * at most `timeoutMs`; then stops: the app's server calls are aborted and
   * nothing more is sent or heard. An app that never initialized is not asked.
   */
  async teardown(reason: string, timeoutMs: number): Promise<void> {
    if (this.ended) return;
    try {
      if (this.isInitialized) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
        await Promise.race([this.request('ui/resource-teardown', { reason }).then(() => undefined, () => undefined), late]);
        clearTimeout(timer);
      }
    } finally {
      this.end();
    }
  }

  /** Stops at once: the app's server calls are aborted, requests to it fail, nothing more is sent or heard. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.calls.abort(new Error('The app was torn down'));
    for (const { reject } of this.pending.values()) reject(new Error('The app was torn down'));
    this.pending.clear();
    this.held.length = 0;
  }

  /* ---------------- what the host sends ---------------- */

  private send(message: JsonRpcMessage): void {
    if (this.ended) return;
    // The host must not send the app anything before it says it is initialized.
    if (this.isInitialized) this.options.post(message);
    else this.held.push(message);
  }

  private request(method: string, params: Record<string, unknown>): Promise<Result> {
    const id = `host-${this.nextId++}`;
    return new Promise<Result>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params } satisfies JsonRpcRequest);
    });
  }

  private settle(response: JsonRpcResponse): void {
    const pending = 'id' in response && response.id !== undefined ? this.pending.get(response.id) : undefined;
    if (!pending) return void this.options.warn?.('The app answered a request the host did not send');
    this.pending.delete(response.id!);
    if ('error' in response) pending.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else pending.resolve(response.result);
  }

  /* ---------------- what the app sends ---------------- */

  private hear(method: string, params: Record<string, unknown>): void {
    switch (method) {
      case 'ui/notifications/initialized':
        if (this.isInitialized) return;
        this.isInitialized = true;
        for (const message of this.held.splice(0)) this.options.post(message);
        this.markInitialized();
        return;
      case 'ui/notifications/size-changed': {
        const size: { width?: number; height?: number } = {};
        if (isSize(params.width)) size.width = params.width;
        if (isSize(params.height)) size.height = params.height;
        this.options.onSizeChanged?.(size);
        return;
      }
      case 'ui/notifications/request-teardown':
        this.options.onRequestTeardown?.();
        return;
      case 'notifications/message':
        this.options.onLog?.(params);
        return;
      default:
      // Notifications the host does not know are ignored, as JSON-RPC has it.
    }
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    let reply: JsonRpcResponse;
    try {
      reply = resultResponse(request.id, await this.resultFor(request.method, request.params ?? {}));
    } catch (error) {
      reply = errorResponse(request.id, asAppError(error));
      if (!(error instanceof McpError)) this.options.warn?.(`The app's ${request.method} failed: ${(error as Error).message}`);
    }
    if (!this.ended) this.options.post(reply);
  }

  private async resultFor(method: string, params: Record<string, unknown>): Promise<Result> {
    const { options } = this;
    if (PROXIED.has(method)) return this.proxy(method, params);
    switch (method) {
      case 'ui/initialize':
        return this.initializeResult(params);
      case 'ping':
        return {};
      case 'ui/open-link': {
        if (!options.openLink) break;
        const url = typeof params.url === 'string' ? safeLink(params.url) : undefined;
        if (!url) throw McpError.invalidParams('Invalid params: url must be an http or https URL');
        await options.openLink(url);
        return {};
      }
      case 'ui/message':
        if (!options.message) break;
        await options.message(params);
        return {};
      case 'ui/update-model-context':
        if (!options.updateModelContext) break;
        await options.updateModelContext(params);
        return {};
      case 'ui/request-display-mode':
        // Inline is the one mode this host offers: the answer is the mode the app is in.
        return { mode: this.hostContext.displayMode ?? 'inline' };
    }
    throw McpError.methodNotFound(method);
  }

  private initializeResult(params: Record<string, unknown>): Result {
    if (typeof params.protocolVersion !== 'string') throw McpError.invalidParams('Invalid params: protocolVersion must be a string');
    const { options } = this;
    const hostCapabilities: Record<string, unknown> = {
      serverTools: {},
      serverResources: {},
      logging: {},
      sandbox: { csp: options.csp },
    };
    if (options.openLink) hostCapabilities.openLinks = {};
    if (options.message) hostCapabilities.message = { text: {} };
    if (options.updateModelContext) hostCapabilities.updateModelContext = { text: {}, structuredContent: {} };
    return { protocolVersion: APPS_PROTOCOL_VERSION, hostInfo: options.hostInfo, hostCapabilities, hostContext: this.hostContext };
  }

  /** A request the server answers, through the host's client; tools the app may not use are refused here. */
  private async proxy(method: string, params: Record<string, unknown>): Promise<Result> {
    const { server } = this.options;
    const signal = this.calls.signal;
    if (method === 'resources/read') {
      if (typeof params.uri !== 'string') throw McpError.invalidParams('Invalid params: uri must be a string');
      return server.readResource(params.uri, signal);
    }
    if (method === 'tools/list') return { tools: (await server.tools(false)).filter((t) => visibilityOf(t).includes('app')) };
    const { name } = params;
    const args = params.arguments ?? {};
    if (typeof name !== 'string') throw McpError.invalidParams('Invalid params: name must be a string');
    if (!isObject(args)) throw McpError.invalidParams('Invalid params: arguments must be an object');
    const find = async (refresh: boolean) => (await server.tools(refresh)).find((t) => t.name === name);
    // A tool added since the list was read is looked up once more before it counts as unknown.
    const tool = (await find(false)) ?? (await find(true));
    if (!tool) throw McpError.invalidParams(`Unknown tool: ${name}`);
    if (!visibilityOf(tool).includes('app')) {
      this.options.warn?.(`The app called ${name}, which its visibility keeps from apps`);
      throw McpError.invalidParams(`Tool ${name} is not available to apps`);
    }
    return server.callTool(name, args, signal);
  }
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** The URL when it is http(s), so an app cannot have the host open `javascript:` or a local file. */
function safeLink(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The error the app sees: the server's own (an McpError) as it is, anything else as -32603 with its message. */
function asAppError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  return new McpError(ErrorCode.InternalError, error instanceof Error ? error.message : String(error));
}
