/**
 * Watching each request from arrival to reply, for the two things that look
 * on: OpenTelemetry (a span, metrics — telemetry/server-telemetry.ts) and
 * the request logs (request-log.ts). One wrapper around the request path:
 * the path writes what it learns on the way into its record (the era, the
 * round it opened, the error it failed with); at the end the observation
 * reads the record and the reply and reports once to both.
 */

import { context as contexts } from '@opentelemetry/api';
import { RejectedStateError, type Flow, type Round } from '../mrtr/input-rounds.js';
import type { Reply, RequestChannel } from '../protocol/channel.js';
import { isObject } from '../protocol/guards.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { META_PROTOCOL_VERSION } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import { ServerTelemetry, type ServedRequest, type ServerSpan } from '../telemetry/server-telemetry.js';
import { targetOf } from '../telemetry/request-attributes.js';
import { TelemetrySource, type TelemetryOptions } from '../telemetry/telemetry-options.js';
import type { ServerLogger } from './options.js';
import type { RequestLog, RequestLogEntry } from './request-log.js';

export class RequestObserver {
  private readonly logs: RequestLog[] = [];
  private readonly telemetry: ServerTelemetry | undefined;

  constructor(
    telemetry: TelemetryOptions | false | undefined,
    log: RequestLog | undefined,
    private readonly logger: ServerLogger,
  ) {
    this.telemetry = telemetry === false ? undefined : new ServerTelemetry(new TelemetrySource(telemetry));
    if (log) this.logs.push(log);
  }

  /** Adds a request log; returns the function that removes it again. */
  addLog(log: RequestLog): () => void {
    this.logs.push(log);
    return () => {
      const at = this.logs.indexOf(log);
      if (at >= 0) this.logs.splice(at, 1);
    };
  }

  /**
   * Runs the request path (`answer`) observed: with its span current (spans the handler makes are its children),
   * then reports its reply with what the path recorded. Unobserved (no span, no log), the path's own promise is
   * the reply: no async layer of this one's own.
   */
  observe(request: JsonRpcRequest, channel: RequestChannel, answer: (record: PathRecord) => Promise<Reply>): Promise<Reply> {
    let span: ServerSpan | undefined;
    try {
      span = this.telemetry?.start(request);
    } catch (error) {
      return Promise.reject(error); // a telemetry SDK that throws fails the request
    }
    if (!span && this.logs.length === 0) return answer(pathRecord(undefined));
    return new Observation(request, channel, span, [...this.logs], this.logger).observe(answer);
  }

  /** A task entered `status` (the Tasks extension reports its store's transitions here). */
  taskStatus(status: string): void {
    this.telemetry?.taskStatus(status);
  }
}

/** What the request path learns on the way, written by the path and read once by the observation at its end. */
export interface PathRecord {
  /** Another era took the request (the era step). */
  era: 'modern' | 'legacy';
  /** The round the open step opened: the log and span report its flow. */
  round: Round | undefined;
  /** The flow the conclude step reported (a first round that sealed a state started it). */
  flow: Flow | undefined;
  /** What the request failed with (before or after its handler ran). */
  error: unknown;
  /** What the state this request seals carries to link the next round's span to this one (undefined: no link, nothing traced). */
  readonly link: string | undefined;
}

/** A fresh record: plain data, every field present from the start (one shape for V8). */
function pathRecord(span: ServerSpan | undefined): PathRecord {
  return { era: 'modern', round: undefined, flow: undefined, error: undefined, link: span?.linkToken };
}

class Observation {
  private readonly record: PathRecord;
  // Read only by the logs: without one, no clock is read for them.
  private readonly startedAt: number;
  private readonly arrived: number;

  constructor(
    private readonly request: JsonRpcRequest,
    private readonly channel: RequestChannel,
    private readonly span: ServerSpan | undefined,
    private readonly logs: readonly RequestLog[],
    private readonly logger: ServerLogger,
  ) {
    const logged = logs.length > 0;
    this.startedAt = logged ? performance.now() : 0;
    this.arrived = logged ? Date.now() : 0;
    this.record = pathRecord(span);
  }

