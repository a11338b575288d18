/** Tessera: an MCP 2026-07-28 server built around Multi Round-Trip Requests. */

export type { ServerOptions, StateOptions, ServerLogger, CacheableList } from './server/options.js';
export type { RequestLog, RequestLogEntry, RequestLogDetail } from './server/request-log.js';
export type { TelemetryOptions } from './telemetry/telemetry-options.js';
export type { StateRejection } from './mrtr/sealed-state.js';
export type { LegacyOptions } from './legacy/era.js';
export type { SessionLimits } from './legacy/sessions.js';
export { McpServer, type McpServerOptions } from './mcp-server.js';
export type { TaskContext, TaskOptions, TaskWork, TaskReturn } from './tasks/task-work.js';
export type { TasksOptions } from './tasks/extension.js';
export type { RequestContext, CoreContext, ContextExtensions, ProgressUpdate } from './server/context.js';
export { toolError, type ToolDefinition, type ToolHandler, type ToolReturn, type ToolResult, type ToolHandOff, type ArgsOf } from './server/tools.js';
export type {
  ResourceDefinition,
  ResourceTemplateDefinition,
  ResourceHandler,
  TemplateHandler,
  ResourceReturn,
} from './server/resources.js';
export type { PromptDefinition, PromptHandler, PromptReturn, PromptArguments } from './server/prompts.js';
export type { Completer, CompletionRequest, CompletionAnswer } from './server/completion.js';
export type { SchemaInput, JsonSchemaObject } from './schema/resolve.js';

export { createNodeHandler, serveHttp, type HttpServeOptions, type NodeHandlerOptions, type RunningHttpServer } from './transport/http/node.js';
export { createFetchHandler } from './transport/http/fetch.js';
export type { CorsOptions } from './transport/http/cors.js';
export { HttpError, type HttpTransportOptions, type AuthenticateHook } from './transport/http/core.js';
export { serveStdio, streamLink } from './transport/stdio.js';
export { serveLink, type LinkServer } from './transport/serve-link.js';
export { createLinkPair, type MessageLink } from './transport/link.js';

export { McpError, ErrorCode } from './protocol/errors.js';
export * from './protocol/types.js';
export * from './protocol/meta.js';
export { Method, Notification, INPUT_REQUIRED_METHODS } from './protocol/methods.js';
export { LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS, LEGACY_PROTOCOL_VERSIONS } from './protocol/versions.js';
export type {
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResponse,
  JsonRpcResultResponse,
  JsonRpcErrorResponse,
  JsonRpcMessage,
} from './protocol/jsonrpc.js';
export type { RequestChannel, RequestHandler, Reply } from './protocol/channel.js';

export { ask, type Question, type QuestionOptions, type FormAnswer, type UrlAnswer, type AnswerOf, type QuestionKind } from './mrtr/questions.js';
export type { QuestionMap, AnswersOf, ManualInputRequired } from './mrtr/interaction.js';
export { KeyRing, generateStateKey, STATE_KEYS_ENV, type StateKey } from './mrtr/keyring.js';
export { MemoryRedemptionStore, type RedemptionStore } from './stores/redemption-store.js';
export { MemoryTaskStore, type TaskStore, type TaskData, type TaskStatus, type TaskPatch, type TaskEvent, type MemoryTaskStoreOptions } from './stores/task-store.js';
export { MemorySessionStore, type SessionStore, type SessionData, type SessionPatch, type MemorySessionStoreOptions } from './stores/session-store.js';
export { MemoryChangeBus, type ChangeBus, type Change, type ChangeList } from './stores/change-bus.js';
export type { SharedStores } from './stores/shared-stores.js';

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
} from './client/client.js';
export type { CreateTaskResult, DetailedTask, TaskInfo, TaskStatusName } from './protocol/method-types.js';
export type {
  InputHandlers,
  InputContext,
  FormElicitationHandler,
  UrlElicitationHandler,
  SamplingHandler,
  RootsHandler,
} from './client/handlers.js';
export { PendingRound, type PendingRoundJson } from './client/pending-round.js';
export { HttpClientTransport, type HttpClientTransportOptions } from './client/http-transport.js';
export { StdioClientTransport, type StdioServerParameters } from './client/stdio-transport.js';
export { LinkClientTransport } from './client/link-transport.js';
export type { ClientTransport, TransportRequestOptions } from './client/transport.js';
export {
  ClientError,
  ProtocolViolationError,
  TransportError,
  RequestTimeoutError,
  InputFlowError,
  ResponseTooLargeError,
  TaskError,
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
export type { PreRegisteredClient, ClientMetadata } from './auth/client/client-identity.js';
export { MemoryTokenStore, type TokenStore, type StoredAuthorization, type StoredTokens, type RegisteredClient } from './auth/client/token-store.js';
export { FileTokenStore } from './auth/client/file-token-store.js';
export { LoopbackRedirect, type LoopbackRedirectOptions } from './auth/client/loopback-redirect.js';
export { canonicalResource } from './auth/client/resource-metadata.js';

export { protectedResource, type ProtectedResourceOptions, type AuthLogger } from './auth/server/protected-resource.js';
export { jwtAccessTokens, type JwtAccessTokenOptions } from './auth/server/jwt-verifier.js';
export { tokenIntrospection, type TokenIntrospectionOptions } from './auth/server/introspection-verifier.js';
export type { TokenVerifier, VerifyContext } from './auth/server/token-verifier.js';
export { InvalidTokenError } from './auth/server/errors.js';
export type {
  AuthInfo,
  HttpAuthorization,
  EndpointAuthorization,
  ProtectedRequest,
  Authorized,
  AuthorizationRefusal,
} from './protocol/authorization.js';
