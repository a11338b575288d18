/**
 * `tessera-mcp/fastify`: the MCP endpoint as a Fastify 5 plugin,
 * `await app.register(mcpFastify(server), { prefix: '/mcp' })`, with
 * Fastify's JSON parser. Fastify is a peer dependency: install it yourself.
 */

export { mcpFastify, type McpFastifyPlugin } from './transport/http/frameworks/fastify.js';
export { HttpError, type HttpTransportOptions, type AuthenticateHook } from './transport/http/core.js';
export type { CorsOptions } from './transport/http/cors.js';
export type { HostGuardOptions } from './transport/http/host-guard.js';
export { printWire, wireLine, type WireDirection, type WireTrace } from './transport/wire-trace.js';
