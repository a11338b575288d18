/**
 * Wire types of MCP 2026-07-28 (a hand-written subset of the official schema:
 * what this project sends or reads). Objects stay open to extra fields, as the
 * schema allows.
 */

export type RequestId = string | number;
export type ProgressToken = string | number;
export type Cursor = string;
export type JsonObject = { [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface ClientCapabilities {
  experimental?: Record<string, object>;
  roots?: object;
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: object; url?: object };
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  experimental?: Record<string, object>;
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  extensions?: Record<string, object>;
}

/** Every result: open to fields a later revision or an extension adds, as the schema allows. */
export interface Result {
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export type CacheScope = 'public' | 'private';
export type CacheHints = {
  ttlMs: number;
  cacheScope: CacheScope;
};

export interface Annotations {
  audience?: Array<'user' | 'assistant'>;
  priority?: number;
  lastModified?: string;
}

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Record<string, unknown>;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Record<string, unknown>;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}
export interface ResourceLink extends Resource {
  type: 'resource_link';
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

export interface CallToolResult extends Result {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  size?: number;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export interface ReadResourceResult extends Result {
  contents: ResourceContents[];
  _meta?: Record<string, unknown>;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

export interface GetPromptResult extends Result {
  description?: string;
  messages: PromptMessage[];
  _meta?: Record<string, unknown>;
}

export interface CompleteResult extends Result {
  completion: { values: string[]; total?: number; hasMore?: boolean };
}

export type CompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  [key: string]: unknown;
}

/* ---- Multi Round-Trip Requests ---- */

export interface ElicitRequestFormParams {
  mode?: 'form';
  message: string;
  requestedSchema: {
    $schema?: string;
    type: 'object';
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  _meta?: Record<string, unknown>;
}
export interface ElicitRequestUrlParams {
  mode: 'url';
  message: string;
  url: string;
  _meta?: Record<string, unknown>;
}
export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestUrlParams;

export interface ElicitResult extends Result {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: Record<string, unknown>;
}

export interface ToolUseContent {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface ToolResultContent {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

export interface SamplingMessage {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  _meta?: Record<string, unknown>;
}

export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  maxTokens: number;
  modelPreferences?: Record<string, unknown>;
  systemPrompt?: string;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  tools?: Tool[];
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
  _meta?: Record<string, unknown>;
}

export interface CreateMessageResult extends Result {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: string;
  _meta?: Record<string, unknown>;
}

export interface Root {
  uri: string;
  name?: string;
  _meta?: Record<string, unknown>;
}
export interface ListRootsResult extends Result {
  roots: Root[];
  _meta?: Record<string, unknown>;
}

export type InputRequest =
  | { method: 'elicitation/create'; params: ElicitRequestParams }
  | { method: 'sampling/createMessage'; params: CreateMessageRequestParams }
  | { method: 'roots/list'; params?: { _meta?: Record<string, unknown> } };
export type InputRequests = Record<string, InputRequest>;
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult;
export type InputResponses = Record<string, InputResponse>;

export interface InputRequiredResult extends Result {
  resultType: 'input_required';
  inputRequests?: InputRequests;
  requestState?: string;
  _meta?: Record<string, unknown>;
}
