import type { Reachability } from "./rows.ts";
import type { PairSpace } from "./space.ts";

/**
 * Returned by {@link Cover.delta} for a change that would put a forbidden pair in the row: more
 * than any change can be, and a small integer, so the search compares integers only.
 */
export const INVALID = 0x3fffffff;

/**
 * A growing set of rows and, for every pair, which rows hold it. Keeps the list of target pairs
 * no row holds yet (O(1) add and remove) and, per axis value, how many of those it is part of.
 */
export class Cover {
  readonly space: PairSpace;
  readonly target: Uint8Array;
  /** Uncovered target pairs, unordered; `position[p]` is p's slot or −1. */
  readonly uncovered: Int32Array;
  readonly position: Int32Array;
  uncoveredCount = 0;
  /** Per axis value (at `valueBase[axis] + value`): uncovered target pairs it belongs to. */
  readonly deficit: Int32Array;
  readonly valueBase: Int32Array;
  /**
   * Per axis value, the partners of its uncovered pairs: `deficit[value]` slots from
   * `openBase[value]`, each the other side's axis and value and the pair. Late in a search a value
   * has a few open pairs, so gains read these instead of every axis.
   */
  readonly openBase: Int32Array;
  readonly openAxis: Int32Array;
  readonly openValue: Int32Array;
  /** The other side as one number, `valueBase[axis] + value`. */
  readonly openPartner: Int32Array;
  /** The pair each open-list slot stands for (read with {@link Cover.openPairAt}). */
  readonly #openPair: Int32Array;
  /** Per pair, its slot in its lower axis value's open list and in its higher one's. */
  readonly #slotA: Int32Array;
  readonly #slotB: Int32Array;
  /** Per row and axis (at `r * k + c`): the row's pairs on that axis that no other row holds. */
  #unique: Int32Array;
  rows: Int32Array;
  /**
   * Per row and axis, like {@link Cover.rows}: the cell's value as one number, `valueBase[axis] +
   * value`. Derivable, but kept: a move reads it for every other axis (3 % of a search).
   */
  #cells: Int32Array;
  n = 0;
  /**
   * Per axis value, the rows that hold it as a bitset of `words` 32-bit words from
   * `value * words`: a search finds the rows holding one of two values a word at a time, in row order.
   */
  rowBits: Int32Array;
  /**
   * 1 up to 32 rows, where a value's row set is read as `rowBits[value]`; past them a power of two,
   * always with the pair counters ({@link Cover.#held}) kept, which moves read instead.
   */
  words = 1;
  /**
   * Past 32 rows, per pair p: how many rows hold it (at 2p) and the XOR of their numbers (at
   * 2p + 1: the row itself when one does). Up to 32 rows a pair's holders are its two values' row
   * sets ANDed, one word each, which a move reads in less time than it would take to update these.
   */
  #held: Int32Array | null = null;
  /**
   * A fingerprint of the cells {@link Cover.set} has changed: within a fixed set of rows, equal
   * fingerprints mean (but for a 2^-32 chance) equal arrays, so a search can tell it is going round.
   */
  fingerprint = 0;

  constructor(space: PairSpace, reach: Reachability) {
    this.space = space;
    this.target = reach.target;
    this.uncovered = new Int32Array(space.size);
    this.position = new Int32Array(space.size).fill(-1);
    this.valueBase = space.valueBase;
    const { values } = space;
    this.deficit = new Int32Array(values);
    this.openBase = new Int32Array(values);
    let slots = 0;
    for (let c = 0; c < space.k; c++) {
      const partners = values - (space.levels[c] as number);
      for (let v = 0; v < (space.levels[c] as number); v++) {
        this.openBase[(this.valueBase[c] as number) + v] = slots;
        slots += partners;
      }
    }
    this.openAxis = new Int32Array(slots);
    this.openValue = new Int32Array(slots);
    this.openPartner = new Int32Array(slots);
    this.#openPair = new Int32Array(slots);
    this.#slotA = new Int32Array(space.size);
    this.#slotB = new Int32Array(space.size);
    for (let p = 0; p < space.size; p++) if (this.target[p] === 1) this.#open(p);
    this.rows = new Int32Array(space.k * 16);
    this.#cells = new Int32Array(space.k * 16);
    this.#unique = new Int32Array(space.k * 16);
    this.rowBits = new Int32Array(values);
  }

