/**
 * Warming a server up to its steady state before it is measured. A server's
 * CPU per unit of work (request, exchange) falls while its JIT compiles the
 * hot paths and its caches fill; the official SDK's processes take tens of
 * seconds of load to get there (bench/README.md). So every system gets
 * unrecorded warm-up cells of the workload it is about to be measured on
 * until its server CPU per unit stops falling: a cell that is not more than
 * `maxFall` below the cell before it ends the warm-up. Noise upwards (other
 * work on a shared core) never looks like warming, so it ends a warm-up
 * rather than prolonging it; `maxCells` bounds the time when the server
 * keeps getting cheaper.
 */

export interface SteadyStateRule {
  /** Seconds per warm-up cell. */
  cellSeconds: number;
  /** A cell whose CPU per unit is at most this fraction below the previous cell's is steady (0.1 = 10 %). */
  maxFall: number;
  /** Warm-up cells at least (the first has nothing to compare with, so 2 or more)… */
  minCells: number;
  /** …and at most. */
  maxCells: number;
}

/** Server CPU µs per unit of each warm-up cell, in order; NaN where the cell completed nothing. */
export type WarmupSeries = readonly number[];

/** Whether the series so far has reached the steady state under the rule. */
export function isSteady(series: WarmupSeries, rule: SteadyStateRule): boolean {
  if (series.length < Math.max(2, rule.minCells)) return false;
  const last = series[series.length - 1]!;
  const before = series[series.length - 2]!;
  if (!Number.isFinite(last) || !Number.isFinite(before) || before <= 0) return false;
  return last >= before * (1 - rule.maxFall);
}

export function describeRule(rule: SteadyStateRule): string {
  return (
    `warm-up cells of ${rule.cellSeconds} s per system and workload until the server's CPU per request or exchange ` +
    `falls by less than ${(rule.maxFall * 100).toFixed(0)} % from one cell to the next (at least ${rule.minCells}, at most ${rule.maxCells} cells)`
  );
}

export interface WarmupOutcome {
  series: number[];
  steady: boolean;
}

/** Runs warm-up cells (each returns its server CPU µs per unit) until the rule says steady or the cells run out. */
export async function warmUntilSteady(cell: () => Promise<number>, rule: SteadyStateRule): Promise<WarmupOutcome> {
  const series: number[] = [];
  while (series.length < rule.maxCells) {
    series.push(await cell());
    if (isSteady(series, rule)) return { series, steady: true };
  }
  return { series, steady: false };
}
