import type { Reachability } from "./rows.ts";
import type { PairSpace } from "./space.ts";

/** Returned by {@link Cover.delta} for a change that would put a forbidden pair in the row. */
export const INVALID = Number.POSITIVE_INFINITY;

/**
 * A growing set of rows and, for every pair, how many rows hold it. Keeps the list of target pairs
 * no row holds yet (O(1) add and remove) and, per axis value, how many of those it is part of.
 */
export class Cover {
  readonly space: PairSpace;
  readonly target: Uint8Array;
  /**
   * Per pair p, how many rows hold it (at 2p) and the XOR of those rows' numbers (at 2p + 1): the
   * row itself when one does. Side by side, a move touches one cache line per pair.
   */
  readonly #held: Int32Array;
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
  n = 0;
  /**
   * Per axis value, the rows that hold it as a bitset of `words` 32-bit words from
   * `value * words`: a search finds the rows holding one of two values a word at a time, in row order.
   */
  rowBits: Int32Array;
  words = 1;
  /**
   * A fingerprint of the cells {@link Cover.set} has changed: within a fixed set of rows, equal
   * fingerprints mean (but for a 2^-32 chance) equal arrays, so a search can tell it is going round.
   */
  fingerprint = 0;

  constructor(space: PairSpace, reach: Reachability) {
    this.space = space;
    this.target = reach.target;
    this.#held = new Int32Array(2 * space.size);
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
    this.#unique = new Int32Array(space.k * 16);
    this.rowBits = new Int32Array(values);
  }

  /** How many rows hold pair p. */
  count(p: number): number {
    return this.#held[2 * p] as number;
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
    const { space } = this;
    const held = this.#held;
    let gained = 0;
    for (let i = 0; i < space.k; i++) {
      for (let j = i + 1; j < space.k; j++) {
        if (held[2 * space.index(i, row[i] as number, j, row[j] as number)] === 0) gained++;
      }
    }
    return gained;
  }

