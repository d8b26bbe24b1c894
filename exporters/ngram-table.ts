/** Marks a free slot of the table. */
const EMPTY = -1;

/**
 * A hash table from 64-bit n-gram hashes (two 32-bit halves) to the eval items holding them, in
 * typed arrays with open addressing: no boxed number per key and no per-entry object, so an index of
 * millions of n-grams stays compact and a lookup touches one or two cache lines. The rare n-gram
 * held by several items keeps its further holders in a side map.
 */
export class NgramTable {
  #mask: number;
  #high: Uint32Array;
  #low: Uint32Array;
  /** The first item holding the n-gram in each slot, or EMPTY. */
  #first: Int32Array;
  /** Further holders, by slot, for n-grams several eval items share. */
  #more = new Map<number, number[]>();
  #size = 0;

  constructor(capacity = 1 << 16) {
    this.#mask = capacity - 1;
    this.#high = new Uint32Array(capacity);
    this.#low = new Uint32Array(capacity);
    this.#first = new Int32Array(capacity).fill(EMPTY);
  }

  /** The slot of a key: where it is, or the free slot where it would go. */
  #slot(high: number, low: number): number {
    let slot = (low ^ Math.imul(high, 0x9e3779b1)) & this.#mask;
    while (this.#first[slot] !== EMPTY && (this.#high[slot] !== high || this.#low[slot] !== low))
      slot = (slot + 1) & this.#mask;
    return slot;
  }

  /** Records that eval item `item` holds the n-gram (items are added in increasing order). */
  add(high: number, low: number, item: number): void {
    if ((this.#size + 1) * 2 > this.#mask + 1) this.#grow();
    const slot = this.#slot(high, low);
    const first = this.#first[slot] as number;
    if (first === EMPTY) {
      this.#high[slot] = high;
      this.#low[slot] = low;
      this.#first[slot] = item;
      this.#size++;
      return;
    }
    if (first === item) return;
    const more = this.#more.get(slot);
    if (!more) this.#more.set(slot, [item]);
    else if (more[more.length - 1] !== item) more.push(item);
  }

  /** Calls `visit` with each eval item holding the n-gram, in the order they were added. */
  forEach(high: number, low: number, visit: (item: number) => void): void {
    const slot = this.#slot(high, low);
    const first = this.#first[slot] as number;
    if (first === EMPTY) return;
    visit(first);
    const more = this.#more.get(slot);
    if (more) for (const item of more) visit(item);
  }

  /** Doubles the table and places every key again (the side map moves with its slots). */
  #grow(): void {
    const high = this.#high;
    const low = this.#low;
    const first = this.#first;
    const more = this.#more;
    const capacity = (this.#mask + 1) * 2;
    this.#mask = capacity - 1;
    this.#high = new Uint32Array(capacity);
    this.#low = new Uint32Array(capacity);
    this.#first = new Int32Array(capacity).fill(EMPTY);
    this.#more = new Map();
    for (let slot = 0; slot < first.length; slot++) {
      if (first[slot] === EMPTY) continue;
      const to = this.#slot(high[slot] as number, low[slot] as number);
      this.#high[to] = high[slot] as number;
      this.#low[to] = low[slot] as number;
      this.#first[to] = first[slot] as number;
      const others = more.get(slot);
      if (others) this.#more.set(to, others);
    }
  }
}
