/**
 * The server's log messages (`notifications/message`) on stderr, one line
 * each: those at the `--log-level` asked for and above (without it, warnings
 * and worse — the server is then asked for nothing). A progress bar showing
 * at the time stays below the lines. What the server wrote is printed inert
 * (inert-text.ts): a message cannot move the cursor or recolour the terminal.
 */

import type { LoggingLevel } from 'tessera-mcp/client';
import { inert, inertJson, inertLine } from './inert-text.js';
import type { ProgressBar } from './progress-bar.js';
import { colors } from './terminal.js';

/** The syslog levels of MCP logging, least severe first. */
export const LOG_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What is shown when no --log-level is given. */
const DEFAULT_SHOWN: LoggingLevel = 'warning';

function tint(level: LoggingLevel): (text: string) => string {
  const rank = LOG_LEVELS.indexOf(level);
  if (rank >= LOG_LEVELS.indexOf('error')) return colors.red;
  if (rank >= LOG_LEVELS.indexOf('warning')) return colors.yellow;
  return colors.dim;
}

/** The line a log message becomes (continuation lines indented under it). */
export function logLine(message: { level: LoggingLevel; logger?: string; data: unknown }): string {
  const text = typeof message.data === 'string' ? inert(message.data) : inertJson(message.data);
  const from = message.logger === undefined ? '' : ` ${inertLine(String(message.logger))}`;
  return `${colors.dim('server log')} ${tint(message.level)(`${inertLine(String(message.level))}${from}`)}: ${text.replace(/\n/g, '\n    ')}`;
}

/** The client's `onLog`: each message at `level` or above, printed above the progress bar. */
export function serverLog(level: LoggingLevel | undefined, progress: ProgressBar): (message: { level: LoggingLevel; logger?: string; data: unknown }) => void {
  const threshold = LOG_LEVELS.indexOf(level ?? DEFAULT_SHOWN);
  return (message) => {
    const rank = LOG_LEVELS.indexOf(message.level);
    // A level the spec does not know is shown: better seen than lost.
    if (rank >= 0 && rank < threshold) return;
    progress.printAbove(logLine(message));
  };
}
