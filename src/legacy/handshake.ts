/** The 2025-11-25 handshake: `initialize` makes a session (HTTP: a new `Mcp-Session-Id`; stdio: the connection). */

import type { Reply, RequestChannel } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import { isImplementation, isObject } from '../protocol/guards.js';
import { errorResponse, resultResponse, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, Result } from '../protocol/types.js';
import { SERVED_LEGACY_VERSIONS } from '../protocol/versions.js';
import type { ServerHost } from '../server/extension.js';
import type { SessionData } from '../stores/session-store.js';
import type { Sessions } from './sessions.js';


export async function handshake(request: JsonRpcRequest, channel: RequestChannel, host: ServerHost, sessions: Sessions): Promise<Reply> {
  const params = request.params ?? {};
  const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
  // Answer the version asked for when it is one of ours, else the latest 2025-era one; never 2026-07-28.
  const protocolVersion = SERVED_LEGACY_VERSIONS.includes(requested) ? requested : SERVED_LEGACY_VERSIONS[0]!;
  const data: Omit<SessionData, 'id'> = {
    protocolVersion,
    clientCapabilities: isObject(params.capabilities) ? (params.capabilities as ClientCapabilities) : {},
    clientInfo: isImplementation(params.clientInfo) ? params.clientInfo : undefined,
    initialized: false,
    subscriptions: [],
    // Bound to its maker: every later message on the session must come from the same caller.
    ...(channel.principal !== undefined ? { principal: channel.principal } : {}),
  };
  let headers: Record<string, string> | undefined;
  if (channel.connection) {
    sessions.createStdio(data, channel.connection);
  } else {
    const session = await sessions.createHttp(data);
    if (typeof session === 'string') {
      const full =
        session === 'principal-full'
          ? McpError.limitReached('sessions', { option: 'legacy.maxSessionsPerPrincipal', max: sessions.maxSessionsPerPrincipal, scope: 'caller', retryAfterSeconds: 60 })
          : McpError.limitReached('sessions', { option: 'legacy.maxSessions', max: sessions.maxSessions ?? Number.NaN, scope: 'server', retryAfterSeconds: 30 });
      return { message: errorResponse(request.id, full), condition: full.condition };
    }
    headers = { 'mcp-session-id': session.data.id };
  }
  const result: Result = { protocolVersion, capabilities: host.legacyCapabilities(), serverInfo: host.info };
  if (host.instructions !== undefined) result.instructions = host.instructions;
  return { message: resultResponse(request.id, result), legacy: true, headers };
}