  /** How many rows hold pair p. */
  count(p: number): number {
    if (this.#held !== null) return this.#held[2 * p] as number;
    const { space, valueBase, rowBits } = this;
    const a = (valueBase[space.axisA[p] as number] as number) + (space.valueA[p] as number);
    const b = (valueBase[space.axisB[p] as number] as number) + (space.valueB[p] as number);
    return bitCount((rowBits[a] as number) & (rowBits[b] as number));
  }

  /** Value of axis c in row r. */
  at(r: number, c: number): number {
    return this.rows[r * this.space.k + c] as number;
  }

  /** A copy of row r. */
  row(r: number): Int32Array {
    const k = this.space.k;
    return this.rows.slice(r * k, r * k + k);
  }

  /** Number of target pairs the given full row would cover that no row covers yet. */
  gain(row: Int32Array): number {
    const { space, valueBase } = this;
    let gained = 0;
    for (let i = 0; i < space.k; i++) {
      const a = (valueBase[i] as number) + (row[i] as number);
      for (let j = i + 1; j < space.k; j++) {
        const p = space.index(i, row[i] as number, j, row[j] as number);
        if (this.#holderOf(p, a, (valueBase[j] as number) + (row[j] as number)) === NO_ROW)
          gained++;
      }
    }
    return gained;
  }

  /** Appends a full, valid row. */
  addRow(row: Int32Array): void {
    const k = this.space.k;
    const r = this.n;
    if ((r + 1) * k > this.rows.length) {
      const capacity = this.rows.length * 2;
      this.rows = grown(this.rows, capacity);
      this.#cells = grown(this.#cells, capacity);
      this.#unique = grown(this.#unique, capacity);
    }
    if (r === 32 * this.words) {
      this.#held ??= this.#heldOfRows();
      this.#resizeRowBits(2 * this.words);
    }
    this.rows.set(row, r * k);
    for (let c = 0; c < k; c++)
      this.#cells[r * k + c] = (this.valueBase[c] as number) + (row[c] as number);
    this.#unique.fill(0, r * k, r * k + k);
    this.#count(r, 1);
    for (let c = 0; c < k; c++) this.#mark(r, c, row[c] as number, true);
    this.n++;
  }

  /** Removes row r; the last row takes its place. */
  removeRow(r: number): void {
    const k = this.space.k;
    this.#count(r, -1);
    this.n--;
    const last = this.n;
    for (let c = 0; c < k; c++) {
      this.#mark(r, c, this.at(r, c), false);
      if (r !== last) {
        this.#mark(last, c, this.at(last, c), false);
        this.#mark(r, c, this.at(last, c), true);
      }
    }
    if (r !== last) {
      this.rows.copyWithin(r * k, last * k, last * k + k);
      this.#cells.copyWithin(r * k, last * k, last * k + k);
      this.#unique.copyWithin(r * k, last * k, last * k + k);
      const held = this.#held;
      // The last row is now row r: the pairs it holds name it by its new number.
      if (held !== null) {
        const { space } = this;
        for (let i = 0; i < k; i++) {
          for (let j = i + 1; j < k; j++) {
            const p = space.index(i, this.at(r, i), j, this.at(r, j));
            held[2 * p + 1] = (held[2 * p + 1] as number) ^ last ^ r;
          }
        }
      }
    }
    if (this.words > 1 && this.n <= 32) {
      this.#resizeRowBits(1);
      this.#held = null;
    }
  }

  /** Number of pairs in row r that no other row holds. */
  uniquePairs(r: number): number {
    const k = this.space.k;
    let unique = 0;
    // Each such pair is counted on both of its axes.
    for (let c = 0; c < k; c++) unique += this.#unique[r * k + c] as number;
    return unique / 2;
  }

  /**
   * Change in the number of uncovered pairs if row r's axis c became v, or {@link INVALID} when that
   * would put a forbidden pair in the row.
   */
  delta(r: number, c: number, v: number): number {
    const { space, rows } = this;
    const { k } = space;
    const base = r * k;
    if (rows[base + c] === v) return 0;
    // Pairs the row alone holds on axis c are lost whatever v is; the pairs v would make are new
    // where no row holds them.
    let d = this.#unique[base + c] as number;
    const value = (this.valueBase[c] as number) + v;
    const open = this.deficit[value] as number;
    const { banBase, banAxis, banValue } = space;
    const bansFrom = banBase[value] as number;
    const bansTo = banBase[value + 1] as number;
    if (open + bansTo - bansFrom < k) {
      // A row that takes v without a forbidden pair is valid, and every pair of a valid row is a
      // target (reachablePairs is exact): v's new pairs are its open ones the row meets.
      const { openAxis, openValue } = this;
      for (let s = bansFrom; s < bansTo; s++)
        if (rows[base + (banAxis[s] as number)] === banValue[s]) return INVALID;
      const from = this.openBase[value] as number;
      for (let s = from; s < from + open; s++)
        if (rows[base + (openAxis[s] as number)] === openValue[s]) d--;
      return d;
    }
    const forbidden = space.forbidden;
    const cells = this.#cells;
    for (let j = 0; j < k; j++) {
      if (j === c) continue;
      const gained = space.index(c, v, j, rows[base + j] as number);
      if (forbidden !== null && forbidden[gained] === 1) return INVALID;
      if (this.#holderOf(gained, value, cells[base + j] as number) === NO_ROW) d--;
    }
    return d;
  }

  /**
   * Per row and axis (at `r * k + c`), the pairs the row holds on that axis that no other row
   * holds: lost whatever the axis becomes. Less the new value's uncovered pairs
   * ({@link Cover.deficit}), a floor under {@link Cover.delta}. Read only; a search reads it once a
   * step, not once a candidate.
   */
  get losses(): Int32Array {
    return this.#unique;
  }

  /** Sets row r's axis c to v, keeping every counter current. */
  set(r: number, c: number, v: number): void {
    const { rows } = this;
    const base = r * this.space.k;
    const old = rows[base + c] as number;
    if (old === v) return;
    if (this.#held === null) this.#moveNarrow(r, c, old, v);
    else this.#moveWide(this.#held, r, c, old, v);
    rows[base + c] = v;
    const value = this.valueBase[c] as number;
    this.#cells[base + c] = value + v;
    this.#mark(r, c, old, false);
    this.#mark(r, c, v, true);
    this.fingerprint ^= cellKey(r, value + old) ^ cellKey(r, value + v);
  }

  /**
   * {@link Cover.set}'s counting up to 32 rows, the search's innermost loop: for each other axis,
   * the pair with the old value may be left to one row or to none, the pair with the new one may
   * have one holder more. Each is a word ANDed.
   */
  #moveNarrow(r: number, c: number, old: number, v: number): void {
    const { space, rows, rowBits } = this;
    const k = space.k;
    const base = r * k;
    const value = this.valueBase[c] as number;
    const cells = this.#cells;
    const unique = this.#unique;
    let own = unique[base + c] as number;
    // The other rows holding the old value, and the rows holding the new one (never r).
    const withOld = (rowBits[value + old] as number) & ~(1 << r);
    const withNew = rowBits[value + v] as number;
    for (let j = 0; j < k; j++) {
      if (j === c) continue;
      const partner = rowBits[cells[base + j] as number] as number;
      // Written out, not soleRow: this loop is most of a search's time.
      const kept = withOld & partner;
      if (kept === 0) {
        this.#open(space.index(c, old, j, rows[base + j] as number));
        own--;
        unique[base + j] = (unique[base + j] as number) - 1;
      } else if ((kept & (kept - 1)) === 0) {
        const keeper = 31 - Math.clz32(kept);
        unique[keeper * k + c] = (unique[keeper * k + c] as number) + 1;
        unique[keeper * k + j] = (unique[keeper * k + j] as number) + 1;
      }
      const shared = withNew & partner;
      if (shared === 0) {
        this.#close(space.index(c, v, j, rows[base + j] as number));
        own++;
        unique[base + j] = (unique[base + j] as number) + 1;
      } else if ((shared & (shared - 1)) === 0) {
        const sharer = 31 - Math.clz32(shared);
        unique[sharer * k + c] = (unique[sharer * k + c] as number) - 1;
        unique[sharer * k + j] = (unique[sharer * k + j] as number) - 1;
      }
    }
    unique[base + c] = own;
  }

  /** {@link Cover.set}'s counting past 32 rows: the same, on the pairs' counts. */
  #moveWide(held: Int32Array, r: number, c: number, old: number, v: number): void {
    const { space, rows } = this;
    const { k, offset, mulOwn, mulOther } = space;
    const base = r * k;
    const unique = this.#unique;
    for (let j = 0; j < k; j++) {
      if (j === c) continue;
      const o = c * k + j;
      const shared = (offset[o] as number) + (rows[base + j] as number) * (mulOther[o] as number);
      const own = mulOwn[o] as number;
      const lost = shared + old * own;
      const left = (held[2 * lost] as number) - 1;
      held[2 * lost] = left;
      const keeper = (held[2 * lost + 1] as number) ^ r;
      held[2 * lost + 1] = keeper;
      if (left === 0) {
        this.#open(lost);
        unique[base + c] = (unique[base + c] as number) - 1;
        unique[base + j] = (unique[base + j] as number) - 1;
      } else if (left === 1) {
        unique[keeper * k + c] = (unique[keeper * k + c] as number) + 1;
        unique[keeper * k + j] = (unique[keeper * k + j] as number) + 1;
      }
      const made = shared + v * own;
      const before = held[2 * made] as number;
      held[2 * made] = before + 1;
      const others = held[2 * made + 1] as number;
      held[2 * made + 1] = others ^ r;
      if (before === 0) {
        this.#close(made);
        unique[base + c] = (unique[base + c] as number) + 1;
        unique[base + j] = (unique[base + j] as number) + 1;
      } else if (before === 1) {
        unique[others * k + c] = (unique[others * k + c] as number) - 1;
        unique[others * k + j] = (unique[others * k + j] as number) - 1;
      }
    }
  }

  /**
   * The one row holding pair p (axis values a and b) besides row `besides`, which holds it (−1:
   * none set aside), or {@link NO_ROW} or {@link MANY_ROWS}.
   */
  #holderOf(p: number, a: number, b: number, besides = -1): number {
    const held = this.#held;
    const setAside = besides < 0 ? 0 : 1;
    if (held === null)
      return soleRow(
        (this.rowBits[a] as number) & (this.rowBits[b] as number) & ~(setAside << besides),
      );
    const count = (held[2 * p] as number) - setAside;
    if (count !== 1) return count === 0 ? NO_ROW : MANY_ROWS;
    return (held[2 * p + 1] as number) ^ Math.max(besides, 0);
  }

  /** Sets (or clears) row r's bit in the row set of axis c's value v. */
  #mark(r: number, c: number, v: number, on: boolean): void {
    const at = ((this.valueBase[c] as number) + v) * this.words + (r >>> 5);
    const bit = 1 << (r & 31);
    this.rowBits[at] = on
      ? (this.rowBits[at] as number) | bit
      : (this.rowBits[at] as number) & ~bit;
  }

