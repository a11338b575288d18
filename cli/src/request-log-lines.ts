/**
 * `tessera serve --log [text|json|wire]`: the server's request log on stderr
 * (stdout may carry MCP). `text` is one line a person reads; `json` one JSON
 * object per line for a log pipeline; `wire` the same with each request's
 * arguments, answers and result — a trace of what crossed the wire, for
 * debugging (it may show personal data; never the default).
 */

import type { RequestLog, RequestLogEntry } from 'tessera-mcp';

export const LOG_FORMATS = ['text', 'json', 'wire'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** One line a person reads: time, what was called, how it ended, how long it took, the flow and the caller. */
export function textLine(entry: RequestLogEntry): string {
  const parts = [entry.time.slice(11, 23), entry.name === undefined ? entry.method : `${entry.method} ${entry.name}`];
  parts.push(entry.status === 'error' ? `error ${entry.errorCode}` : entry.toolError ? 'complete (tool error)' : entry.status);
  parts.push(`${entry.durationMs.toFixed(1)} ms`);
  if (entry.era === 'legacy') parts.push(`[${entry.protocolVersion ?? '2025'}]`);
  if (entry.flowId !== undefined) parts.push(`flow ${entry.flowId} round ${entry.round}`);
  if (entry.stateBytes !== undefined) parts.push(`state ${entry.stateBytes} B`);
  if (entry.onceSteps) parts.push(`once ${entry.onceSteps.join(',')}`);
  if (entry.rejectedState !== undefined) parts.push(`state refused: ${entry.rejectedState}`);
  if (entry.principal !== undefined) parts.push(`by ${entry.principal}`);
  return parts.join('  ');
}

export function requestLogFor(format: LogFormat, write: (line: string) => void): RequestLog {
  if (format === 'text') return { write: (entry) => write(textLine(entry)) };
  return { write: (entry) => write(JSON.stringify(entry)), ...(format === 'wire' ? { include: ['arguments', 'answers', 'result'] as const } : {}) };
}
