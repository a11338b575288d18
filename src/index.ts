/**
 * `tessera-mcp`: what a server's code writes — `McpServer` and its options,
 * the definition, handler and context types, `ask`, `toolError`, errors, state
 * keys, the stores and the resource server's token checks. Web-standard
 * throughout: no `node:*` module is reachable from here (test/package checks
 * it), so it runs on Node, Deno, Bun, Workers and in bundlers alike. Serve it
 * with `tessera-mcp/node`, `/fetch`, `/stdio` or a framework adapter (each
 * with its HTTP options and `HttpError`); the client is `tessera-mcp/client`;
 * the wire shapes and the transport seams are `tessera-mcp/protocol`.
 */

export type { ServerOptions, StateOptions, ServerLogger, CacheableList } from './server/options.js';
export type { RequestLog, RequestLogEntry, RequestLogDetail } from './server/request-log.js';
export type { TelemetryOptions } from './telemetry/telemetry-options.js';
export type { StateRejection } from './mrtr/sealed-state.js';
export type { LegacyOptions } from './legacy/era.js';
export type { SessionLimits } from './legacy/sessions.js';
export { McpServer, type McpServerOptions } from './mcp-server.js';
export type { Extension } from './server/extension.js';
export type { TaskContext, TaskOptions, TaskWork, TaskReturn, TaskStep, TaskTool } from './tasks/task-work.js';
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
export type { PromptDefinition, PromptHandler, PromptReturn, PromptArguments, PromptArgsOf } from './server/prompts.js';
export type { Completer, CompletionRequest, CompletionAnswer } from './server/completion.js';
export type { SchemaInput, JsonSchemaObject } from './schema/resolve.js';

export { serveLink, type LinkServer } from './transport/serve-link.js';
export { createLinkPair, type MessageLink } from './transport/link.js';

export { McpError, ErrorCode } from './protocol/errors.js';
export type { AskKind } from './protocol/capabilities.js';

export { ask, type Question, type QuestionOptions, type FormAnswer, type UrlAnswer, type AnswerOf, type QuestionKind } from './mrtr/questions.js';
export type { QuestionMap, AnswersOf, ManualInputRequired } from './mrtr/interaction.js';
export { KeyRing, generateStateKey, STATE_KEYS_ENV, type StateKey } from './mrtr/keyring.js';
export { MemoryRedemptionStore, type RedemptionStore } from './stores/redemption-store.js';
export {
  MemoryTaskStore,
  type TaskStore,
  type TaskCreation,
  type TaskData,
  type TaskStatus,
  type TaskPatch,
  type TaskEvent,
  type TaskCall,
  type TaskLeases,
  type TaskCheckpoint,
  type TaskCheckpoints,
  type MemoryTaskStoreOptions,
} from './stores/task-store.js';
export { MemorySessionStore, type SessionStore, type SessionCreation, type SessionData, type SessionPatch, type MemorySessionStoreOptions } from './stores/session-store.js';
export { MemoryChangeBus, type ChangeBus, type Change, type ChangeList } from './stores/change-bus.js';
export { MemorySessionBus, type SessionBus, type SessionEvent } from './stores/session-bus.js';
export {
  MemoryEventStore,
  type EventStore,
  type EventStoreLimits,
  type MemoryEventStoreOptions,
  type StoredEvent,
  type StreamEvent,
  type StreamReplay,
} from './stores/event-store.js';
export type { SharedStores } from './stores/shared-stores.js';

export { protectedResource, type ProtectedResourceOptions, type AuthLogger } from './auth/server/protected-resource.js';
export { jwtAccessTokens, type JwtAccessTokenOptions } from './auth/server/jwt-verifier.js';
export { tokenIntrospection, type TokenIntrospectionOptions } from './auth/server/introspection-verifier.js';
export type { TokenVerifier, VerifyContext } from './auth/server/token-verifier.js';
export { InvalidTokenError } from './auth/server/errors.js';
export type { AuthInfo, HttpAuthorization } from './protocol/authorization.js';
