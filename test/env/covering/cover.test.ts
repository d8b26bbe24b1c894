import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Cover, INVALID } from "../../../env/covering/cover.ts";
import { greedyRows } from "../../../env/covering/greedy.ts";
import { PairSpace, reachablePairs } from "../../../env/covering/index.ts";
import { Rng } from "../../../env/rng.ts";

/** How many of the rows hold each pair. */
function countPairs(space: PairSpace, rows: readonly number[][]): Int32Array {
  const counts = new Int32Array(space.size);
  for (const row of rows) {
    for (let i = 0; i < space.k; i++) {
      for (let j = i + 1; j < space.k; j++) {
        const p = space.index(i, row[i] as number, j, row[j] as number);
        counts[p] = (counts[p] as number) + 1;
      }
    }
  }
  return counts;
}

/** What the cover's incremental tables must hold, recounted from its rows alone. */
function recount(cover: Cover) {
  const { space } = cover;
  const rows = Array.from({ length: cover.n }, (_, r) => Array.from(cover.row(r)));
  const counts = countPairs(space, rows);
  const open = (p: number) => cover.target[p] === 1 && counts[p] === 0;
  return { rows, counts, open };
}

/** Change in uncovered target pairs if row r's axis c became v, by building the changed rows. */
function bruteDelta(cover: Cover, r: number, c: number, v: number): number {
  const { space } = cover;
  const { rows, open } = recount(cover);
  const before = Array.from({ length: space.size }, (_, p) => p).filter(open).length;
  const row = rows[r] as number[];
  for (let j = 0; j < space.k; j++)
    if (j !== c && space.forbidden?.[space.index(c, v, j, row[j] as number)] === 1) return INVALID;
  row[c] = v;
  const counts = countPairs(space, rows);
  let after = 0;
  for (let p = 0; p < space.size; p++) if (cover.target[p] === 1 && counts[p] === 0) after++;
  return after - before;
}

/** A problem, a start of valid rows, and a list of edits (set a cell, drop a row, add a row). */
const scenarios = fc
  .array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 6 })
  .chain((levels) =>
    fc.record({
      levels: fc.constant(levels),
      withForbidden: fc.boolean(),
      forbidden: fc.array(fc.tuple(fc.nat(5), fc.nat(5), fc.nat(3), fc.nat(3)), { maxLength: 3 }),
      rows: fc.array(fc.array(fc.nat(3), { minLength: levels.length, maxLength: levels.length }), {
        minLength: 1,
        maxLength: 40,
      }),
      edits: fc.array(fc.tuple(fc.nat(2), fc.nat(60), fc.nat(5), fc.nat(3)), { maxLength: 30 }),
    }),
  );

