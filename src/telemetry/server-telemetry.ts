/**
 * The server's spans and metrics. One SERVER span per request, named and
 * attributed as the MCP conventions say, its parent the trace context in the
 * request's `_meta` (the client's span), linked to the ambient context (an
 * HTTP server span, when the app instruments HTTP) and to the previous round
 * of its flow. Metrics: the conventions' operation duration (by method and
 * outcome), rounds per flow, sealed state size, refused states by reason,
 * task status changes.
 */

import { context as contexts, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Counter, type Histogram, type Span } from '@opentelemetry/api';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { linkFrom, linkToken } from './flow-link.js';
import { requestAttributes, spanName } from './request-attributes.js';
import {
  ATTR_ERA,
  ATTR_ERROR_TYPE,
  ATTR_FLOW_ID,
  ATTR_FLOW_ROUND,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_ONCE_STEPS,
  ATTR_RESULT_TYPE,
  ATTR_RPC_RESPONSE_STATUS,
  ATTR_STATE_BYTES,
  ATTR_STATE_REJECTION,
  ATTR_TASK_STATUS,
  DURATION_BUCKETS,
  ERROR_TOOL,
  METRIC_FLOW_ROUNDS,
  METRIC_SERVER_DURATION,
  METRIC_STATE_REJECTED,
  METRIC_STATE_SIZE,
  METRIC_TASK_STATUS,
} from './semantic-conventions.js';
import { records, TelemetrySource, withSpan } from './telemetry-options.js';
import { carriesTraceContext, contextFromMeta } from './trace-context.js';

/** What came of a request, as the server saw it. */
export interface ServedRequest {
  era: 'modern' | 'legacy';
  protocolVersion?: string | undefined;
  sessionId?: string | undefined;
  /** The result's resultType; absent for an error. */
  resultType?: string | undefined;
  /** A tool result with `isError: true`. */
  toolError?: boolean;
  error?: { code: number; message: string } | undefined;
  /** The flow this round belongs to (multi round-trip methods, once a flow id exists). */
  flow?: { id: string; round: number; previous?: string | undefined } | undefined;
  /** The flow ended with this request (not input_required): how many rounds it took. */
  flowRounds?: number | undefined;
  stateBytes?: number | undefined;
  rejection?: string | undefined;
  onceSteps?: readonly string[] | undefined;
}

interface ServerInstruments {
  duration: Histogram;
  rounds: Histogram;
  stateSize: Histogram;
  rejected: Counter;
  tasks: Counter;
  /** False when the meter is the API's no-op one (no SDK): nothing is recorded, so no attributes are built. */
  live: boolean;
}

export class ServerTelemetry {
  private made: ServerInstruments | undefined;

  constructor(readonly source: TelemetrySource) {}

