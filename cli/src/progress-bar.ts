/**
 * Progress notifications as a bar on stderr (cli-progress). Only on a
 * terminal: redirected stderr gets no bar, so logs stay readable. The bar is
 * put away while a question is asked and comes back with the next
 * notification, so it never draws over a prompt.
 */

import { createRequire } from 'node:module';
import type * as cliProgressModule from 'cli-progress';
import { colors } from './terminal.js';
import { inertLine } from './inert-text.js';

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

type CliProgress = typeof cliProgressModule;
let loaded: CliProgress | undefined;

/** cli-progress, loaded on the first notification: most calls never report progress. */
function cliProgress(): CliProgress {
  loaded ??= createRequire(import.meta.url)('cli-progress') as CliProgress;
  return loaded;
}

export class ProgressBar {
  private bar: cliProgressModule.SingleBar | undefined;
  /** The update the bar shows, to draw it again after a line printed above it. */
  private last: ProgressUpdate | undefined;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  /** Prints a line (a server log message) on the bar's stream; a bar showing stays the last line, below it. */
  printAbove(line: string): void {
    const showing = this.bar ? this.last : undefined;
    this.stop();
    this.stream.write(`${line}\n`);
    if (showing) this.update(showing);
  }

  update(update: ProgressUpdate): void {
    if (this.stream.isTTY !== true) return;
    this.last = update;
    const { progress, total, message } = update;
    const known = typeof total === 'number' && total > 0;
    const payload = { known, message: inertLine(message ?? '') };
    if (!this.bar) {
      const { SingleBar, Format, Presets } = cliProgress();
      this.bar = new SingleBar(
        {
          stream: this.stream,
          clearOnComplete: true,
          hideCursor: false, // a Ctrl-C while the bar shows must not leave the terminal without a cursor
          barsize: 30,
          // A server may send no total: then the count and message alone.
          format: (options, params, data: { known?: boolean; message?: string }) =>
            data.known
              ? `${Format.BarFormat(params.progress, options)} ${Math.floor(params.progress * 100)}% ${colors.dim(data.message ?? '')}`
              : `${colors.cyan('…')} ${params.value} ${colors.dim(data.message ?? '')}`,
        },
        Presets.shades_classic,
      );
      this.bar.start(known ? total : 0, progress, payload);
      return;
    }
    if (known) this.bar.setTotal(total);
    this.bar.update(progress, payload);
  }

  /** Takes the bar off the screen (before a question, and at the end). */
  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
