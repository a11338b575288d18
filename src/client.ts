/**
 * `tessera-mcp/client`: the MCP client (Streamable HTTP or any transport, the
 * MRTR retry loop, tasks, OAuth 2.1 sign-in), with the errors and wire types
 * it hands you. Web-standard: it runs in browsers, Workers, Deno and Bun. The
 * Node-only pieces are elsewhere: spawning a stdio server in
 * `tessera-mcp/stdio`, the file token store and loopback redirect in
 * `tessera-mcp/node`.
 */

export {
  Client,
  type ClientOptions,
  type ClientTaskOptions,
  type RequestOptions,
  type RoundInfo,
  type Step,
  type Subscription,
  type ConnectTarget,
  type TaskObserver,
  type TaskUpdate,
  type CompleteOf,
} from './client/client.js';
export type { Era } from './client/envelope.js';
// The request and result types of each method, as the client's typed methods name them.
export type {
  RequestParams,
  CallerParams,
  PaginatedRequestParams,
  InputRetryParams,
  CallToolRequestParams,
  ReadResourceRequestParams,
  GetPromptRequestParams,
  CompleteRequestParams,
  SubscriptionsListenRequestParams,
  TaskRequestParams,
  TaskUpdateRequestParams,
  CacheableResult,
  PaginatedResult,
  DiscoverResult,
  ListToolsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListPromptsResult,
  TaskStatusName,
  TaskInfo,
  CreateTaskResult,
  DetailedTask,
  EmptyResult,
  SubscriptionsListenResult,
  ParamsByMethod,
  ResultByMethod,
  ClientMethod,
  TaskMethod,
  CoreMethod,
} from './protocol/method-types.js';
export type {
  InputHandlers,
  InputContext,
  FormElicitationHandler,
  UrlElicitationHandler,
  SamplingHandler,
  RootsHandler,
} from './client/handlers.js';
export { PendingRound, type PendingRoundJson } from './client/pending-round.js';
export { HttpClientTransport, type HttpClientTransportOptions, type Session } from './client/http-transport.js';
export type { BusyRetryOptions } from './client/retry-after.js';
export { LinkClientTransport } from './client/link-transport.js';
export type { ClientTransport, TransportRequestOptions, ServerRequestHandler } from './client/transport.js';
export {
  ClientError,
  ProtocolViolationError,
  TransportError,
  RequestTimeoutError,
  InputFlowError,
  ResponseTooLargeError,
  TaskError,
  ServerCancelledError,
  ServerBusyError,
  type InputFlowStop,
  type TaskStop,
} from './client/errors.js';
export { OAuthProvider, type OAuthProviderOptions } from './auth/client/oauth-provider.js';
export type { HttpAuthProvider } from './auth/client/auth-provider.js';
export { AuthorizationError, type AuthorizationStep, type AuthorizationErrorDetails } from './auth/client/errors.js';
export { authorizationCode, type UserAuthorization, type AuthorizationRequest } from './auth/client/authorization-code-grant.js';
export { clientCredentials } from './auth/client/client-credentials-grant.js';
export { jwtBearer, type JwtBearerOptions } from './auth/client/jwt-bearer-grant.js';
export { identityAssertion, type IdentityAssertionOptions } from './auth/client/identity-assertion-grant.js';
export type { Grant, GrantContext } from './auth/client/grant.js';
export type { HttpOptions } from './auth/client/http.js';
export type { HostResolver } from './auth/client/guarded-fetch.js';
export type { PreRegisteredClient, ClientMetadata } from './auth/client/client-identity.js';
export { MemoryTokenStore, type TokenStore, type StoredAuthorization, type StoredTokens, type RegisteredClient } from './auth/client/token-store.js';
export { canonicalResource } from './auth/client/resource-metadata.js';

export { createLinkPair, type MessageLink } from './transport/link.js';
export { McpError, ErrorCode } from './protocol/errors.js';
export * from './protocol/types.js';
export * from './protocol/meta.js';
export { LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS, LEGACY_PROTOCOL_VERSIONS } from './protocol/versions.js';
