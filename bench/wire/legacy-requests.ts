/**
 * 2025-11-25 requests for the session rows of the scale phase: the
 * `initialize` handshake (no 2026 `_meta`, no MCP-Protocol-Version header:
 * the version is negotiated in the body), then every message on the session
 * with `Mcp-Session-Id` and the negotiated `MCP-Protocol-Version`.
 */

import type { BodyTemplate } from './requests.js';

export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

const INITIALIZE_PARAMS = {
  protocolVersion: LEGACY_PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'tessera-bench-loadgen', version: '1.0.0' },
};

export const initializeTemplate: BodyTemplate = (() => {
  const tail = `,"method":"initialize","params":${JSON.stringify(INITIALIZE_PARAMS)}}`;
  return (id) => `{"jsonrpc":"2.0","id":${id}${tail}`;
})();

export const INITIALIZED_BODY = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

export const INITIALIZE_HEADERS: Record<string, string> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** A POST on the session (the initialized notification). */
export function sessionPostHeaders(sessionId: string): Record<string, string> {
  return { ...INITIALIZE_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_PROTOCOL_VERSION };
}

/** The session's DELETE, and its standalone GET stream. */
export function sessionHeaders(sessionId: string): Record<string, string> {
  return { 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_PROTOCOL_VERSION };
}

export function getStreamHeaders(sessionId: string): Record<string, string> {
  return { ...sessionHeaders(sessionId), accept: 'text/event-stream' };
}
