/**
 * `tessera-mcp/protocol`: the wire as code — the MCP 2026-07-28 shapes
 * (content, results, capabilities, input requests), JSON-RPC messages, method
 * names, `_meta` keys, protocol versions — and the seams a transport or a test
 * double is written against (`RequestHandler`, `RequestChannel`, the HTTP
 * authorization seam), with the guard for reading untrusted JSON. A server's
 * own code rarely names these: the root's definition and handler types
 * (`ToolReturn`, `RequestContext`, …) carry them. Web-standard: no `node:*`
 * module is reachable from here.
 */

export * from './protocol/types.js';
export * from './protocol/meta.js';
export { Method, Notification } from './protocol/methods.js';
export { LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS, LEGACY_PROTOCOL_VERSIONS } from './protocol/versions.js';
export type {
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResponse,
  JsonRpcResultResponse,
  JsonRpcErrorResponse,
  JsonRpcMessage,
} from './protocol/jsonrpc.js';
export type { JsonRpcErrorObject, ErrorCondition } from './protocol/errors.js';
export type { RequestChannel, RequestHandler, Reply, Connection, PeerMessageContext, StreamSink, EventLog, StreamStatus, SessionPeer } from './protocol/channel.js';
export type { EndpointAuthorization, ProtectedRequest, Authorized, AuthorizationRefusal } from './protocol/authorization.js';
export { isObject } from './protocol/guards.js';