  /** Made on first use (see TelemetrySource.meter). */
  get instruments(): ServerInstruments {
    if (this.made) return this.made;
    const meter = this.source.meter;
    const duration = meter.createHistogram(METRIC_SERVER_DURATION, {
      unit: 's',
      description: 'MCP request duration as observed on the server',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.made = {
      duration,
      rounds: meter.createHistogram(METRIC_FLOW_ROUNDS, {
        unit: '{round}',
        description: 'Rounds a multi round-trip call took, recorded by the round that ended it',
        advice: { explicitBucketBoundaries: [1, 2, 3, 4, 5, 6, 8, 10] },
      }),
      stateSize: meter.createHistogram(METRIC_STATE_SIZE, {
        unit: 'By',
        description: 'Size of each sealed requestState',
        advice: { explicitBucketBoundaries: [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536] },
      }),
      rejected: meter.createCounter(METRIC_STATE_REJECTED, { unit: '{state}', description: 'requestStates refused, by reason' }),
      tasks: meter.createCounter(METRIC_TASK_STATUS, { unit: '{change}', description: 'Tasks entering each status' }),
      live: records(duration),
    };
    return this.made;
  }

  /**
   * The request's span, or undefined when it could change nothing: no tracer
   * can record, no metric records, and the request carries no trace context
   * to pass on (a non-recording span would still carry an incoming one to
   * the handler's own calls). Most servers run without an SDK; for them this
   * is the whole cost of telemetry.
   */
  start(request: JsonRpcRequest): ServerSpan | undefined {
    if (!this.instruments.live && !carriesTraceContext(request.params?._meta) && this.source.tracesNothing) return undefined;
    return new ServerSpan(this, request);
  }

  taskStatus(status: string): void {
    this.instruments.tasks.add(1, { [ATTR_TASK_STATUS]: status });
  }
}

export class ServerSpan {
  /** The context the request runs in: spans the handler makes are children of this one. */
  readonly context: Context;
  /**
   * Whether ending this span does anything: it records, or metrics are
   * recorded. Without an OpenTelemetry SDK neither holds, and the request
   * path skips describing the request to it.
   */
  readonly observed: boolean;
  private readonly span: Span;
  private readonly startedAt: number;

  constructor(
    private readonly telemetry: ServerTelemetry,
    private readonly request: JsonRpcRequest,
  ) {
    const ambient = contexts.active();
    const parent = contextFromMeta(telemetry.source.propagator, request.params?._meta, ambient);
    const ambientSpan = trace.getSpanContext(ambient);
    // The client's span is the parent; the transport's (an HTTP span), when there is one, is a link.
    const links = ambientSpan && parent !== ambient && trace.getSpanContext(parent) !== ambientSpan ? [{ context: ambientSpan }] : [];
    this.span = telemetry.source.tracer.startSpan(spanName(request.method, request.params), { kind: SpanKind.SERVER, links }, parent);
    this.context = withSpan(parent, this.span);
    const metrics = telemetry.instruments.live;
    this.observed = this.span.isRecording() || metrics;
    this.startedAt = metrics ? performance.now() : 0;
  }

  /** What the next state of this flow carries to link back to this round (undefined unless sampled). */
  get linkToken(): string | undefined {
    return linkToken(this.span.spanContext());
  }

  end(served: ServedRequest): void {
    const method = this.request.method;
    const errorType = served.error ? String(served.error.code) : served.toolError ? ERROR_TOOL : undefined;
    const outcome: Attributes = { [ATTR_ERA]: served.era };
    if (served.protocolVersion !== undefined) outcome[ATTR_MCP_PROTOCOL_VERSION] = served.protocolVersion;
    if (served.resultType !== undefined) outcome[ATTR_RESULT_TYPE] = served.resultType;
    if (errorType !== undefined) outcome[ATTR_ERROR_TYPE] = errorType;
    if (served.error) outcome[ATTR_RPC_RESPONSE_STATUS] = String(served.error.code);

    if (this.span.isRecording()) {
      this.span.setAttributes(requestAttributes(method, this.request.params, true));
      this.span.setAttributes(outcome);
      this.span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(this.request.id));
      if (served.sessionId !== undefined) this.span.setAttribute(ATTR_MCP_SESSION_ID, served.sessionId);
      if (served.flow) {
        this.span.setAttribute(ATTR_FLOW_ID, served.flow.id);
        this.span.setAttribute(ATTR_FLOW_ROUND, served.flow.round);
        const previous = linkFrom(served.flow.previous);
        if (previous) this.span.addLink(previous);
      }
      if (served.stateBytes !== undefined) this.span.setAttribute(ATTR_STATE_BYTES, served.stateBytes);
      if (served.rejection !== undefined) this.span.setAttribute(ATTR_STATE_REJECTION, served.rejection);
      if (served.onceSteps && served.onceSteps.length > 0) this.span.setAttribute(ATTR_ONCE_STEPS, [...served.onceSteps]);
      if (served.error) this.span.setStatus({ code: SpanStatusCode.ERROR, message: served.error.message });
      else if (served.toolError) this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();

    const instruments = this.telemetry.instruments;
    if (!instruments.live) return;
    instruments.duration.record((performance.now() - this.startedAt) / 1000, { ...requestAttributes(method, this.request.params, false), ...outcome });
    if (served.flowRounds !== undefined) instruments.rounds.record(served.flowRounds, { [ATTR_MCP_METHOD]: method });
    if (served.stateBytes !== undefined) instruments.stateSize.record(served.stateBytes, { [ATTR_MCP_METHOD]: method });
    if (served.rejection !== undefined) instruments.rejected.add(1, { [ATTR_STATE_REJECTION]: served.rejection });
  }
}
