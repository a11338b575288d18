/**
 * What a spawned (stdio) server writes on its stderr: kept aside rather than
 * mixed into the command's own output (banners, warnings, logs), and shown,
 * inert, when the command fails, where it may say why. Only the last lines
 * are kept, so a chatty server cannot grow the command's memory.
 */

import type { Readable } from 'node:stream';
import { inert } from './inert-text.js';
import { colors, say } from './terminal.js';

const KEPT_LINES = 40;
const LONGEST_LINE = 2000;

export class ServerStderr {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(stream: Readable | null | undefined) {
    stream?.setEncoding('utf8').on('data', (text: string) => this.take(text));
  }

  private take(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop()!.slice(-LONGEST_LINE);
    for (const line of parts) this.keep(line);
  }

  private keep(line: string): void {
    this.lines.push(line.length > LONGEST_LINE ? `${line.slice(0, LONGEST_LINE)}…` : line);
    if (this.lines.length > KEPT_LINES) this.lines.shift();
  }

  /** The last lines the server wrote (the unfinished one too). */
  tail(): string[] {
    return this.partial === '' ? [...this.lines] : [...this.lines, this.partial];
  }

  /** Shows the tail on stderr, under a heading, when there is one. */
  show(): void {
    const lines = this.tail().filter((line) => line.trim() !== '');
    if (lines.length === 0) return;
    say(colors.dim(`The server's stderr (last ${lines.length} line${lines.length === 1 ? '' : 's'}):`));
    for (const line of lines) say(`  ${colors.dim('│')} ${inert(line)}`);
  }
}
