/** The reserved `_meta` keys of MCP 2026-07-28. */

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
export const META_PROGRESS_TOKEN = 'progressToken';

/** Extension identifier of the official Tasks extension. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
