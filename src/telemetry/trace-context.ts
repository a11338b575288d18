/**
 * Trace context in `params._meta`: the spec reserves `traceparent`,
 * `tracestate` and `baggage` there (unprefixed, W3C formats). The propagator
 * writes and reads them; only those three keys ever leave or enter `_meta`,
 * whatever else a propagator would write.
 */

import type { Context, TextMapGetter, TextMapPropagator, TextMapSetter } from '@opentelemetry/api';
import { isObject } from '../protocol/guards.js';

export const TRACE_META_KEYS: readonly string[] = ['traceparent', 'tracestate', 'baggage'];

const setter: TextMapSetter<Record<string, string>> = {
  set(carrier, key, value) {
    if (TRACE_META_KEYS.includes(key)) carrier[key] = value;
  },
};

const getter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => TRACE_META_KEYS.filter((key) => typeof carrier[key] === 'string'),
  get(carrier, key) {
    const value = carrier[key];
    return typeof value === 'string' && TRACE_META_KEYS.includes(key) ? value : undefined;
  },
};

/** The trace-context keys for `_meta` that carry `context`; undefined when the propagator writes none. */
export function traceMeta(propagator: TextMapPropagator, context: Context): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagator.inject(context, carrier, setter);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** Whether a request's `_meta` has any of the trace-context keys. */
export function carriesTraceContext(meta: unknown): meta is Record<string, unknown> {
  if (!isObject(meta)) return false;
  for (const key of TRACE_META_KEYS) if (key in meta) return true;
  return false;
}

/** `base` with the trace context a request's `_meta` carries (untrusted: a malformed value is ignored by the propagator). */
export function contextFromMeta(propagator: TextMapPropagator, meta: unknown, base: Context): Context {
  return carriesTraceContext(meta) ? propagator.extract(base, meta, getter) : base;
}