describe("Cover", () => {
  it("keeps its open lists, row bitsets and move deltas equal to a recount from its rows, and the delta floor under the delta, through edits", () => {
    fc.assert(
      fc.property(scenarios, ({ levels, withForbidden, forbidden, rows, edits }) => {
        const k = levels.length;
        const pairs = withForbidden
          ? forbidden
              .map(([a, b, va, vb]) => ({ axisA: a % k, axisB: b % k, va, vb }))
              .filter((f) => f.axisA !== f.axisB)
              .map((f) => ({
                axisA: f.axisA,
                valueA: f.va % (levels[f.axisA] as number),
                axisB: f.axisB,
                valueB: f.vb % (levels[f.axisB] as number),
              }))
          : [];
        const space = new PairSpace({ levels, forbidden: pairs });
        const reach = reachablePairs(space);
        const cover = new Cover(space, reach);
        const fits = (row: Int32Array) => {
          for (let i = 0; i < k; i++)
            for (let j = i + 1; j < k; j++)
              if (space.forbidden?.[space.index(i, row[i] as number, j, row[j] as number)] === 1)
                return false;
          return true;
        };
        const add = (values: number[]) => {
          const row = Int32Array.from(values, (v, c) => v % (levels[c] as number));
          if (fits(row)) cover.addRow(row);
        };
        for (const values of rows) add(values);
        for (const [kind, r, c, v] of edits) {
          if (kind === 0 && cover.n > 0) {
            const row = r % cover.n;
            const axis = c % k;
            const value = v % (levels[axis] as number);
            const delta = cover.delta(row, axis, value);
            expect(delta).toBe(bruteDelta(cover, row, axis, value));
            if (delta !== INVALID && cover.at(row, axis) !== value)
              expect(
                (cover.losses[row * k + axis] as number) -
                  (cover.deficit[(cover.valueBase[axis] as number) + value] as number),
              ).toBeLessThanOrEqual(delta);
            if (delta !== INVALID) cover.set(row, axis, value);
          } else if (kind === 1 && cover.n > 0) cover.removeRow(r % cover.n);
          else add(Array.from({ length: k }, (_, axis) => (r + axis * v) % 5));
          check(cover);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("fingerprints its cells: a changed cell changes it, and the same rows give it back however they were reached", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(7), fc.nat(5), fc.nat(2)), { minLength: 1, maxLength: 40 }),
        (edits) => {
          const space = new PairSpace({ levels: [3, 3, 3, 3, 3, 3] });
          const cover = new Cover(space, reachablePairs(space));
          for (let r = 0; r < 8; r++) cover.addRow(Int32Array.from({ length: 6 }, () => r % 3));
          const start = cover.fingerprint;
          for (const [r, c, v] of edits) {
            const old = cover.at(r, c);
            const prior = cover.fingerprint;
            cover.set(r, c, v);
            if (old === v) expect(cover.fingerprint).toBe(prior);
            else expect(cover.fingerprint).not.toBe(prior);
          }
          // Undone in any order, the edits bring the first fingerprint back.
          for (let r = 0; r < 8; r++) for (let c = 0; c < 6; c++) cover.set(r, c, r % 3);
          expect(cover.fingerprint).toBe(start);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("reads a move's delta from its open pairs and forbidden partners on a wide constrained grid, as a recount gives it", () => {
    // Twelve axes of three with forbidden pairs: late in a search a value has fewer open pairs and
    // bans than there are axes, where the delta reads those lists instead of every axis.
    const forbidden = [
      { axisA: 0, valueA: 0, axisB: 1, valueB: 0 },
      { axisA: 0, valueA: 1, axisB: 5, valueB: 2 },
      { axisA: 2, valueA: 2, axisB: 7, valueB: 1 },
      { axisA: 3, valueA: 0, axisB: 11, valueB: 0 },
      { axisA: 4, valueA: 1, axisB: 9, valueB: 1 },
    ];
    const space = new PairSpace({ levels: Array(12).fill(3), forbidden });
    const cover = new Cover(space, reachablePairs(space));
    greedyRows(cover, new Rng(3, "greedy"), 50);
    const rng = new Rng(3, "moves");
    let invalid = 0;
    let fewOpen = 0;
    for (let move = 0; move < 300; move++) {
      const row = rng.int(cover.n);
      const axis = rng.int(space.k);
      const value = rng.int(3);
      if ((cover.deficit[(cover.valueBase[axis] as number) + value] as number) < space.k - 2)
        fewOpen++;
      const delta = cover.delta(row, axis, value);
      expect(delta).toBe(bruteDelta(cover, row, axis, value));
      if (delta === INVALID) invalid++;
      else cover.set(row, axis, value);
    }
    check(cover);
    expect(invalid).toBeGreaterThan(0);
    expect(fewOpen).toBeGreaterThan(100);
  });

  it("counts pairs alike on either side of 32 rows: past them by counters, up to them by row sets", () => {
    // Growing to 40 rows, moving cells, shrinking to 20 and growing again: every table is checked
    // against a recount at each size, and a move's delta against building the changed rows.
    const space = new PairSpace({ levels: [4, 3, 3, 2, 2, 2] });
    const cover = new Cover(space, reachablePairs(space));
    const rng = new Rng(11, "boundary");
    const randomRow = () => Int32Array.from(space.levels, (n) => rng.int(n));
    const move = () => {
      const r = rng.int(cover.n);
      const c = rng.int(space.k);
      const v = rng.int(space.levels[c] as number);
      expect(cover.delta(r, c, v)).toBe(bruteDelta(cover, r, c, v));
      cover.set(r, c, v);
    };
    const sizes: number[] = [];
    for (const target of [40, 20, 36, 31]) {
      while (cover.n < target) cover.addRow(randomRow());
      while (cover.n > target) cover.removeRow(rng.int(cover.n));
      for (let m = 0; m < 30; m++) move();
      check(cover);
      sizes.push(cover.words);
    }
    expect(sizes).toEqual([2, 1, 2, 1]);
  });

  it("grows its row bitsets past 32 rows and keeps them in row order", () => {
    const space = new PairSpace({ levels: [3, 3, 3] });
    const cover = new Cover(space, reachablePairs(space));
    for (let r = 0; r < 100; r++)
      cover.addRow(Int32Array.from([r % 3, (r >> 1) % 3, (r >> 2) % 3]));
    cover.removeRow(5);
    cover.set(70, 0, (cover.at(70, 0) + 1) % 3);
    check(cover);
    expect(cover.words).toBe(4);
  });
});

/** Every incremental table of the cover against a recount from its rows. */
function check(cover: Cover): void {
  const { space, valueBase, deficit, openBase, openAxis, openValue, rowBits, words } = cover;
  const { rows, counts, open } = recount(cover);
  const uncovered: number[] = [];
  for (let p = 0; p < space.size; p++) {
    expect(cover.count(p)).toBe(counts[p]);
    if (open(p)) uncovered.push(p);
  }
  expect(cover.uncoveredCount).toBe(uncovered.length);
  expect([...cover.uncovered.subarray(0, cover.uncoveredCount)].sort((a, b) => a - b)).toEqual(
    uncovered,
  );
  for (let c = 0; c < space.k; c++) {
    for (let v = 0; v < (space.levels[c] as number); v++) {
      const value = (valueBase[c] as number) + v;
      const partners: string[] = [];
      for (let j = 0; j < space.k; j++)
        for (let w = 0; w < (space.levels[j] as number); w++)
          if (j !== c && open(space.index(c, v, j, w))) partners.push(`${j}:${w}`);
      const listed: string[] = [];
      const from = openBase[value] as number;
      for (let s = from; s < from + (deficit[value] as number); s++)
        listed.push(`${openAxis[s]}:${openValue[s]}`);
      expect(listed.sort()).toEqual(partners.sort());
      const holding: number[] = [];
      for (let r = 0; r < words * 32; r++)
        if (((rowBits[value * words + (r >>> 5)] as number) >>> (r & 31)) & 1) holding.push(r);
      expect(holding).toEqual(rows.flatMap((row, r) => (row[c] === v ? [r] : [])));
    }
  }
  for (let r = 0; r < cover.n; r++) {
    let unique = 0;
    const row = rows[r] as number[];
    for (let i = 0; i < space.k; i++)
      for (let j = i + 1; j < space.k; j++)
        if (counts[space.index(i, row[i] as number, j, row[j] as number)] === 1) unique++;
    expect(cover.uniquePairs(r)).toBe(unique);
  }
}
