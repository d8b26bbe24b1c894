import { growth as measuredGrowth } from "./growth.ts";

/** A safety net only: each of these inputs took minutes before its fix and takes milliseconds after. */
export const SLOW_BEFORE_THE_FIX = 30_000;

/**
 * How many times longer `run` takes on an input four times as long as `n`: about 4 for linear
 * work, 16 for quadratic, measured as {@link measuredGrowth} measures (`run` makes its input too).
 */
export function growth(run: (n: number) => unknown, n: number, tries = 3): number {
  return measuredGrowth((size) => size, run, n, tries);
}
