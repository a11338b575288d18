/** Progress lines go to stderr, so stdout carries only the report; each says how far into the run it is. */

const started = performance.now();

export function log(message: string): void {
  process.stderr.write(`[bench +${((performance.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
}

export function describeRate(rate: number, unit: string, p50?: number, p99?: number, errors = 0): string {
  const latency = p50 === undefined || p99 === undefined ? '' : ` p50 ${p50.toFixed(2)} ms p99 ${p99.toFixed(2)} ms`;
  return `${Math.round(rate).toLocaleString('en-US')} ${unit}${latency}${errors > 0 ? ` — ${errors} ERRORS` : ''}`;
}