  async observe(answer: (record: PathRecord) => Promise<Reply>): Promise<Reply> {
    const run = (): Promise<Reply> => answer(this.record);
    // A span that changed nothing in the context (see ServerSpan) needs no switch to it.
    const reply = await (this.span && this.span.context !== contexts.active() ? contexts.with(this.span.context, run) : run());
    this.end(reply);
    return reply;
  }

  private end(reply: Reply): void {
    // Nothing to tell (no SDK behind the span and metrics, no log): the reply is not even read.
    if (!this.span?.observed && this.logs.length === 0) return;
    const served = this.served(reply);
    this.span?.end(served);
    if (this.logs.length > 0) this.writeLogs(served, reply);
  }

  private served(reply: Reply): ServedRequest {
    const message = reply.message;
    const params = this.request.params;
    const meta = params?._meta;
    const declared = isObject(meta) && typeof meta[META_PROTOCOL_VERSION] === 'string' ? meta[META_PROTOCOL_VERSION] : undefined;
    const served: ServedRequest = {
      era: this.record.era,
      protocolVersion: declared ?? this.channel.header?.('mcp-protocol-version') ?? (this.request.method === 'initialize' && typeof params?.protocolVersion === 'string' ? params.protocolVersion : undefined),
      sessionId: this.record.era === 'legacy' ? this.channel.header?.('mcp-session-id') : undefined,
    };
    if ('error' in message) {
      served.error = { code: message.error.code, message: message.error.message };
      if (this.record.error instanceof RejectedStateError) served.rejection = this.record.error.rejection;
    } else {
      const result = message.result;
      served.resultType = typeof result.resultType === 'string' ? result.resultType : 'complete';
      if (this.request.method === Method.ToolsCall && result.isError === true) served.toolError = true;
      if (served.resultType === 'input_required' && typeof result.requestState === 'string') served.stateBytes = result.requestState.length;
    }
    const round = this.record.round;
    if (round) {
      const flow = this.record.flow ?? round.flow;
      served.flow = flow;
      if (served.resultType !== 'input_required') served.flowRounds = flow?.round ?? 1;
      served.onceSteps = round.interaction.onceRan;
    }
    return served;
  }

  private writeLogs(served: ServedRequest, reply: Reply): void {
    const params = this.request.params ?? {};
    const entry: RequestLogEntry = {
      time: new Date(this.arrived).toISOString(),
      requestId: this.request.id,
      method: this.request.method,
      era: served.era,
      status: served.error ? 'error' : ((served.resultType ?? 'complete') as RequestLogEntry['status']),
      durationMs: Math.round((performance.now() - this.startedAt) * 1000) / 1000,
    };
    const name = targetOf(this.request.method, params);
    if (name !== undefined) entry.name = name;
    if (served.protocolVersion !== undefined) entry.protocolVersion = served.protocolVersion;
    if (served.error) entry.errorCode = served.error.code;
    if (served.toolError) entry.toolError = true;
    if (served.flow) {
      entry.flowId = served.flow.id;
      entry.round = served.flow.round;
    } else if (this.record.round) {
      entry.round = 1;
    }
    if (this.channel.principal !== undefined) entry.principal = this.channel.principal;
    if (served.stateBytes !== undefined) entry.stateBytes = served.stateBytes;
    if (served.rejection !== undefined) entry.rejectedState = served.rejection as RequestLogEntry['rejectedState'];
    if (served.onceSteps && served.onceSteps.length > 0) entry.onceSteps = [...served.onceSteps];
    for (const log of this.logs) {
      const include = log.include ?? [];
      const written = include.length === 0 ? entry : { ...entry };
      if (include.includes('arguments') && params.arguments !== undefined) written.arguments = params.arguments;
      if (include.includes('answers') && params.inputResponses !== undefined) written.answers = params.inputResponses;
      if (include.includes('result')) written.result = 'error' in reply.message ? reply.message.error : reply.message.result;
      try {
        log.write(written);
      } catch (error) {
        this.logger.error('A request log failed to write an entry', error);
      }
    }
  }
}
