/**
 * `tessera-mcp/apps`: MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`) on the
 * server. `apps()` goes in McpServer's `extensions`; `registerApp` registers
 * an app's `ui://` page with its CSP and links tools to it. Hosts are in
 * `tessera-mcp/apps-host`. Web-standard, like `tessera-mcp`.
 */

export { apps } from './apps/server/extension.js';
export { registerApp, type AppDefinition, type AppToolDefinition, type RegisteredApp, type AppServer } from './apps/server/register-app.js';
// The extension's names, the _meta.ui shapes and their readers, shared by both sides.
export * from './apps/ui-meta.js';
