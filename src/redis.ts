/** `tessera-mcp/redis`: every shared store on one Redis (see src/stores/redis/index.ts); needs `@redis/client`. */

export * from './stores/redis/index.js';
export type { Listener, RedisCommandOptions } from './stores/redis/connection.js';
