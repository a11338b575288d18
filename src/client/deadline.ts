/**
 * One time limit for everything a request turns into: attempts sent again
 * after a broken stream, a new 2025 session, another protocol version. Each
 * attempt gets what is left, so the caller's `timeoutMs` is the whole wait.
 */

import { RequestTimeoutError } from './errors.js';

export class Deadline {
  private readonly endsAt: number | undefined;

  constructor(
    /** The whole allowance in ms; undefined for none. */
    readonly totalMs: number | undefined,
  ) {
    this.endsAt = totalMs === undefined ? undefined : Date.now() + totalMs;
  }

  /** Milliseconds left (0 once passed); undefined when there is no limit. */
  remaining(): number | undefined {
    return this.endsAt === undefined ? undefined : Math.max(0, this.endsAt - Date.now());
  }

  get passed(): boolean {
    return this.endsAt !== undefined && Date.now() >= this.endsAt;
  }

  /** The error of a request that got no response within the limit. */
  exceeded(method: string): RequestTimeoutError {
    return new RequestTimeoutError(`${method} got no response within ${this.totalMs} ms`);
  }
}
