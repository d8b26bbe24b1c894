/** Two axis values that may never share a row, by axis index and value index. */
export interface ValuePair {
  axisA: number;
  valueA: number;
  axisB: number;
  valueB: number;
}

/** A covering problem: level counts per axis, and forbidden pairs of values. */
export interface CoveringProblem {
  levels: readonly number[];
  forbidden?: readonly ValuePair[];
}

/**
 * Every pair of values on two different axes, numbered densely so that counters are flat typed
 * arrays. Pair (i, a, j, b) with i < j sits at `offset(i, j) + a * levels[j] + b`.
 */
export class PairSpace {
  readonly k: number;
  readonly levels: Int32Array;
  readonly size: number;
  /**
   * Per ordered axis pair (c, j) at `c * k + j`: the block offset and the multipliers of c's and
   * j's value, so that hot loops can number pairs without a call.
   */
  readonly offset: Int32Array;
  readonly mulOwn: Int32Array;
  readonly mulOther: Int32Array;
  /** Decoding table: axis and value of both sides of every pair, lower axis first. */
  readonly axisA: Int32Array;
  readonly valueA: Int32Array;
  readonly axisB: Int32Array;
  readonly valueB: Int32Array;
  /** 1 where a pair is forbidden outright; null when the problem has no constraints. */
  readonly forbidden: Uint8Array | null;
  /** Per axis, the number of its first value among every axis's values (`valueBase[axis] + value`). */
  readonly valueBase: Int32Array;
  /** How many values the axes have together. */
  readonly values: number;
  /**
   * Per axis value, the values it is forbidden with: slots `banBase[value]` up to
   * `banBase[value + 1]`, each the other side's axis and value. A value is checked against these
   * few instead of against every axis.
   */
  readonly banBase: Int32Array;
  readonly banAxis: Int32Array;
  readonly banValue: Int32Array;

