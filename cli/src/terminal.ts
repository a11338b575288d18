/**
 * Where the command writes. Results go to stdout, so they can be piped;
 * questions, progress and diagnostics go to stderr, so `--json` output stays
 * clean and a question still reaches the person when stdout is redirected.
 */

import picocolors from 'picocolors';
import { inertLine } from './inert-text.js';

/** Colours only on a terminal, never with NO_COLOR (FORCE_COLOR forces them). */
function wantsColor(stream: NodeJS.WriteStream): boolean {
  const env = process.env;
  if ('NO_COLOR' in env && env.NO_COLOR !== '') return false;
  if ('FORCE_COLOR' in env) return env.FORCE_COLOR !== '0';
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** Colours for what goes to stderr (questions, progress, messages). */
export const colors = picocolors.createColors(wantsColor(process.stderr));
/** Colours for results on stdout, which is often piped. */
export const resultColors = picocolors.createColors(wantsColor(process.stdout));

/** Writes one line (or several) to stderr. */
export function say(text = ''): void {
  process.stderr.write(`${text}\n`);
}

/** Writes one line (or several) to stdout. */
export function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** A person can be asked only when stdin is a terminal; otherwise an unanswered question fails instead of hanging. */
export function canAskPerson(): boolean {
  return process.stdin.isTTY === true;
}

/** Where terminal questions read and draw: stdin, and stderr (stdout is for results). */
export function promptContext(signal?: AbortSignal): { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; signal?: AbortSignal } {
  return signal ? { input: process.stdin, output: process.stderr, signal } : { input: process.stdin, output: process.stderr };
}

/** Who is asking, for the line above a question. */
export function askerName(server: { name: string; title?: string } | undefined): string {
  return inertLine(server?.title ?? server?.name ?? 'The server');
}
