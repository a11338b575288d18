/**
 * Waiting for something a test helper records (messages, lines, requests):
 * the recorder calls `changed()` after each record, and `until` looks again
 * each time, with a timeout that guards against hangs (never a performance
 * bound).
 */

export class Changes {
  private waiters: Array<() => void> = [];

  /** Wakes every pending `until` so that it checks again. */
  changed(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves with the first value `check` returns (not undefined); `check` may throw to give up early. */
  async until<T>(what: string, check: () => T | undefined, timeoutMs: number, detail?: () => string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`gave up waiting for ${what}${detail ? `; ${detail()}` : ''}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}
