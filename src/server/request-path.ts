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
import type { Result } from '../protocol/types.js';
import { Replayed, STUCK } from '../mrtr/replay.js';
import type { Round } from '../mrtr/input-rounds.js';
import type { ServerCore } from './core.js';
import { passGates } from './gates.js';
import { holdNotifications } from './held-notifications.js';
import type { PathRecord } from './request-observer.js';
import { finishResult } from './results.js';

export function answerRequest(core: ServerCore, request: JsonRpcRequest, channel: RequestChannel): Promise<Reply> {
  // Observation is not a step: it wraps them all (a span whose parent is the trace context in _meta, run as the
  // current one, and the request log), and reports once with the reply what the steps wrote in `record`.
  return core.observer.observe(request, channel, (record) => answerObserved(core, request, channel, record));
}

async function answerObserved(core: ServerCore, request: JsonRpcRequest, channel: RequestChannel, record: PathRecord): Promise<Reply> {
  // era: an extension may answer a request of another era itself (a 2025-11-25 session: legacy/era.ts).
  for (const extension of core.routes) {
    const reply = extension.route!(request, channel);
    if (reply) {
      record.era = 'legacy';
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
    if (admitted.round) {
      // Only a request that came over HTTP (it has headers) may see its retry go to another instance.
      const opening = core.rounds.open(admitted.round, channel.principal, admitted.meta.clientCapabilities, core.singleUse(admitted), channel.header !== undefined, channel);
      round = opening instanceof Promise ? await opening : opening;
      record.round = round;
    }
  } catch (error) {
    record.error = error;
    return core.errorReply(request, error);
  }

  // run: the handler's context, with the interaction it asks through already in it (context.ts). A handler that
  //    declared it may ask what this request did not declare gets its notifications held (held-notifications.ts).
  const asks = admitted.asks;
  const held = asks && channel.canNotify && missingForKinds(asks, admitted.meta.clientCapabilities).length > 0 ? holdNotifications(channel) : undefined;
  const handlerChannel = held?.channel ?? channel;
  const ctx = core.context(request, handlerChannel, admitted.meta, round?.interaction);
  try {
    // …then the method (methods.ts): for the three that may ask, until it finishes or waits on nothing but unanswered questions (mrtr/replay.ts).
    const running = admitted.handler(admitted, ctx, handlerChannel);
    let result: Result;
    if (round) {
      const outcome = await round.interaction.settle(running);
      if (outcome === STUCK) ctx.end('The round ended waiting for input');
      // A replay of a round that ran a ctx.once step gets the answer that round gave: the step does not run again.
      else if (outcome instanceof Replayed) ctx.end('The round was answered before');
      // conclude: seal or finish — unanswered questions go out as input_required with fresh state…
      const concluding = core.rounds.conclude(round, outcome, record.link);
      const concluded = concluding instanceof Promise ? await concluding : concluding;
      record.flow = concluded.flow;
      result = concluded.result;
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
    record.error = error;
    return core.errorReply(request, error);
  } finally {
    ctx.finish();
  }
}
