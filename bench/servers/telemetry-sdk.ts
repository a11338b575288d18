/**
 * `--telemetry` for the Tessera benchmark server: the OpenTelemetry SDK as an
 * app installs it, so the tracing overhead rows measure what users would
 * get — every request traced (always-on sampling), spans exported one by one
 * to an in-memory exporter (emptied every second so the heap stays flat),
 * metrics on with an in-memory exporter read every second, W3C propagation
 * and the AsyncLocalStorage context manager registered globally.
 */

import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

export function installTelemetrySdk(): void {
  const spans = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  const points = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: points, exportIntervalMillis: 1000 })] }));
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  setInterval(() => {
    spans.reset();
    points.reset();
  }, 1000).unref();
}
