/**
 * Checks on the 2025-11-25 session replies (see wire/checks.ts for the
 * 2026 ones): each returns an error message, or undefined when right.
 */

import { resultOf } from './checks.js';
import { LEGACY_PROTOCOL_VERSION } from './legacy-requests.js';

type Headers = Record<string, string | string[] | undefined>;

/** A header by name whatever its case (autocannon keeps the server's spelling). */
export function headerOf(headers: Headers | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** The initialize reply: 200, the negotiated 2025-11-25, tools among the capabilities, a session id; the id, or an error. */
export function expectSessionCreated(status: number, body: string, id: number, headers: Headers | undefined): { sessionId: string } | string {
  const result = resultOf(status, body, id);
  if (typeof result === 'string') return result;
  if (result.protocolVersion !== LEGACY_PROTOCOL_VERSION) return `negotiated ${String(result.protocolVersion)}, expected ${LEGACY_PROTOCOL_VERSION}`;
  const capabilities = result.capabilities as Record<string, unknown> | undefined;
  if (typeof capabilities?.tools !== 'object') return 'no tools capability';
  if (typeof (result.serverInfo as Record<string, unknown> | undefined)?.name !== 'string') return 'no serverInfo';
  const sessionId = headerOf(headers, 'mcp-session-id');
  if (!sessionId) return 'initialize answered without an Mcp-Session-Id';
  return { sessionId };
}

/** notifications/initialized: accepted, no body to speak of. */
export function expectAccepted(status: number): string | undefined {
  return status === 202 ? undefined : `notifications/initialized answered HTTP ${status}, expected 202`;
}

/** The session's DELETE: 200 (Tessera and the official SDK) or 204. */
export function expectEnded(status: number): string | undefined {
  return status === 200 || status === 204 ? undefined : `DELETE answered HTTP ${status}, expected 200`;
}
