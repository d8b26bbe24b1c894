import type { PairSpace } from "./space.ts";

/** The lower bounds an array's size is held to, and which of them is the largest. */
export interface Bounds {
  /** No array covering the target pairs has fewer rows: the largest of the three below. */
  lower: number;
  /** The most target pairs between two axes (each needs a row of its own). */
  block: number;
  /** The two axes whose block is largest. */
  binding: [number, number];
  /** The most, over axes, of the rows each of its values needs, summed. */
  perValue: number;
  /** Kleitman–Spencer's exact size for the binary axes that meet every other one freely. */
  binary: number;
}

/**
 * Lower bounds on the rows of any array covering `target`, all sound under forbidden and implied
 * pairs because they count target pairs only:
 * - block: two axes' target pairs each need a row;
 * - per value: every row holds one value of an axis, and a value's rows must hold each of its
 *   target partners on every other axis, so an axis needs Σ over its values of max over the other
 *   axes of the value's partners there (with rules scoped to tools, a tool needs a row for each of
 *   its rules and for each stance, whichever is more, where the block bound counts one of these);
 * - binary: m two-level axes all of whose pairs are targets need the least N with
 *   C(N−1, ⌈N/2⌉) ≥ m rows (Kleitman & Spencer 1973, Katona 1973: exact for pairwise binary arrays).
 */
export function boundsOf(space: PairSpace, target: Uint8Array): Bounds {
  const { k, levels } = space;
  let block = -1;
  let binding: [number, number] = [0, 1];
  // partners[c][v * k + j]: target pairs of (axis c = v) with axis j.
  const partners = Array.from({ length: k }, (_, c) => new Int32Array((levels[c] as number) * k));
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) {
      const { start } = space.block(i, j);
      const lj = levels[j] as number;
      let n = 0;
      for (let a = 0; a < (levels[i] as number); a++) {
        for (let b = 0; b < lj; b++) {
          if (target[start + a * lj + b] !== 1) continue;
          n++;
          const ofA = partners[i] as Int32Array;
          const ofB = partners[j] as Int32Array;
          ofA[a * k + j] = (ofA[a * k + j] as number) + 1;
          ofB[b * k + i] = (ofB[b * k + i] as number) + 1;
        }
      }
      if (n > block) {
        block = n;
        binding = [i, j];
      }
    }
  }
  let perValue = 1;
  for (let c = 0; c < k; c++) {
    let rows = 0;
    for (let v = 0; v < (levels[c] as number); v++) {
      let most = 0;
      for (let j = 0; j < k; j++)
        most = Math.max(most, (partners[c] as Int32Array)[v * k + j] as number);
      rows += most;
    }
    perValue = Math.max(perValue, rows);
  }
  block = Math.max(block, 1);
  const binary = binaryBound(freeBinaryAxes(space, target));
  return { lower: Math.max(block, perValue, binary), block, binding, perValue, binary };
}

/** Two-level axes whose four pairs with every other such axis are all targets. */
function freeBinaryAxes(space: PairSpace, target: Uint8Array): number {
  const binary: number[] = [];
  for (let c = 0; c < space.k; c++) if (space.levels[c] === 2) binary.push(c);
  return binary.filter((c) =>
    binary.every((d) => {
      if (d === c) return true;
      const { start } = space.block(Math.min(c, d), Math.max(c, d));
      return (
        target[start] === 1 &&
        target[start + 1] === 1 &&
        target[start + 2] === 1 &&
        target[start + 3] === 1
      );
    }),
  ).length;
}

/** The least N with C(N−1, ⌈N/2⌉) ≥ m: the rows m free binary axes need (1 for none). */
export function binaryBound(m: number): number {
  if (m < 2) return 1;
  for (let n = 4; ; n++) if (choose(n - 1, Math.ceil(n / 2)) >= m) return n;
}

function choose(n: number, r: number): number {
  let out = 1;
  for (let i = 1; i <= r; i++) out = (out * (n - r + i)) / i;
  return Math.round(out);
}
