/**
 * Where spans and metrics go. Tessera depends on `@opentelemetry/api` only:
 * without an SDK every span and instrument is a no-op. By default the global
 * providers and propagator are used (what an SDK registers); tests and apps
 * with several pipelines hand their own in.
 */

import { createNoopMeter, INVALID_SPAN_CONTEXT, isSpanContextValid, metrics, propagation, ProxyTracerProvider, trace, type Context, type Histogram, type Meter, type MeterProvider, type Span, type TextMapPropagator, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { INSTRUMENTATION_SCOPE } from './semantic-conventions.js';

export interface TelemetryOptions {
  /** Default: the global tracer provider. */
  tracerProvider?: TracerProvider;
  /** Default: the global meter provider. */
  meterProvider?: MeterProvider;
  /** How trace context is written into and read from `_meta` (default: the global propagator, W3C Trace Context with the SDK's defaults). */
  propagator?: TextMapPropagator;
}

/** The tracer, meter and propagator of one server or client, resolved when first used. */
export class TelemetrySource {
  private tracerInUse: Tracer | undefined;
  private meterInUse: Meter | undefined;

  constructor(private readonly options: TelemetryOptions = {}) {}

  get tracer(): Tracer {
    this.tracerInUse ??= (this.options.tracerProvider ?? trace).getTracer(INSTRUMENTATION_SCOPE);
    return this.tracerInUse;
  }

  /**
   * Taken at first use, not at construction: the global meter API has no
   * proxy, so a meter taken before the app registers its SDK would stay a no-op.
   */
  get meter(): Meter {
    this.meterInUse ??= (this.options.meterProvider ?? metrics).getMeter(INSTRUMENTATION_SCOPE);
    return this.meterInUse;
  }

  get propagator(): TextMapPropagator {
    return this.options.propagator ?? propagation;
  }

  /**
   * True while no tracer can record: none was handed in and no SDK has
   * registered a global one (the API then answers with its own proxy, which
   * has no delegate yet). Asked on every request, so an SDK registered later
   * is seen from its next request on.
   */
  get tracesNothing(): boolean {
    if (this.options.tracerProvider) return false;
    const provider = trace.getTracerProvider();
    return provider instanceof ProxyTracerProvider && provider.getDelegateTracer(INSTRUMENTATION_SCOPE) === undefined;
  }
}

/** The class of the API's no-op histogram, to tell a meter without an SDK behind it. */
const NOOP_HISTOGRAM = createNoopMeter().createHistogram('tessera.noop').constructor;

/** Whether `histogram` records anything: false for the API's no-op one (no SDK), so its attributes need not be built. */
export function records(histogram: Histogram): boolean {
  return histogram.constructor !== NOOP_HISTOGRAM;
}

/**
 * `parent` with `span` current, or `parent` itself when the span neither
 * records nor carries a valid context (no SDK and no incoming trace): such a
 * span adds nothing to propagate, and a context is not made for it.
 */
export function withSpan(parent: Context, span: Span): Context {
  const spanContext = span.spanContext();
  const carries = span.isRecording() || (spanContext !== INVALID_SPAN_CONTEXT && isSpanContextValid(spanContext));
  return carries ? trace.setSpan(parent, span) : parent;
}
