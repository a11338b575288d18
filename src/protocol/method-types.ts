/**
 * What each 2026-07-28 request a client sends carries and what it is answered
 * with (including the Tasks extension's methods): the map the server's method
 * table, the client's `request<M>()` and result finishing are typed by.
 * test/protocol/method-types.test.ts checks it against the official schema:
 * the same methods as the schema's client requests, each with the result
 * definition the schema pairs with it.
 */

import type {
  CacheHints,
  CallToolResult,
  CompleteResult,
  CompletionReference,
  Cursor,
  GetPromptResult,
  Implementation,
  InputRequests,
  InputRequiredResult,
  InputResponses,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Result,
  ServerCapabilities,
  SubscriptionFilter,
  Tool,
} from './types.js';
import type { JsonRpcErrorObject } from './errors.js';

/** Every request's params: `_meta` (required in 2026-07-28) carries the protocol version, client capabilities and info. */
export interface RequestParams {
  _meta: Record<string, unknown>;
  [key: string]: unknown;
}

/** Params as a caller of the client gives them: the client writes `_meta` (a caller may add keys to it). */
// Its known keys kept one by one: `Omit<…, '_meta'>` would keep only the index signature, and `{ name: 42 }` would pass.
export type CallerParams<M extends keyof ParamsByMethod> = { [K in keyof ParamsByMethod[M] as K extends '_meta' ? never : K]: ParamsByMethod[M][K] } & {
  _meta?: Record<string, unknown>;
};

export interface PaginatedRequestParams extends RequestParams {
  cursor?: Cursor;
}

/** What a retry of an input-required round adds. */
export interface InputRetryParams {
  inputResponses?: InputResponses;
  requestState?: string;
}

export interface CallToolRequestParams extends RequestParams, InputRetryParams {
  name: string;
  arguments?: Record<string, unknown>;
}

export interface ReadResourceRequestParams extends RequestParams, InputRetryParams {
  uri: string;
}

export interface GetPromptRequestParams extends RequestParams, InputRetryParams {
  name: string;
  arguments?: Record<string, string>;
}

export interface CompleteRequestParams extends RequestParams {
  ref: CompletionReference;
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

export interface SubscriptionsListenRequestParams extends RequestParams {
  notifications: SubscriptionFilter;
}

export interface TaskRequestParams extends RequestParams {
  taskId: string;
}

export interface TaskUpdateRequestParams extends TaskRequestParams {
  inputResponses: InputResponses;
}

/** Results a client may cache, for `ttlMs` and in `cacheScope`. */
export interface CacheableResult extends Result, CacheHints {}

export interface PaginatedResult extends CacheableResult {
  nextCursor?: Cursor;
}

export interface DiscoverResult extends CacheableResult {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  serverInfo?: Implementation;
}

export interface ListToolsResult extends PaginatedResult {
  tools: Tool[];
}

export interface ListResourcesResult extends PaginatedResult {
  resources: Resource[];
}

export interface ListResourceTemplatesResult extends PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}

export interface ListPromptsResult extends PaginatedResult {
  prompts: Prompt[];
}

export type TaskStatusName = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as `tasks/get` and the `CreateTaskResult` report it. */
export interface TaskInfo {
  taskId: string;
  status: TaskStatusName;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  lastUpdatedAt: string;
  /** null: the task lives until the server drops it. */
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/** A tools/call answered with a task instead of its result (Tasks extension). */
export interface CreateTaskResult extends Result, TaskInfo {
  resultType: 'task';
}

/** `tasks/get`: the task, with its questions, result or error by status. */
export interface DetailedTask extends Result, TaskInfo {
  inputRequests?: InputRequests;
  result?: Result;
  error?: JsonRpcErrorObject;
}

export type EmptyResult = Result;

/** The end of a listen stream (graceful: e.g. the server shuts down), tagged with the subscription it ends. */
export interface SubscriptionsListenResult extends Result {
  _meta: Record<string, unknown>;
}

export interface ParamsByMethod {
  'server/discover': RequestParams;
  'tools/list': PaginatedRequestParams;
  'tools/call': CallToolRequestParams;
  'resources/list': PaginatedRequestParams;
  'resources/templates/list': PaginatedRequestParams;
  'resources/read': ReadResourceRequestParams;
  'prompts/list': PaginatedRequestParams;
  'prompts/get': GetPromptRequestParams;
  'completion/complete': CompleteRequestParams;
  'subscriptions/listen': SubscriptionsListenRequestParams;
  'tasks/get': TaskRequestParams;
  'tasks/update': TaskUpdateRequestParams;
  'tasks/cancel': TaskRequestParams;
}

export interface ResultByMethod {
  'server/discover': DiscoverResult;
  'tools/list': ListToolsResult;
  'tools/call': CallToolResult | InputRequiredResult | CreateTaskResult;
  'resources/list': ListResourcesResult;
  'resources/templates/list': ListResourceTemplatesResult;
  'resources/read': (ReadResourceResult & CacheableResult) | InputRequiredResult;
  'prompts/list': ListPromptsResult;
  'prompts/get': GetPromptResult | InputRequiredResult;
  'completion/complete': CompleteResult;
  'subscriptions/listen': SubscriptionsListenResult;
  'tasks/get': DetailedTask;
  'tasks/update': EmptyResult;
  'tasks/cancel': EmptyResult;
}

export type ClientMethod = keyof ParamsByMethod & keyof ResultByMethod;

/** The methods of the Tasks extension (not in the core schema; test/helpers/wire-schema.ts checks their shapes). */
export const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
export type TaskMethod = (typeof TASK_METHODS)[number];

/** The core methods: every client request of the 2026-07-28 schema. */
export type CoreMethod = Exclude<ClientMethod, TaskMethod>;

/**
 * The schema's name for each core method's result, as the official schema
 * pairs them (XRequest → XResult, else EmptyResult): what the check against
 * the schema reads, and the core methods listed once at run time.
 */
export const CORE_METHOD_RESULTS: Readonly<Record<CoreMethod, string>> = {
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};
