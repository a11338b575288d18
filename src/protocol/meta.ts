/** The reserved `_meta` keys of MCP 2026-07-28. */

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
export const META_PROGRESS_TOKEN = 'progressToken';

/**
 * Tessera's own key (not reserved by MCP): on a 2025-11-25 server-initiated
 * request, the key of the question behind it, as the same question would
 * carry in `inputRequests` at 2026-07-28. A client may answer by key at both
 * eras; any other client ignores it.
 */
export const META_INPUT_KEY = 'tessera-mcp/inputKey';

/** Extension identifier of the official Tasks extension. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
