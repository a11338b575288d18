/**
 * `tessera-mcp/fetch`: Streamable HTTP as `(request: Request) => Promise<Response>`
 * for web-standard runtimes — Cloudflare Workers, Deno, Bun, Next.js route
 * handlers, or Node's own fetch-style servers. No `node:*` module is reachable
 * from here.
 */

export { createFetchHandler } from './transport/http/fetch.js';
export { HttpError, type HttpTransportOptions, type AuthenticateHook } from './transport/http/core.js';
export type { CorsOptions } from './transport/http/cors.js';
export type { HostGuardOptions } from './transport/http/host-guard.js';
export { printWire, wireLine, type WireDirection, type WireTrace } from './transport/wire-trace.js';
