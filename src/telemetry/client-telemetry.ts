/**
 * The client's spans and metrics: a CLIENT span for every request it sends
 * (each round of a flow is one), whose context goes to the server in
 * `_meta` (traceparent), and an INTERNAL span over a whole multi round-trip
 * call, the parent of its rounds. Metric: the conventions' client operation
 * duration.
 */

import { context as contexts, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Histogram, type Span } from '@opentelemetry/api';
import type { JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import { requestAttributes, spanName } from './request-attributes.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_FLOW_ROUND,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT,
  ATTR_RESULT_TYPE,
  ATTR_RPC_RESPONSE_STATUS,
  DURATION_BUCKETS,
  ERROR_TOOL,
  METRIC_CLIENT_DURATION,
} from './semantic-conventions.js';
import { records, TelemetrySource, withSpan } from './telemetry-options.js';
import { traceMeta } from './trace-context.js';

/** How the conventions name the transport under MCP (`network.transport`). */
const NETWORK_TRANSPORT: Record<string, string> = { http: 'tcp', stdio: 'pipe' };

export class ClientTelemetry {
  private duration: Histogram | undefined;

  constructor(readonly source: TelemetrySource) {}

  private get durations(): Histogram {
    this.duration ??= this.source.meter.createHistogram(METRIC_CLIENT_DURATION, {
      unit: 's',
      description: 'MCP request duration as observed on the client',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    return this.duration;
  }

  /** Whether durations are recorded (false without a metrics SDK: then nothing is measured or described for them). */
  get measures(): boolean {
    return records(this.durations);
  }

  /** The span over a multi round-trip call, from its first request to its result. */
  call(method: string, params: Record<string, unknown>): ClientCallSpan {
    const parent = contexts.active();
    const span = this.source.tracer.startSpan(spanName(method, params), { kind: SpanKind.INTERNAL }, parent);
    if (span.isRecording()) span.setAttributes(requestAttributes(method, params, true));
    return new ClientCallSpan(span, withSpan(parent, span));
  }

  /** The span of one request, under `parent` (a call's context, or the active one). */
  request(method: string, params: Record<string, unknown>, parent: Context, round: number | undefined): ClientRequestSpan {
    const span = this.source.tracer.startSpan(spanName(method, params), { kind: SpanKind.CLIENT }, parent);
    return new ClientRequestSpan(this, span, withSpan(parent, span), method, params, round);
  }

  recordDuration(seconds: number, attributes: Attributes): void {
    this.durations.record(seconds, attributes);
  }
}

export class ClientCallSpan {
  private rounds = 0;

  constructor(
    private readonly span: Span,
    /** The context the call's requests are made in. */
    readonly context: Context,
  ) {}

  /** The call went on to another round. */
  nextRound(): void {
    this.rounds++;
  }

  end(error?: unknown): void {
    if (this.span.isRecording()) {
      this.span.setAttribute(ATTR_FLOW_ROUND, this.rounds + 1);
      if (error !== undefined) this.span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    }
    this.span.end();
  }
}

export class ClientRequestSpan {
  private readonly startedAt: number;
  private readonly measured: boolean;

  constructor(
    private readonly telemetry: ClientTelemetry,
    private readonly span: Span,
    private readonly context: Context,
    private readonly method: string,
    private readonly params: Record<string, unknown>,
    private readonly round: number | undefined,
  ) {
    this.measured = telemetry.measures;
    this.startedAt = this.measured ? performance.now() : 0;
  }

  /** The trace-context keys the request's `_meta` carries (undefined when the propagator writes none). */
  traceMeta(): Record<string, string> | undefined {
    return traceMeta(this.telemetry.source.propagator, this.context);
  }

  /** The request went out as `message` on a transport of this kind, in this protocol version. */
  sent(message: JsonRpcRequest, transport: string, protocolVersion: string | undefined): void {
    if (!this.span.isRecording()) return;
    this.span.setAttributes(requestAttributes(this.method, this.params, true));
    this.span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(message.id));
    if (protocolVersion !== undefined) this.span.setAttribute(ATTR_MCP_PROTOCOL_VERSION, protocolVersion);
    const network = NETWORK_TRANSPORT[transport];
    if (network !== undefined) this.span.setAttribute(ATTR_NETWORK_TRANSPORT, network);
    if (this.round !== undefined) this.span.setAttribute(ATTR_FLOW_ROUND, this.round);
  }

  /** The response, or the failure that left none (a transport error, a timeout). */
  end(outcome: { response: JsonRpcResponse } | { failure: unknown }, protocolVersion: string | undefined): void {
    // Without an SDK nothing below would be kept: the outcome is not even described.
    if (!this.measured && !this.span.isRecording()) {
      this.span.end();
      return;
    }
    const attributes: Attributes = requestAttributes(this.method, this.params, false);
    if (protocolVersion !== undefined) attributes[ATTR_MCP_PROTOCOL_VERSION] = protocolVersion;
    let status: { code: SpanStatusCode; message?: string } | undefined;
    if ('failure' in outcome) {
      const failure = outcome.failure;
      attributes[ATTR_ERROR_TYPE] = failure instanceof Error ? failure.name : '_OTHER';
      status = { code: SpanStatusCode.ERROR, message: failure instanceof Error ? failure.message : String(failure) };
    } else if ('error' in outcome.response) {
      const error = outcome.response.error;
      attributes[ATTR_ERROR_TYPE] = String(error?.code);
      attributes[ATTR_RPC_RESPONSE_STATUS] = String(error?.code);
      status = { code: SpanStatusCode.ERROR, message: String(error?.message ?? '') };
    } else {
      const result = outcome.response.result as Record<string, unknown> | undefined;
      attributes[ATTR_RESULT_TYPE] = typeof result?.resultType === 'string' ? result.resultType : 'complete';
      if (result?.isError === true) {
        attributes[ATTR_ERROR_TYPE] = ERROR_TOOL;
        status = { code: SpanStatusCode.ERROR };
      }
    }
    if (this.span.isRecording()) {
      this.span.setAttributes(attributes);
      if (status) this.span.setStatus(status);
    }
    this.span.end();
    if (this.measured) this.telemetry.recordDuration((performance.now() - this.startedAt) / 1000, attributes);
  }
}
