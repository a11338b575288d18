/** Method names of MCP 2026-07-28 and what each may do. */

export const Method = {
  Discover: 'server/discover',
  ToolsList: 'tools/list',
  ToolsCall: 'tools/call',
  ResourcesList: 'resources/list',
  ResourceTemplatesList: 'resources/templates/list',
  ResourcesRead: 'resources/read',
  PromptsList: 'prompts/list',
  PromptsGet: 'prompts/get',
  Complete: 'completion/complete',
  SubscriptionsListen: 'subscriptions/listen',
} as const;

/** Methods of 2025-11-25 that 2026-07-28 removed (served to 2025-era sessions only). */
export const LegacyMethod = {
  Initialize: 'initialize',
  Ping: 'ping',
  SetLogLevel: 'logging/setLevel',
  Subscribe: 'resources/subscribe',
  Unsubscribe: 'resources/unsubscribe',
} as const;

/** What a server asks of a client: embedded in `inputRequests` (2026-07-28), or sent as requests by a 2025-era server. */
export const InputMethod = {
  Elicit: 'elicitation/create',
  CreateMessage: 'sampling/createMessage',
  ListRoots: 'roots/list',
} as const;

/** The Tasks extension's methods. */
export const TaskMethod = {
  Get: 'tasks/get',
  Update: 'tasks/update',
  Cancel: 'tasks/cancel',
} as const;

export const Notification = {
  Initialized: 'notifications/initialized',
  Cancelled: 'notifications/cancelled',
  Progress: 'notifications/progress',
  Message: 'notifications/message',
  ToolsListChanged: 'notifications/tools/list_changed',
  PromptsListChanged: 'notifications/prompts/list_changed',
  ResourcesListChanged: 'notifications/resources/list_changed',
  ResourceUpdated: 'notifications/resources/updated',
  SubscriptionsAcknowledged: 'notifications/subscriptions/acknowledged',
} as const;

/** The only requests that may be answered with `resultType: "input_required"`. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  Method.ToolsCall,
  Method.ResourcesRead,
  Method.PromptsGet,
]);

/** Where the `Mcp-Name` header's value comes from, per method. */
export function mcpNameSource(method: string): 'name' | 'uri' | 'taskId' | undefined {
  switch (method) {
    case Method.ToolsCall:
    case Method.PromptsGet:
      return 'name';
    case Method.ResourcesRead:
      return 'uri';
    case TaskMethod.Get:
    case TaskMethod.Update:
    case TaskMethod.Cancel:
      return 'taskId';
    default:
      return undefined;
  }
}
