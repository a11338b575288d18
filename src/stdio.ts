/**
 * `tessera-mcp/stdio`: newline-delimited JSON-RPC over a process's stdin and
 * stdout, both ends — `serveStdio(server)` in the server process,
 * `StdioClientTransport` to spawn one from a client. Node.js (or a runtime
 * with its `node:stream` and `node:child_process`).
 */

export { serveStdio, streamLink } from './transport/stdio.js';
export { StdioClientTransport, type StdioServerParameters } from './client/stdio-transport.js';
