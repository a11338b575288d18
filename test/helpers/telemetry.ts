/** OpenTelemetry SDK pieces for tests: spans into an in-memory exporter, metrics read on demand, the W3C propagator. */

import type { Attributes } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { TelemetryOptions } from '../../src/index.js';

export const propagator = new W3CTraceContextPropagator();

export interface Tracing {
  /** For the `telemetry` option of a server or client. */
  options: TelemetryOptions;
  spans(): ReadableSpan[];
}

/** A tracer provider of its own (no global registration), exporting every span as it ends. */
export function tracing(): Tracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { options: { tracerProvider: provider, propagator }, spans: () => exporter.getFinishedSpans() };
}

class OnDemandReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export interface Metrics {
  options: TelemetryOptions;
  /** The data points of one metric as collected now (cumulative). */
  points(name: string): Promise<Array<DataPoint<number | Histogram>>>;
}

export function metrics(): Metrics {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });
  return {
    options: { meterProvider: provider },
    async points(name) {
      const { resourceMetrics } = await reader.collect();
      const found = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).filter((metric) => metric.descriptor.name === name);
      return found.flatMap((metric) => metric.dataPoints as Array<DataPoint<number | Histogram>>);
    },
  };
}

/** A data point's value as a count: a counter's sum, or a histogram's count. */
export function countOf(point: DataPoint<number | Histogram>): number {
  return typeof point.value === 'number' ? point.value : point.value.count;
}

/** The points whose attributes include `match`. */
export function matching<P extends { attributes: Attributes }>(points: P[], match: Attributes): P[] {
  return points.filter((point) => Object.entries(match).every(([key, value]) => point.attributes[key] === value));
}
