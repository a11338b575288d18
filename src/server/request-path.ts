/**
 * The request path of the server, top to bottom, in named steps (the same
 * names in docs/architecture.md and the extension hooks): era, gates, open,
 * run, conclude. Before it: the transport read the bytes and parsed one
 * JSON-RPC request (transport/). After it, the reply step: the transport sends
 * the reply as JSON or as the last event of an SSE stream, with the HTTP
 * status decided there (transport/http/status.ts).
 */

import { missingForKinds } from '../protocol/capabilities.js';
import type { Reply, RequestChannel } from '../protocol/channel.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { resultResponse, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { INPUT_REQUIRED_METHODS } from '../protocol/methods.js';
import type { Result } from '../protocol/types.js';
import { STUCK } from '../mrtr/replay.js';
import type { Round } from '../mrtr/input-rounds.js';
import type { ServerCore } from './core.js';
import { passGates } from './gates.js';
import { holdNotifications } from './held-notifications.js';
import type { RequestObservation } from './request-observer.js';
import { finishResult } from './results.js';

export function answerRequest(core: ServerCore, request: JsonRpcRequest, channel: RequestChannel): Promise<Reply> {
  // Observation (not a step: it wraps them all): a span whose parent is the trace context in _meta, run as the current one, and the request log;
  //    told what the steps below learn, reported once with the reply (request-observer.ts).
  let observed: RequestObservation;
  try {
    observed = core.observer.begin(request, channel);
  } catch (error) {
    return Promise.reject(error); // a telemetry SDK that throws fails the request as it did when this was async
  }
  // Unobserved, the answer's own promise is the reply: no async layer of this function's own.
  return observed.observe(() => answerObserved(core, request, channel, observed));
}

async function answerObserved(core: ServerCore, request: JsonRpcRequest, channel: RequestChannel, observed: RequestObservation): Promise<Reply> {
  // era: an extension may answer a request of another era itself (a 2025-11-25 session: legacy/era.ts).
  for (const extension of core.routes) {
    const reply = extension.route!(request, channel);
    if (reply) {
      observed.routed();
      return reply;
    }
  }

  let admitted;
  let round: Round | undefined;
  try {
    // gates: gates.ts, then each extension's admission (e.g. a task-only tool without the Tasks extension: -32021).
    admitted = passGates(request, channel, core);
    core.admit(admitted);
    // open: for the three methods that may ask: open the retry before any handler code runs
    //    (inputResponses, requestState sealed and bound to this caller and request, single use; nothing runs for
    //    a caller that went away meanwhile) (mrtr/input-rounds.ts).
    if (INPUT_REQUIRED_METHODS.has(request.method)) {
      // Only a request that came over HTTP (it has headers) may see its retry go to another instance.
      const opening = core.rounds.open(request, channel.principal, admitted.meta.clientCapabilities, core.singleUse(admitted), channel.header !== undefined, channel);
      round = opening instanceof Promise ? await opening : opening;
      observed.opened(round);
      // A replay of a round that ran a ctx.once step gets the answer that round gave, without running it again.
      if (round.replayed) return { message: resultResponse(request.id, finishResult(request.method, round.replayed, core.identity)) };
    }
  } catch (error) {
    observed.failed(error);
    return core.errorReply(request, error);
  }

  // run: the handler's context, with the interaction it asks through already in it (context.ts). A handler that
  //    declared it may ask what this request did not declare gets its notifications held (held-notifications.ts).
  const asks = core.asksOf(admitted);
  const held = asks && channel.canNotify && missingForKinds(asks, admitted.meta.clientCapabilities).length > 0 ? holdNotifications(channel) : undefined;
  const handlerChannel = held?.channel ?? channel;
  const ctx = core.context(request, handlerChannel, admitted.meta, round?.interaction);
  try {
    // …then the method (methods.ts): for the three that may ask, until it finishes or waits on nothing but unanswered questions (mrtr/replay.ts).
    const running = admitted.handler(request, ctx, handlerChannel, admitted);
    let result: Result;
    if (round) {
      const outcome = await round.interaction.settle(running);
      if (outcome === STUCK) ctx.end('The round ended waiting for input');
      // conclude: seal or finish — unanswered questions go out as input_required with fresh state…
      const concluding = core.rounds.conclude(round, outcome, observed.link);
      result = concluding instanceof Promise ? await concluding : concluding;
    } else {
      result = await running;
    }
    // …and a result gets its resultType and the server's identity.
    const reply = { message: resultResponse(request.id, finishResult(request.method, result, core.identity)) };
    held?.release();
    return reply;
  } catch (error) {
    // A -32021 must travel on HTTP 400, before any stream: what was held is dropped.
    if (error instanceof McpError && error.code === ErrorCode.MissingRequiredClientCapability) held?.drop();
    else held?.release();
    observed.failed(error);
    return core.errorReply(request, error);
  } finally {
    ctx.finish();
  }
}
