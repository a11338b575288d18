/**
 * Warming a server up to its steady state before it is measured. A server's
 * CPU per unit of work (request, exchange) falls while its JIT compiles the
 * hot paths and its caches fill; the official SDK's processes take about
 * 30 s of load to get there (bench/README.md). So every system gets
 * unrecorded warm-up cells of the workload it is about to be measured on
 * until both hold:
 *
 * - its server CPU per unit stopped falling: the mean of the last `window`
 *   cells is at most `maxFall` below the mean of the `window` cells before
 *   them (means of several cells, because one cell on a shared machine can
 *   be off by far more than 10 % either way);
 * - its server process has had at least `minProcessSeconds` of warm-up load
 *   in all (over every workload it serves), so that a process that looks
 *   flat early, its cells blurred by other work, still gets the load the
 *   slowest system is known to need.
 *
 * `maxCells` bounds the time when the server keeps getting cheaper; such a
 * warm-up is reported as not steady.
 */

export interface SteadyStateRule {
  /** Seconds per warm-up cell. */
  cellSeconds: number;
  /** Cells averaged on each side of the comparison. */
  window: number;
  /** Steady once the last window's mean is at most this fraction below the window before (0.1 = 10 %). */
  maxFall: number;
  /** Warm-up seconds a server process gets at least, over all its workloads. */
  minProcessSeconds: number;
  /** Warm-up cells per workload at most. */
  maxCells: number;
}

/** Server CPU µs per unit of each warm-up cell, in order; NaN where the cell completed nothing. */
export type WarmupSeries = readonly number[];

const mean = (values: readonly number[]): number => values.reduce((sum, v) => sum + v, 0) / values.length;

/** Whether the series has stopped falling under the rule (the process minimum is checked apart). */
export function stoppedFalling(series: WarmupSeries, rule: SteadyStateRule): boolean {
  if (series.length < 2 * rule.window) return false;
  const last = series.slice(-rule.window);
  const before = series.slice(-2 * rule.window, -rule.window);
  if (![...last, ...before].every(Number.isFinite)) return false;
  return mean(last) >= mean(before) * (1 - rule.maxFall);
}

export function describeRule(rule: SteadyStateRule): string {
  return (
    `warm-up cells of ${rule.cellSeconds} s per system and workload until the mean server CPU per request or exchange of the last ${rule.window} cells ` +
    `is less than ${(rule.maxFall * 100).toFixed(0)} % below that of the ${rule.window} before, and the server process has had at least ${rule.minProcessSeconds} s ` +
    `of warm-up load over its workloads (at least ${2 * rule.window}, at most ${rule.maxCells} cells per workload)`
  );
}

export interface WarmupOutcome {
  series: number[];
  steady: boolean;
}

/**
 * Runs warm-up cells (each returns its server CPU µs per unit) until the rule
 * holds or the cells run out; `warmedSeconds` is the load the process already
 * had on other workloads.
 */
export async function warmUntilSteady(cell: () => Promise<number>, rule: SteadyStateRule, warmedSeconds = 0): Promise<WarmupOutcome> {
  const series: number[] = [];
  while (series.length < rule.maxCells) {
    series.push(await cell());
    if (stoppedFalling(series, rule) && warmedSeconds + series.length * rule.cellSeconds >= rule.minProcessSeconds) return { series, steady: true };
  }
  return { series, steady: stoppedFalling(series, rule) };
}
