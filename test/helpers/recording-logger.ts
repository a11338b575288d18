/** A server logger that records what the server reports, so tests can check what went to the log and not to the client. */

import type { ServerLogger } from '../../src/index.js';

export interface RecordingLogger extends ServerLogger {
  readonly warns: string[];
  readonly errors: Array<{ message: string; detail: unknown }>;
  /** Every recorded line, warnings and errors, with error details flattened to text. */
  text(): string;
}

function describe(detail: unknown): string {
  if (detail instanceof Error) return `${detail.name}: ${detail.message}`;
  if (detail === undefined) return '';
  try {
    return JSON.stringify(detail);
  } catch {
    return String(detail);
  }
}

export function recordingLogger(): RecordingLogger {
  const warns: string[] = [];
  const errors: Array<{ message: string; detail: unknown }> = [];
  return {
    warns,
    errors,
    warn: (message, detail) => void warns.push(detail === undefined ? message : `${message} ${describe(detail)}`),
    error: (message, detail) => void errors.push({ message, detail }),
    text: () => [...warns, ...errors.map((e) => `${e.message} ${describe(e.detail)}`)].join('\n'),
  };
}
