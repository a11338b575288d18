/**
 * `tessera-mcp/apps-host`: MCP Apps (SEP-1865) for hosts built on Tessera's
 * Client in a browser. `openApp` renders a tool's app in a sandboxed iframe
 * under its declared CSP and speaks the host half of the app protocol, with
 * the app's tool calls going through the Client (so its questions reach the
 * Client's input handlers); `sandboxProxyHtml` is the page to serve from a
 * second origin for that. No DOM is touched until `openApp` runs.
 */

export { openApp, type AppView, type OpenAppOptions } from './apps/host/app-view.js';
export type { AppHandlers, AppContent, HostContext } from './apps/host/app-session.js';
export { sandboxProxyHtml } from './apps/host/sandbox-proxy.js';
export { appsCapabilities, modelTools } from './apps/host/host-tools.js';
export { appContentSecurityPolicy, type AppPolicy } from './apps/csp.js';
// The extension's names, the _meta.ui shapes and their readers, shared by both sides.
export * from './apps/ui-meta.js';
