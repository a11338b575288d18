/**
 * The link from one round of a flow to the round before it. Rounds are
 * separate requests, perhaps on other instances, and the server keeps nothing
 * between them, so the span context of a round travels to the next inside the
 * sealed requestState: 48 hex digits (trace id and span id), and only when the
 * round's span is sampled — with tracing off the state does not grow.
 */

import { TraceFlags, isSpanContextValid, type Link, type SpanContext } from '@opentelemetry/api';

/** What to seal for the next round to link back to `context`; undefined when it is not sampled. */
export function linkToken(context: SpanContext): string | undefined {
  // The flag first: an unsampled span (all of them without an SDK) needs no validity check.
  if ((context.traceFlags & TraceFlags.SAMPLED) === 0 || !isSpanContextValid(context)) return undefined;
  return `${context.traceId}${context.spanId}`;
}

/** The link a token describes; undefined for anything that is not one (the state is trusted, but may be old). */
export function linkFrom(token: unknown): Link | undefined {
  if (typeof token !== 'string' || !/^[0-9a-f]{48}$/.test(token)) return undefined;
  const context: SpanContext = { traceId: token.slice(0, 32), spanId: token.slice(32), traceFlags: TraceFlags.SAMPLED, isRemote: true };
  return isSpanContextValid(context) ? { context } : undefined;
}
