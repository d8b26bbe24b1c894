import { Rng } from "../env/index.ts";

/**
 * Our greedy baseline, a stand-in for PICT's time where PICT cannot be run (it is not PICT): the
 * plain one-row-at-a-time greedy of the class PICT belongs to. Each row starts from the first pair
 * no row covers yet, then every other axis, in axis order, takes the value that covers the most
 * uncovered pairs with the values already in the row (ties drawn from a seeded stream). One
 * candidate per row and no search afterwards, over flat typed arrays.
 */
export function greedyBaseline(levels: readonly number[], seed: number): number[][] {
  const k = levels.length;
  // Pair (i, a, j, b), i < j, sits at offset[i * k + j] + a * levels[j] + b.
  const offset = new Int32Array(k * k);
  let size = 0;
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) {
      offset[i * k + j] = size;
      size += (levels[i] as number) * (levels[j] as number);
    }
  }
  const pairOf = (i: number, a: number, j: number, b: number) =>
    i < j
      ? (offset[i * k + j] as number) + a * (levels[j] as number) + b
      : (offset[j * k + i] as number) + b * (levels[i] as number) + a;
  const covered = new Uint8Array(size);
  let uncovered = size;
  const rng = new Rng(seed, "greedy-baseline");
  const rows: number[][] = [];
  const row = new Int32Array(k);
  let cursor = 0;
  while (uncovered > 0) {
    while (covered[cursor] === 1) cursor++;
    row.fill(-1);
    const [i, a, j, b] = decode(cursor, levels, offset);
    row[i] = a;
    row[j] = b;
    for (let c = 0; c < k; c++) {
      if ((row[c] as number) >= 0) continue;
      let best = -1;
      let bestGain = -1;
      let ties = 0;
      for (let v = 0; v < (levels[c] as number); v++) {
        let gain = 0;
        for (let d = 0; d < k; d++) {
          const w = row[d] as number;
          if (d !== c && w >= 0 && covered[pairOf(c, v, d, w)] === 0) gain++;
        }
        if (gain > bestGain) {
          bestGain = gain;
          best = v;
          ties = 1;
        } else if (gain === bestGain && rng.int(++ties) === 0) best = v;
      }
      row[c] = best;
    }
    for (let c = 0; c < k; c++) {
      for (let d = c + 1; d < k; d++) {
        const p = pairOf(c, row[c] as number, d, row[d] as number);
        if (covered[p] === 0) {
          covered[p] = 1;
          uncovered--;
        }
      }
    }
    rows.push(Array.from(row));
  }
  return rows;
}

/** The axes and values of pair p: [i, a, j, b] with i < j. */
function decode(
  p: number,
  levels: readonly number[],
  offset: Int32Array,
): [number, number, number, number] {
  const k = levels.length;
  // Blocks lie in (i, j) order: the last one starting at or before p holds it.
  for (let i = k - 2; i >= 0; i--) {
    for (let j = k - 1; j > i; j--) {
      const start = offset[i * k + j] as number;
      if (p < start) continue;
      const lj = levels[j] as number;
      return [i, Math.floor((p - start) / lj), j, (p - start) % lj];
    }
  }
  throw new RangeError(`greedy baseline: pair ${p} is out of range`);
}
