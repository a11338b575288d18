/**
 * The benchmark's warm-up rule (bench/harness/steady-state.ts): a system is
 * measured only once its server CPU per unit stopped falling, compared as
 * means of windows of cells, and after its process had the minimum load.
 */

import { describe, expect, it } from 'vitest';
import { stoppedFalling, warmUntilSteady, type SteadyStateRule } from '../../bench/harness/steady-state.js';

const rule: SteadyStateRule = { cellSeconds: 2, window: 2, maxFall: 0.1, minProcessSeconds: 8, maxCells: 10 };

describe('stoppedFalling', () => {
  it('needs two full windows before it can say anything', () => {
    expect(stoppedFalling([100, 100, 100], rule)).toBe(false);
    expect(stoppedFalling([100, 100, 100, 100], rule)).toBe(true);
  });

  it('holds while the last window is at most maxFall below the one before, and not beyond', () => {
    expect(stoppedFalling([100, 100, 91, 91], rule)).toBe(true);
    expect(stoppedFalling([100, 100, 89, 89], rule)).toBe(false);
    // Getting dearer is not falling.
    expect(stoppedFalling([100, 100, 150, 150], rule)).toBe(true);
  });

  it('compares means, so one cell off by far more than maxFall does not end the warm-up early or late', () => {
    expect(stoppedFalling([100, 100, 60, 140], rule)).toBe(true);
    // The last two cells alone look flat; their mean is still far below the window before.
    expect(stoppedFalling([200, 200, 120, 121], rule)).toBe(false);
  });

  it('looks only at the last two windows', () => {
    expect(stoppedFalling([1000, 500, 100, 100, 100, 100], rule)).toBe(true);
  });

  it('says nothing from a cell that completed nothing (NaN)', () => {
    expect(stoppedFalling([100, 100, Number.NaN, 100], rule)).toBe(false);
  });
});

describe('warmUntilSteady', () => {
  const cells = (values: number[]): (() => Promise<number>) => {
    let i = 0;
    return () => Promise.resolve(values[Math.min(i++, values.length - 1)]!);
  };

  it('stops at the first cell where the rule holds and the process had its minimum load', async () => {
    const outcome = await warmUntilSteady(cells([100, 100, 100, 100, 100, 100]), rule);
    expect(outcome).toEqual({ series: [100, 100, 100, 100], steady: true });
  });

  it('keeps a flat process warming until it had minProcessSeconds, counting the load it had on other workloads', async () => {
    expect((await warmUntilSteady(cells([100]), { ...rule, minProcessSeconds: 12 })).series).toHaveLength(6);
    expect((await warmUntilSteady(cells([100]), { ...rule, minProcessSeconds: 12 }, 8)).series).toHaveLength(4);
  });

  it('keeps going while the cost falls, and reports a warm-up that ran out of cells as not steady', async () => {
    const falling = Array.from({ length: 20 }, (_, i) => 1000 * 0.8 ** i);
    const outcome = await warmUntilSteady(cells(falling), rule);
    expect(outcome.series).toHaveLength(rule.maxCells);
    expect(outcome.steady).toBe(false);
  });
});
