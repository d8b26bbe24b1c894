/** A pass rate as the push and pull commands print it. */
export function passRate(rate: number | null): string {
  return rate === null ? "n/a (ungraded)" : `${(rate * 100).toFixed(1)}%`;
}