  constructor(problem: CoveringProblem) {
    const { levels } = problem;
    if (levels.length < 2) {
      throw new RangeError(`covering: expected at least 2 axes, got ${levels.length}`);
    }
    levels.forEach((n, axis) => {
      if (!Number.isInteger(n) || n < 1) {
        throw new RangeError(`covering: levels[${axis}] must be a positive integer, got ${n}`);
      }
    });
    const k = levels.length;
    this.k = k;
    this.levels = Int32Array.from(levels);
    this.offset = new Int32Array(k * k);
    this.mulOwn = new Int32Array(k * k);
    this.mulOther = new Int32Array(k * k);
    let size = 0;
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++) {
        const li = this.levels[i] as number;
        const lj = this.levels[j] as number;
        this.offset[i * k + j] = size;
        this.offset[j * k + i] = size;
        this.mulOwn[i * k + j] = lj;
        this.mulOther[i * k + j] = 1;
        this.mulOwn[j * k + i] = 1;
        this.mulOther[j * k + i] = lj;
        size += li * lj;
      }
    }
    this.size = size;
    this.axisA = new Int32Array(size);
    this.valueA = new Int32Array(size);
    this.axisB = new Int32Array(size);
    this.valueB = new Int32Array(size);
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++) {
        for (let a = 0; a < (this.levels[i] as number); a++) {
          for (let b = 0; b < (this.levels[j] as number); b++) {
            const p = this.index(i, a, j, b);
            this.axisA[p] = i;
            this.valueA[p] = a;
            this.axisB[p] = j;
            this.valueB[p] = b;
          }
        }
      }
    }
    const forbidden = problem.forbidden ?? [];
    this.forbidden = forbidden.length > 0 ? new Uint8Array(size) : null;
    forbidden.forEach((f, n) => {
      const where = `forbidden[${n}]`;
      if (f.axisA === f.axisB)
        throw new RangeError(`covering: ${where} names axis ${f.axisA} twice`);
      for (const [axis, value] of [
        [f.axisA, f.valueA],
        [f.axisB, f.valueB],
      ] as const) {
        if (!Number.isInteger(axis) || axis < 0 || axis >= k) {
          throw new RangeError(`covering: ${where} names axis ${axis}, expected 0..${k - 1}`);
        }
        const n = this.levels[axis] as number;
        if (!Number.isInteger(value) || value < 0 || value >= n) {
          throw new RangeError(
            `covering: ${where} names value ${value} of axis ${axis}, expected 0..${n - 1}`,
          );
        }
      }
      (this.forbidden as Uint8Array)[this.index(f.axisA, f.valueA, f.axisB, f.valueB)] = 1;
    });
    this.valueBase = new Int32Array(k);
    let values = 0;
    for (let c = 0; c < k; c++) {
      this.valueBase[c] = values;
      values += this.levels[c] as number;
    }
    this.values = values;
    [this.banBase, this.banAxis, this.banValue] = this.#bans();
  }

  /** The ban lists ({@link PairSpace.banBase}): counted per value, then filled. */
  #bans(): [base: Int32Array, axis: Int32Array, value: Int32Array] {
    const { forbidden, axisA, valueA, axisB, valueB, valueBase, values } = this;
    const base = new Int32Array(values + 1);
    if (forbidden === null) return [base, new Int32Array(0), new Int32Array(0)];
    const sides = (p: number): [number, number] => [
      (valueBase[axisA[p] as number] as number) + (valueA[p] as number),
      (valueBase[axisB[p] as number] as number) + (valueB[p] as number),
    ];
    for (let p = 0; p < this.size; p++) {
      if (forbidden[p] !== 1) continue;
      for (const side of sides(p)) base[side + 1] = (base[side + 1] as number) + 1;
    }
    for (let at = 0; at < values; at++)
      base[at + 1] = (base[at + 1] as number) + (base[at] as number);
    const axis = new Int32Array(base[values] as number);
    const value = new Int32Array(base[values] as number);
    const filled = base.slice(0, values);
    const put = (side: number, otherAxis: number, otherValue: number) => {
      const slot = filled[side] as number;
      filled[side] = slot + 1;
      axis[slot] = otherAxis;
      value[slot] = otherValue;
    };
    for (let p = 0; p < this.size; p++) {
      if (forbidden[p] !== 1) continue;
      const [a, b] = sides(p);
      put(a, axisB[p] as number, valueB[p] as number);
      put(b, axisA[p] as number, valueA[p] as number);
    }
    return [base, axis, value];
  }

  /** The dense number of the pair (axis c = a, axis j = b), for c ≠ j in either order. */
  index(c: number, a: number, j: number, b: number): number {
    const o = c * this.k + j;
    return (
      (this.offset[o] as number) + a * (this.mulOwn[o] as number) + b * (this.mulOther[o] as number)
    );
  }

  /** The first pair number of the block of axes (i, j), and the number of pairs in it. */
  block(i: number, j: number): { start: number; count: number } {
    return {
      start: this.offset[i * this.k + j] as number,
      count: (this.levels[i] as number) * (this.levels[j] as number),
    };
  }

  /** Whether value v on axis c may share a row with the assigned values of `row` (−1 = unassigned). */
  fits(row: Int32Array, c: number, v: number): boolean {
    const forbidden = this.forbidden;
    if (forbidden === null) return true;
    const value = (this.valueBase[c] as number) + v;
    const from = this.banBase[value] as number;
    const to = this.banBase[value + 1] as number;
    // A value's bans are read when they are fewer than the axes, the axes otherwise.
    if (to - from < this.k) {
      for (let s = from; s < to; s++)
        if (row[this.banAxis[s] as number] === this.banValue[s]) return false;
      return true;
    }
    for (let j = 0; j < this.k; j++) {
      const x = row[j] as number;
      if (j === c || x < 0) continue;
      if (forbidden[this.index(c, v, j, x)] === 1) return false;
    }
    return true;
  }
}
