/**
 * The app's place in the host page: an iframe of the sandbox proxy page
 * (another origin; `allow-scripts allow-same-origin` as SEP-1865 asks of the
 * proxy's frame, and `allow-forms` for the app's forms), the proxy's ready signal answered with the app's HTML and
 * CSP, messages to and from the app through it (only from that frame and
 * origin), its height following the app's, and its removal.
 */

import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { AppCsp, AppPermissions } from '../ui-meta.js';

/** What the proxy loads (`ui/notifications/sandbox-resource-ready`). */
export interface FramedApp {
  html: string;
  csp: AppCsp;
  permissions?: AppPermissions;
  prefersBorder?: boolean;
}

export interface AppFrameOptions {
  container: HTMLElement;
  /** The sandbox proxy page's URL (sandbox-proxy.ts), on another origin than the host page. */
  sandbox: URL;
  /** Each message from the app. */
  receive(data: unknown): void;
  /** The tallest the frame grows, in CSS pixels. */
  maxHeight?: number;
}

export class AppFrame {
  readonly iframe: HTMLIFrameElement;
  private readonly origin: string;
  private readonly listener: (event: MessageEvent) => void;
  private proxyReady!: () => void;
  private readonly ready: Promise<void>;

  constructor(private readonly options: AppFrameOptions) {
    this.origin = options.sandbox.origin;
    this.ready = new Promise((resolve) => (this.proxyReady = resolve));
    this.iframe = document.createElement('iframe');
    this.listener = (event) => {
      if (event.source !== this.iframe.contentWindow || event.origin !== this.origin) return;
      const data = event.data as { method?: unknown } | null;
      if (typeof data === 'object' && data !== null && data.method === 'ui/notifications/sandbox-proxy-ready') return this.proxyReady();
      options.receive(data);
    };
    window.addEventListener('message', this.listener);
  }

  /** Frames the proxy page and, once it is ready (within `timeoutMs`), hands it the app. */
  async load(app: FramedApp, timeoutMs: number): Promise<void> {
    const { iframe } = this;
    // What the spec asks for the proxy, and forms: a frame's restrictions bind every frame inside it, the app's too.
    iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
    iframe.title = 'MCP app';
    iframe.style.display = 'block';
    iframe.style.width = '100%';
    iframe.style.border = app.prefersBorder ? '1px solid #ccc' : 'none';
    if (app.prefersBorder !== undefined) iframe.dataset.prefersBorder = String(app.prefersBorder);
    iframe.src = this.options.sandbox.href;
    this.options.container.append(iframe);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`The sandbox proxy at ${this.options.sandbox.href} did not say it was ready within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.ready, late]);
    } finally {
      clearTimeout(timer);
    }
    const params: Record<string, unknown> = { html: app.html, csp: app.csp };
    if (app.permissions !== undefined) params.permissions = app.permissions;
    this.iframe.contentWindow?.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params }, this.origin);
  }

  /** One message to the app, through the proxy. */
  post(message: JsonRpcMessage): void {
    this.iframe.contentWindow?.postMessage(message, this.origin);
  }

  /** Follows the app's content height (the width is the container's). */
  resize(size: { height?: number }): void {
    if (size.height === undefined) return;
    const height = Math.ceil(Math.min(size.height, this.options.maxHeight ?? Infinity));
    this.iframe.style.height = `${height}px`;
  }

  /** Stops listening and takes the frame out of the page (the app's page goes with it). */
  remove(): void {
    window.removeEventListener('message', this.listener);
    this.iframe.remove();
  }
}
