/**
 * `tessera-mcp/express`: the MCP endpoint as Express 5 middleware,
 * `app.use('/mcp', mcpExpress(server))`, behind `express.json()` or not.
 * Express is a peer dependency: install it yourself.
 */

export { mcpExpress, type ExpressMiddleware, type ExpressNext, type McpExpressMiddleware } from './transport/http/frameworks/express.js';
export { HttpError, type HttpTransportOptions, type AuthenticateHook } from './transport/http/core.js';
export type { CorsOptions } from './transport/http/cors.js';
export type { HostGuardOptions } from './transport/http/host-guard.js';
export { printWire, wireLine, type WireDirection, type WireTrace } from './transport/wire-trace.js';
