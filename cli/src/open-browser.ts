/**
 * `--open`: hands a URL to the desktop's browser (xdg-open, open, or start)
 * and lets it go; failing to open one only means the printed URL is used.
 */

import { spawn } from 'node:child_process';

export function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No browser here: the URL is printed anyway.
  }
}
