/**
 * `tessera-mcp/hono`: the MCP endpoint as a Hono handler,
 * `app.all('/mcp', mcpHono(server))`, on any runtime Hono runs on (no
 * `node:*` module is reachable from here). Hono is a peer dependency:
 * install it yourself.
 */

export { mcpHono, type McpHonoHandler } from './transport/http/frameworks/hono.js';
export { HttpError, type HttpTransportOptions, type AuthenticateHook } from './transport/http/core.js';
export type { CorsOptions } from './transport/http/cors.js';
export type { HostGuardOptions } from './transport/http/host-guard.js';
export { printWire, wireLine, type WireDirection, type WireTrace } from './transport/wire-trace.js';
