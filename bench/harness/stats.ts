/** Small statistics helpers: medians across rounds, percentiles of latencies. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Collects latencies (ms) without boxing each one; grows as needed. */
export class LatencyRecorder {
  private values = new Float64Array(1 << 14);
  private size = 0;

  get count(): number {
    return this.size;
  }

  record(ms: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.size++] = ms;
  }

  /** Nearest-rank percentile, e.g. percentile(0.99); NaN when nothing was recorded. */
  percentile(p: number): number {
    if (this.size === 0) return Number.NaN;
    const sorted = this.values.slice(0, this.size).sort();
    return sorted[Math.min(this.size - 1, Math.max(0, Math.ceil(p * this.size) - 1))]!;
  }
}
