/**
 * Which era the server speaks, settled on connect: 2026-07-28 (`modern`), or
 * 2025-11-25 and earlier (`legacy`, after the initialize handshake). In auto
 * mode the client sends a 2026 request first and falls back to `initialize`
 * unless the answer is a recognised 2026 error (spec §16.2).
 */

import { ErrorCode, McpError } from '../protocol/errors.js';
import { isImplementation, isObject } from '../protocol/guards.js';
import { LegacyMethod, Method, Notification } from '../protocol/methods.js';
import type { LoggingLevel, Result } from '../protocol/types.js';
import { LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { ClientError, ProtocolViolationError, ServerBusyError, TransportError } from './errors.js';
import type { Era } from './envelope.js';
import type { Requester } from './requester.js';

export type { Era } from './envelope.js';

export interface EraOptions {
  era?: Era | 'auto';
  /** How long the stdio era probe waits for an answer, in ms (default 5000). */
  probeTimeoutMs?: number;
  logLevel?: LoggingLevel;
}

function isAuthorizationStatus(error: unknown): boolean {
  return error instanceof TransportError && (error.status === 401 || error.status === 403);
}

/** Settles the era of a freshly connected server; the initialize result on a 2025-era server. */
export async function settleEra(requester: Requester, options: EraOptions): Promise<Result | undefined> {
  requester.era = 'modern';
  requester.beginSession(undefined);
  requester.reinitialize = (version) => initializeLegacy(requester, options, version).then(() => undefined);
  const era = options.era ?? 'auto';
  if (era === 'legacy') return initializeLegacy(requester, options);
  if (era === 'modern') return undefined;
  const probeMs = requester.connected.kind === 'http' ? undefined : (options.probeTimeoutMs ?? 5000);
  try {
    await requester.request(Method.Discover, {}, { timeoutMs: probeMs });
    return undefined;
  } catch (error) {
    if (error instanceof McpError) {
      // A recognised 2026 error means a 2026 server: never fall back (request() already renegotiated).
      if (error.code === ErrorCode.HeaderMismatch || error.code === ErrorCode.MissingRequiredClientCapability) throw error;
      if (error.code === ErrorCode.UnsupportedProtocolVersion) {
        const supported = isObject(error.data) && Array.isArray(error.data.supported) ? error.data.supported : [];
        const legacy = LEGACY_PROTOCOL_VERSIONS.find((v) => supported.includes(v));
        if (!legacy) throw error;
        return initializeLegacy(requester, options, legacy);
      }
    } else if (!(error instanceof ClientError) || isAuthorizationStatus(error) || error instanceof ServerBusyError) {
      // Not signed in (or not allowed), or busy past the retries, is no sign of a 2025 server: never fall back on those.
      throw error;
    }
    return initializeLegacy(requester, options);
  }
}

/** The 2025-11-25 handshake: initialize, then notifications/initialized; a session on HTTP. */
async function initializeLegacy(requester: Requester, options: EraOptions, version = LEGACY_PROTOCOL_VERSIONS[0]!): Promise<Result> {
  requester.era = 'legacy';
  const { extensions: _extensions, ...capabilities } = requester.capabilities;
  const result = await requester.request(LegacyMethod.Initialize, { protocolVersion: version, capabilities, clientInfo: requester.envelope.clientInfo });
  const negotiated = result.protocolVersion;
  if (typeof negotiated !== 'string' || !LEGACY_PROTOCOL_VERSIONS.includes(negotiated)) {
    throw new ProtocolViolationError(`The server answered initialize with protocol version ${JSON.stringify(negotiated)}, which this client does not speak`, result);
  }
  requester.version = negotiated;
  if (isImplementation(result.serverInfo)) requester.serverInfo = result.serverInfo;
  requester.beginSession(isObject(result.capabilities) ? result.capabilities : {});
  const transport = requester.connected;
  transport.beginSession?.(negotiated);
  await transport.notify?.({ jsonrpc: '2.0', method: Notification.Initialized });
  transport.openStandaloneStream?.();
  await requester.useLogLevel(options.logLevel);
  return result;
}
