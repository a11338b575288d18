/**
 * A request within a 2025-11-25 session: the methods only that revision has
 * (ping, logging/setLevel, resources/subscribe…), and every other method run
 * by the same handlers as 2026-07-28, with the session's version and
 * capabilities and asks that become real requests to the client.
 */

import { isObject } from '../protocol/guards.js';
import { ChannelView, type Reply, type RequestChannel } from '../protocol/channel.js';
import { McpError } from '../protocol/errors.js';
import { errorResponse, resultResponse, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { LegacyMethod, Method } from '../protocol/methods.js';
import { LOGGING_LEVELS, type LoggingLevel, type Result } from '../protocol/types.js';
import type { ServerHost } from '../server/extension.js';
import type { RequestMeta } from '../server/request-meta.js';
import type { EventStore } from '../stores/event-store.js';
import { legacyError, legacyResult, legacyToolRefusal } from './legacy-results.js';
import { LiveInteraction, type LiveOptions } from './live-interaction.js';
import type { SessionHandle } from './sessions.js';
import { StreamLog } from './stream-log.js';

/** Methods of 2026-07-28 that 2025-11-25 does not have. */
const MODERN_ONLY: ReadonlySet<string> = new Set([Method.Discover, Method.SubscriptionsListen]);

export async function serveInSession(
  request: JsonRpcRequest,
  channel: RequestChannel,
  session: SessionHandle,
  host: ServerHost,
  options: LiveOptions,
  events: EventStore,
): Promise<Reply> {
  // Cancellable by notifications/cancelled; by a disconnect only when the stream cannot be resumed (2025-11-25: a disconnect is not a cancellation).
  const cancel = new AbortController();
  session.live.inFlight.set(request.id, cancel);
  if (channel.resumable) channel.resumable(new StreamLog(events, session.data.id, 'request', (message) => host.logger.warn(message)));
  const signal = channel.resumable ? cancel.signal : AbortSignal.any([channel.signal, cancel.signal]);
  const sessionChannel = new ChannelView(channel, signal);
  try {
    const result = await answer(request, sessionChannel, session, host, options);
    if (cancel.signal.aborted) return cancelled(request);
    return { message: resultResponse(request.id, legacyResult(result)), legacy: true };
  } catch (error) {
    // After notifications/cancelled the server should not respond (2025-11-25 cancellation); nothing to log either.
    if (cancel.signal.aborted) return cancelled(request);
    const failure = host.clientError(error, request.method);
    const refusal = legacyToolRefusal(request.method, failure);
    if (refusal) return { message: resultResponse(request.id, refusal), legacy: true };
    return { message: errorResponse(request.id, legacyError(failure)), legacy: true };
  } finally {
    session.live.inFlight.delete(request.id);
  }
}

function cancelled(request: JsonRpcRequest): Reply {
  return { message: errorResponse(request.id, McpError.invalidRequest('Cancelled by the client')), legacy: true, withhold: true };
}

async function answer(
  request: JsonRpcRequest,
  channel: RequestChannel,
  session: SessionHandle,
  host: ServerHost,
  options: LiveOptions,
): Promise<Result> {
  const params = request.params ?? {};
  switch (request.method) {
    case LegacyMethod.Initialize:
      throw McpError.invalidRequest('Invalid request: this session is already initialized');
    case LegacyMethod.Ping:
      return {};
    case LegacyMethod.SetLogLevel:
      if (!LOGGING_LEVELS.includes(params.level as LoggingLevel)) {
        throw McpError.invalidParams(`Invalid params: unknown log level ${JSON.stringify(params.level)}`);
      }
      await session.update({ logLevel: params.level as LoggingLevel });
      return {};
    case LegacyMethod.Subscribe:
    case LegacyMethod.Unsubscribe: {
      if (typeof params.uri !== 'string') throw McpError.invalidParams('Invalid params: uri must be a string');
      const others = session.data.subscriptions.filter((uri) => uri !== params.uri);
      await session.update({ subscriptions: request.method === LegacyMethod.Subscribe ? [...others, params.uri] : others });
      return {};
    }
  }
  if (MODERN_ONLY.has(request.method) || !host.offers(request.method)) throw McpError.methodNotFound(request.method);
  const meta = params._meta;
  const progressToken = isObject(meta) ? meta.progressToken : undefined;
  const requestMeta: RequestMeta = {
    protocolVersion: session.data.protocolVersion,
    clientCapabilities: session.data.clientCapabilities,
    clientInfo: session.data.clientInfo,
    logLevel: session.data.logLevel,
    progressToken: typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
    raw: isObject(meta) ? meta : {},
  };
  const interaction = new LiveInteraction(session.live, session.data.clientCapabilities, channel, options);
  return interaction.fulfil(() => host.invoke(request, channel, requestMeta, interaction));
}
