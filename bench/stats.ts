/** What the history benchmarks print: percentiles of timed samples, one figure a line. */

/** The `p` percentile (0 to 1) of `samples`, which it sorts in place. */
export function pct(samples: number[], p: number): number {
  samples.sort((a, b) => a - b);
  return samples[Math.min(samples.length - 1, Math.floor(samples.length * p))];
}

/** Prints `name: value unit`, as every benchmark does, small values to three decimals. */
export function line(name: string, value: number, unit: string): void {
  console.log(`${name}: ${value < 10 ? value.toFixed(3) : Math.round(value)} ${unit}`);
}