  /** Appends a full, valid row. */
  addRow(row: Int32Array): void {
    const k = this.space.k;
    if ((this.n + 1) * k > this.rows.length) {
      const grown = new Int32Array(this.rows.length * 2);
      grown.set(this.rows);
      this.rows = grown;
      const unique = new Int32Array(grown.length);
      unique.set(this.#unique);
      this.#unique = unique;
      this.#widenRowBits(Math.ceil(grown.length / k / 32));
    }
    this.rows.set(row, this.n * k);
    for (let c = 0; c < k; c++) this.#mark(this.n, c, row[c] as number, true);
    this.#unique.fill(0, this.n * k, this.n * k + k);
    this.n++;
    this.#count(this.n - 1, 1);
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
    if (r === last) return;
    this.rows.copyWithin(r * k, last * k, last * k + k);
    this.#unique.copyWithin(r * k, last * k, last * k + k);
    // The last row is now row r: the pairs it holds name it by its new number.
    const { space } = this;
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++) {
        const p = space.index(i, this.at(r, i), j, this.at(r, j));
        this.#held[2 * p + 1] = (this.#held[2 * p + 1] as number) ^ last ^ r;
      }
    }
  }

  /** Number of pairs in row r that no other row holds. */
  uniquePairs(r: number): number {
    const { space } = this;
    const held = this.#held;
    let unique = 0;
    for (let i = 0; i < space.k; i++) {
      for (let j = i + 1; j < space.k; j++) {
        if (held[2 * space.index(i, this.at(r, i), j, this.at(r, j))] === 1) unique++;
      }
    }
    return unique;
  }

  /**
   * Change in the number of uncovered pairs if row r's axis c became v, or {@link INVALID} when that
   * would put a forbidden pair in the row.
   */
  delta(r: number, c: number, v: number): number {
    const { space, rows } = this;
    const held = this.#held;
    const { k, offset, mulOwn, mulOther } = space;
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
    for (let j = 0; j < k; j++) {
      if (j === c) continue;
      const o = c * k + j;
      const gained =
        (offset[o] as number) +
        (rows[base + j] as number) * (mulOther[o] as number) +
        v * (mulOwn[o] as number);
      if (forbidden !== null && forbidden[gained] === 1) return INVALID;
      if (held[2 * gained] === 0) d--;
    }
    return d;
  }

  /**
   * Pairs row r holds on axis c that no other row holds: lost whatever c becomes. Less the new
   * value's uncovered pairs ({@link Cover.deficit}), a floor under {@link Cover.delta}.
   */
  loss(r: number, c: number): number {
    return this.#unique[r * this.space.k + c] as number;
  }

  /** Sets row r's axis c to v, keeping every counter current. */
  set(r: number, c: number, v: number): void {
    const { space, rows } = this;
    const { k, offset, mulOwn, mulOther } = space;
    const base = r * k;
    const old = rows[base + c] as number;
    if (old === v) return;
    // #drop then #hold for each other axis, written out: this is the search's innermost loop.
    const held = this.#held;
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
    rows[base + c] = v;
    this.#mark(r, c, old, false);
    this.#mark(r, c, v, true);
    const value = this.valueBase[c] as number;
    this.fingerprint ^= cellKey(r, value + old) ^ cellKey(r, value + v);
  }

  /** Sets (or clears) row r's bit in the row set of axis c's value v. */
  #mark(r: number, c: number, v: number, on: boolean): void {
    const at = ((this.valueBase[c] as number) + v) * this.words + (r >>> 5);
    const bit = 1 << (r & 31);
    this.rowBits[at] = on
      ? (this.rowBits[at] as number) | bit
      : (this.rowBits[at] as number) & ~bit;
  }

  #widenRowBits(words: number): void {
    if (words === this.words) return;
    const wider = new Int32Array(this.deficit.length * words);
    for (let value = 0; value < this.deficit.length; value++)
      wider.set(this.rowBits.subarray(value * this.words, (value + 1) * this.words), value * words);
    this.rowBits = wider;
    this.words = words;
  }

  #count(r: number, step: 1 | -1): void {
    const { space } = this;
    for (let i = 0; i < space.k; i++) {
      for (let j = i + 1; j < space.k; j++) {
        const p = space.index(i, this.at(r, i), j, this.at(r, j));
        if (step === 1) this.#hold(p, r, i, j);
        else this.#drop(p, r, i, j);
      }
    }
  }

  /** Row r, on axes i and j, now holds pair p. */
  #hold(p: number, r: number, i: number, j: number): void {
    const held = this.#held;
    const before = held[2 * p] as number;
    if (before === 0) this.#close(p);
    held[2 * p] = before + 1;
    held[2 * p + 1] = (held[2 * p + 1] as number) ^ r;
    if (before === 0) this.#shiftUnique(r, i, j, 1);
    else if (before === 1) this.#shiftUnique((held[2 * p + 1] as number) ^ r, i, j, -1);
  }

  /** Row r, on axes i and j, no longer holds pair p. */
  #drop(p: number, r: number, i: number, j: number): void {
    const held = this.#held;
    const left = (held[2 * p] as number) - 1;
    held[2 * p] = left;
    held[2 * p + 1] = (held[2 * p + 1] as number) ^ r;
    if (left === 0) {
      this.#open(p);
      this.#shiftUnique(r, i, j, -1);
    } else if (left === 1) this.#shiftUnique(held[2 * p + 1] as number, i, j, 1);
  }

  #shiftUnique(r: number, i: number, j: number, step: number): void {
    const k = this.space.k;
    this.#unique[r * k + i] = (this.#unique[r * k + i] as number) + step;
    this.#unique[r * k + j] = (this.#unique[r * k + j] as number) + step;
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

/** A well-mixed 32-bit key for row r holding an axis value (Zobrist hashing's table, computed). */
function cellKey(r: number, value: number): number {
  let x = Math.imul(r + 1, 0x9e3779b1) ^ Math.imul(value + 1, 0x85ebca77);
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d);
  return x ^ (x >>> 12);
}
