/**
 * `openApp`: a tool's app in the host page. Reads the app's page from the
 * server through the host's Client, frames it through the sandbox proxy under
 * the CSP its resource declares (app-frame.ts), and speaks the host half of
 * the protocol (app-session.ts): the app's tool calls go through the same
 * Client, so a tool that asks (MRTR) is answered by the Client's input
 * handlers — the host's own UI.
 */

import type { Client, RequestOptions } from '../../client/client.js';
import type { CallToolResult, Implementation, Tool } from '../../protocol/types.js';
import { appContentSecurityPolicy } from '../csp.js';
import { appUriOf } from '../ui-meta.js';
import { AppFrame } from './app-frame.js';
import { readAppPage } from './app-resource.js';
import { AppSession, type AppHandlers, type HostContext, type ServerAccess } from './app-session.js';

export interface OpenAppOptions extends AppHandlers {
  /** The host's client, connected to the server the tool is from. */
  client: Client;
  /** The tool whose app to open (it links one in `_meta.ui.resourceUri`). */
  tool: Tool;
  /** Where the app's frame goes. */
  container: HTMLElement;
  /** The sandbox proxy page (`sandboxProxyHtml()`), served from another origin than the host page. */
  sandbox: string | URL;
  /** Who the host is, as the app is told (default: the client's info). */
  hostInfo?: Implementation;
  /** What the app is told of the host (theme, locale, styles…); `toolInfo`, `platform: 'web'` and `displayMode: 'inline'` are filled in. */
  hostContext?: HostContext;
  /** The server's tools as the host listed them (the app's calls are checked against their visibility); listed when first needed otherwise. */
  tools?: readonly Tool[];
  /** The tallest the frame grows with its content, in CSS pixels (default: no limit). */
  maxHeight?: number;
  /** How long to wait for the sandbox proxy page, in ms (default 10 s). */
  loadTimeoutMs?: number;
  /** How long `close` waits for the app to answer `ui/resource-teardown`, in ms (default 3 s). */
  teardownTimeoutMs?: number;
}

/** An app open in the host page. */
export interface AppView {
  readonly tool: Tool;
  /** The app's `ui://` URI. */
  readonly uri: string;
  /** The Content-Security-Policy the app runs under (log it: SEP-1865 asks hosts to keep an audit trail). */
  readonly policy: string;
  /** The sandbox proxy's frame in the host page (the app's page is inside it). */
  readonly iframe: HTMLIFrameElement;
  /** Resolves once the app has initialized; what is sent before waits for it. */
  readonly initialized: Promise<void>;
  /** Calls the tool with `args` through the client and shows the app its input, then its result (or that it was cancelled). */
  callTool(args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult>;
  /** `ui/notifications/tool-input`: the complete arguments of the call the app shows. */
  sendToolInput(args: Record<string, unknown>): void;
  /** `ui/notifications/tool-input-partial`: the arguments so far, while they stream. */
  sendToolInputPartial(args: Record<string, unknown>): void;
  /** `ui/notifications/tool-result`: the call's result. */
  sendToolResult(result: CallToolResult): void;
  /** `ui/notifications/tool-cancelled`: the call will have no result. */
  sendToolCancelled(reason: string): void;
  /** Tells the app what changed of the host (`ui/notifications/host-context-changed`). */
  setHostContext(changes: HostContext): void;
  /** Tears the app down: asks it to finish (waiting a bounded time), aborts its calls, removes its frame. Once. */
  close(reason?: string): Promise<void>;
}

class OpenApp implements AppView {
  private closing: Promise<void> | undefined;

  constructor(
    readonly tool: Tool,
    readonly uri: string,
    readonly policy: string,
    private readonly client: Client,
    private readonly session: AppSession,
    private readonly frame: AppFrame,
    private readonly teardownTimeoutMs: number,
  ) {}

  get iframe(): HTMLIFrameElement {
    return this.frame.iframe;
  }

  get initialized(): Promise<void> {
    return this.session.initialized;
  }

  async callTool(args: Record<string, unknown> = {}, options?: RequestOptions): Promise<CallToolResult> {
    this.session.sendToolInput(args);
    try {
      const result = await this.client.callTool(this.tool.name, args, options);
      this.session.sendToolResult(result);
      return result;
    } catch (error) {
      this.session.sendToolCancelled(error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  sendToolInput(args: Record<string, unknown>): void {
    this.session.sendToolInput(args);
  }

  sendToolInputPartial(args: Record<string, unknown>): void {
    this.session.sendToolInputPartial(args);
  }

  sendToolResult(result: CallToolResult): void {
    this.session.sendToolResult(result);
  }

  sendToolCancelled(reason: string): void {
    this.session.sendToolCancelled(reason);
  }

  setHostContext(changes: HostContext): void {
    this.session.setHostContext(changes);
  }

  close(reason = 'closed by the host'): Promise<void> {
    this.closing ??= this.session.teardown(reason, this.teardownTimeoutMs).finally(() => this.frame.remove());
    return this.closing;
  }
}

/** Opens the app a tool links, in `container`; resolves once its page is handed to the sandbox. */
export async function openApp(options: OpenAppOptions): Promise<AppView> {
  const { client, tool } = options;
  const uri = appUriOf(tool);
  if (!uri) throw new TypeError(`Tool ${tool.name} links no app (_meta.ui.resourceUri)`);
  const sandbox = new URL(options.sandbox, location.href);
  if (sandbox.origin === location.origin) throw new TypeError(`The sandbox proxy (${sandbox.href}) must be on another origin than the host page`);
  const page = await readAppPage(client, uri);
  const { policy, approved, refused } = appContentSecurityPolicy(page.ui.csp);
  if (refused.length > 0) options.warn?.(`${uri}: CSP entries refused (${refused.join(', ')})`);

  let tools = options.tools;
  const server: ServerAccess = {
    tools: async (refresh) => (tools = !tools || refresh ? await client.listAllTools() : tools),
    callTool: (name, args, signal) => client.callTool(name, args, { signal }),
    readResource: (resource, signal) => client.readResource(resource, { signal }),
  };
  const width = options.container.clientWidth;
  const hostContext: HostContext = {
    platform: 'web',
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    containerDimensions: { ...(width > 0 ? { width } : {}), ...(options.maxHeight !== undefined ? { maxHeight: options.maxHeight } : {}) },
    ...options.hostContext,
  };
  let view: AppView | undefined;
  let frame: AppFrame | undefined;
  const session = new AppSession({
    ...options,
    tool,
    hostInfo: options.hostInfo ?? client.info,
    hostContext,
    csp: approved,
    server,
    post: (message) => frame?.post(message),
    onSizeChanged: (size) => {
      frame?.resize(size);
      options.onSizeChanged?.(size);
    },
    onRequestTeardown: options.onRequestTeardown ?? (() => void view?.close('the app asked to close')),
  });
  frame = new AppFrame({ container: options.container, sandbox, receive: (data) => session.receive(data), maxHeight: options.maxHeight });
  view = new OpenApp(tool, uri, policy, client, session, frame, options.teardownTimeoutMs ?? 3000);
  try {
    await frame.load({ html: page.html, csp: approved, prefersBorder: page.ui.prefersBorder }, options.loadTimeoutMs ?? 10_000);
  } catch (error) {
    session.end();
    frame.remove();
    throw error;
  }
  return view;
}
