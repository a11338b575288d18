/** A clock a test moves by hand: give `now` to the state options (`state.clock`) and expiry is the test's to decide. */

export class TestClock {
  private current: number;

  /** Starts at `start` (milliseconds since the epoch; default 2026-07-28T12:00:00Z). */
  constructor(start = Date.UTC(2026, 6, 28, 12)) {
    this.current = start;
  }

  /** The time, in milliseconds since the epoch (bound: pass `clock.now` as it is). */
  readonly now = (): number => this.current;

  advance(ms: number): void {
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}
