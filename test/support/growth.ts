/**
 * How many times longer `read` takes on an input four times as long as `n`: about 4 for linear
 * work, 16 for quadratic. Both inputs are made before either is timed, and timed by turns in the
 * same run, the fastest of several tries each. A busy machine slows the longer runs more (another
 * process takes the core in the middle of them), so the measure is taken up to five times and the
 * least kept: quadratic work never comes out under 8, linear work seldom over it even once (a CI
 * run under load once had a linear read over 8 in three measures running; it measures 3–4 alone).
 */
export function growth<T>(
  make: (n: number) => T,
  read: (input: T) => unknown,
  n: number,
  tries = 7,
): number {
  const small = make(n);
  const large = make(4 * n);
  // Warmed up on both sizes, so that neither is timed while the code is still being optimised.
  read(small);
  read(large);
  const time = (input: T) => {
    const start = performance.now();
    read(input);
    return performance.now() - start;
  };
  let least = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5 && least >= 8; round++) {
    let fastSmall = Number.POSITIVE_INFINITY;
    let fastLarge = Number.POSITIVE_INFINITY;
    for (let i = 0; i < tries; i++) {
      fastLarge = Math.min(fastLarge, time(large));
      fastSmall = Math.min(fastSmall, time(small));
    }
    least = Math.min(least, fastLarge / fastSmall);
  }
  return least;
}
