/**
 * `tessera-mcp/node`: the pieces that need Node.js — Streamable HTTP on
 * `node:http` (`serveHttp`, `createNodeHandler`), and for a client's sign-in
 * the token file and the loopback redirect. Types from `@types/node` appear
 * in these signatures.
 */

export { createNodeHandler, serveHttp, type HttpServeOptions, type NodeHandlerOptions, type RunningHttpServer } from './transport/http/node.js';
export { HttpError, type HttpTransportOptions, type AuthenticateHook } from './transport/http/core.js';
export type { CorsOptions } from './transport/http/cors.js';
export type { HostGuardOptions } from './transport/http/host-guard.js';
export { printWire, wireLine, type WireDirection, type WireTrace } from './transport/wire-trace.js';
export { FileTokenStore, TokenFileError } from './auth/client/file-token-store.js';
export { LoopbackRedirect, type LoopbackRedirectOptions } from './auth/client/loopback-redirect.js';
