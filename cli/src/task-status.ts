/**
 * A task's life on stderr while `tessera call` follows it: one line when the
 * server makes the task and one per change of status or status message (a
 * task's only progress report). The progress bar is put away first, so the
 * lines never draw over it.
 */

import type { TaskUpdate } from 'tessera-mcp/client';
import type { ProgressBar } from './progress-bar.js';
import { colors, say } from './terminal.js';
import { inertLine } from './inert-text.js';

const LABELS: Record<string, string> = {
  working: 'working',
  input_required: 'waiting for your answer',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

export class TaskStatus {
  private shown = false;
  private taskId: string | undefined;

  constructor(private readonly progress: ProgressBar) {}

  /** The `onTask` observer for the call. */
  readonly observe = ({ task }: TaskUpdate): void => {
    this.progress.stop();
    if (!this.shown) {
      this.shown = true;
      this.taskId = task.taskId;
      say(colors.dim(`The server runs this call as task ${inertLine(task.taskId)}; following it (Ctrl-C cancels it).`));
    }
    const message = task.statusMessage ? ` — ${inertLine(task.statusMessage)}` : '';
    say(`${colors.cyan('⧗')} task ${LABELS[task.status] ?? inertLine(task.status)}${colors.dim(message)}`);
  };

  /** The task being followed, if the call became one. */
  get followed(): string | undefined {
    return this.taskId;
  }
}