  /** Gives every value's row set `words` words, keeping the rows that fit. */
  #resizeRowBits(words: number): void {
    const resized = new Int32Array(this.deficit.length * words);
    const kept = Math.min(words, this.words);
    for (let value = 0; value < this.deficit.length; value++)
      resized.set(
        this.rowBits.subarray(value * this.words, value * this.words + kept),
        value * words,
      );
    this.rowBits = resized;
    this.words = words;
  }

  /** The pairs' counts and holders ({@link Cover.#held}) of the rows there are. */
  #heldOfRows(): Int32Array {
    const { space } = this;
    const held = new Int32Array(2 * space.size);
    for (let r = 0; r < this.n; r++) {
      for (let i = 0; i < space.k; i++) {
        for (let j = i + 1; j < space.k; j++) {
          const p = space.index(i, this.at(r, i), j, this.at(r, j));
          held[2 * p] = (held[2 * p] as number) + 1;
          held[2 * p + 1] = (held[2 * p + 1] as number) ^ r;
        }
      }
    }
    return held;
  }

  /**
   * Row r's pairs as it joins (step 1: not counted yet) or leaves (−1: still counted): a pair no
   * other row holds is closed or opened, and one other row holding it loses or gains a unique pair.
   */
  #count(r: number, step: 1 | -1): void {
    const { space } = this;
    const k = space.k;
    const cells = this.#cells;
    const unique = this.#unique;
    const held = this.#held;
    const base = r * k;
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++) {
        const a = cells[base + i] as number;
        const b = cells[base + j] as number;
        const p = space.index(i, this.at(r, i), j, this.at(r, j));
        const holder = this.#holderOf(p, a, b, step === 1 ? -1 : r);
        if (held !== null) {
          held[2 * p] = (held[2 * p] as number) + step;
          held[2 * p + 1] = (held[2 * p + 1] as number) ^ r;
        }
        if (holder === MANY_ROWS) continue;
        const row = holder === NO_ROW ? r : holder;
        const shift = holder === NO_ROW ? step : -step;
        unique[row * k + i] = (unique[row * k + i] as number) + shift;
        unique[row * k + j] = (unique[row * k + j] as number) + shift;
        if (holder !== NO_ROW) continue;
        if (step === 1) this.#close(p);
        else this.#open(p);
      }
    }
  }

  #open(p: number): void {
    this.position[p] = this.uncoveredCount;
    this.uncovered[this.uncoveredCount++] = p;
    const { space, valueBase } = this;
    const i = space.axisA[p] as number;
    const a = space.valueA[p] as number;
    const j = space.axisB[p] as number;
    const b = space.valueB[p] as number;
    this.#slotA[p] = this.#push((valueBase[i] as number) + a, p, j, b);
    this.#slotB[p] = this.#push((valueBase[j] as number) + b, p, i, a);
  }

  #close(p: number): void {
    const slot = this.position[p] as number;
    const last = this.uncovered[--this.uncoveredCount] as number;
    this.uncovered[slot] = last;
    this.position[last] = slot;
    this.position[p] = -1;
    const { space, valueBase } = this;
    this.#pull(
      (valueBase[space.axisA[p] as number] as number) + (space.valueA[p] as number),
      this.#slotA[p] as number,
    );
    this.#pull(
      (valueBase[space.axisB[p] as number] as number) + (space.valueB[p] as number),
      this.#slotB[p] as number,
    );
  }

  /** The i-th uncovered pair of an axis value (`i < deficit[value]`), in no particular order. */
  openPairAt(value: number, i: number): number {
    return this.#openPair[(this.openBase[value] as number) + i] as number;
  }

  /** Appends pair p, whose other side is (axis, value), to the open list of `value`; returns its slot. */
  #push(value: number, p: number, axis: number, other: number): number {
    const slot = (this.openBase[value] as number) + (this.deficit[value] as number);
    this.deficit[value] = (this.deficit[value] as number) + 1;
    this.openAxis[slot] = axis;
    this.openValue[slot] = other;
    this.openPartner[slot] = (this.valueBase[axis] as number) + other;
    this.#openPair[slot] = p;
    return slot;
  }

  /** Removes the entry at `slot` from the open list of `value`; its last entry takes the slot. */
  #pull(value: number, slot: number): void {
    const left = (this.deficit[value] as number) - 1;
    this.deficit[value] = left;
    const last = (this.openBase[value] as number) + left;
    if (slot === last) return;
    const moved = this.#openPair[last] as number;
    this.openAxis[slot] = this.openAxis[last] as number;
    this.openValue[slot] = this.openValue[last] as number;
    this.openPartner[slot] = this.openPartner[last] as number;
    this.#openPair[slot] = moved;
    // The moved pair names this value on its lower axis side or on its higher one.
    if (this.#slotA[moved] === last) this.#slotA[moved] = slot;
    else this.#slotB[moved] = slot;
  }
}

/** What {@link Cover} reads a pair's holders as: no row, or more than one. */
const NO_ROW = -1;
const MANY_ROWS = -2;

/** How many bits of a word are set (Hacker's Delight, 5-2). */
function bitCount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The only row in a set of rows (one word), or {@link NO_ROW} or {@link MANY_ROWS}. */
function soleRow(rows: number): number {
  if (rows === 0) return NO_ROW;
  return (rows & (rows - 1)) === 0 ? 31 - Math.clz32(rows) : MANY_ROWS;
}

/** A copy of `array` in a new array of `length`, zero past its end. */
function grown(array: Int32Array, length: number): Int32Array {
  const copy = new Int32Array(length);
  copy.set(array);
  return copy;
}

/** A well-mixed 32-bit key for row r holding an axis value (Zobrist hashing's table, computed). */
function cellKey(r: number, value: number): number {
  let x = Math.imul(r + 1, 0x9e3779b1) ^ Math.imul(value + 1, 0x85ebca77);
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d);
  return x ^ (x >>> 12);
}
