/** A safety net only: each of these inputs took minutes before its fix and takes milliseconds after. */
export const SLOW_BEFORE_THE_FIX = 30_000;

/** The fastest of `tries` timings of `run` on an input of size `n`, in milliseconds. */
function fastest(run: (n: number) => unknown, n: number, tries: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < tries; i++) {
    const start = performance.now();
    run(n);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/**
 * How many times longer `run` takes on an input four times as long as `n`, both measured in the
 * same run (the fastest of a few tries each, so a busy machine inflates neither): about 4 for
 * linear work, 16 for quadratic. A ratio that looks worse than linear is measured again, a few
 * rounds at most, and the least is kept: a burst of load on a shared machine is no quadratic.
 */
export function growth(run: (n: number) => unknown, n: number, tries = 3): number {
  // Warmed up on both sizes, so that neither is timed while the code is still being optimised.
  run(n);
  run(4 * n);
  let least = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 4 && least >= 8; round++)
    least = Math.min(least, fastest(run, 4 * n, tries) / fastest(run, n, tries));
  return least;
}
