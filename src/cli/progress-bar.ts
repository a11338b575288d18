/**
 * Progress notifications as a bar on stderr (cli-progress). Only on a
 * terminal: redirected stderr gets no bar, so logs stay readable. The bar is
 * put away while a question is asked and comes back with the next
 * notification, so it never draws over a prompt.
 */

import cliProgress from 'cli-progress';
import { colors } from './terminal.js';

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export class ProgressBar {
  private bar: cliProgress.SingleBar | undefined;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  update({ progress, total, message }: ProgressUpdate): void {
    if (this.stream.isTTY !== true) return;
    const known = typeof total === 'number' && total > 0;
    const payload = { known, message: message ?? '' };
    if (!this.bar) {
      this.bar = new cliProgress.SingleBar(
        {
          stream: this.stream,
          clearOnComplete: true,
          hideCursor: true,
          barsize: 30,
          // A server may send no total: then the count and message alone.
          format: (options, params, data: { known?: boolean; message?: string }) =>
            data.known
              ? `${cliProgress.Format.BarFormat(params.progress, options)} ${Math.floor(params.progress * 100)}% ${colors.dim(data.message ?? '')}`
              : `${colors.cyan('…')} ${params.value} ${colors.dim(data.message ?? '')}`,
        },
        cliProgress.Presets.shades_classic,
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
