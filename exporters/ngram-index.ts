import { NgramTable } from "./ngram-table.ts";

/** Words of a text for the near-copy rule: runs of letters and digits, lower-cased. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * A 64-bit hash of `n` word ids starting at `at`, as two 32-bit halves (two FNV-style mixes): at
 * 64 bits a false match among tens of millions of n-grams is vanishingly rare.
 */
function ngramHash(ids: Int32Array, at: number, n: number, out: Uint32Array): void {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = at; i < at + n; i++) {
    const id = ids[i] as number;
    a = Math.imul(a ^ id, 0x01000193);
    b = Math.imul(b ^ (id + 0x7f4a7c15), 0x85ebca6b);
    b ^= b >>> 13;
  }
  out[0] = a;
  out[1] = b;
}

/** The best near-copy match of a row: the eval item covering most of its words, and the share. */
export interface CoverageMatch {
  item: number;
  covered: number;
  words: number;
}

/**
 * An index of the `n`-word n-grams of an eval set, hashed into a {@link NgramTable}, for the near-copy rule: a row is looked
 * up n-gram by n-gram (time linear in its words and the eval items sharing them), never compared
 * with every eval text.
 */
export class NgramIndex {
  readonly n: number;
  /** Word → id, for the eval set's words only: a row word outside it starts no shared n-gram. */
  readonly #vocabulary = new Map<string, number>();
  /** n-gram hash → the eval items holding it. */
  readonly #table = new NgramTable();
  /** Scratch space for one hash. */
  readonly #hash = new Uint32Array(2);
  #items = 0;

  constructor(n: number) {
    this.n = n;
  }

  /** How many eval items the index holds. */
  get size(): number {
    return this.#items;
  }

  /** Adds an eval item's text; returns its number in the index. */
  add(text: string): number {
    const item = this.#items++;
    const words = wordsOf(text);
    const ids = new Int32Array(words.length);
    words.forEach((word, i) => {
      let id = this.#vocabulary.get(word);
      if (id === undefined) {
        id = this.#vocabulary.size;
        this.#vocabulary.set(word, id);
      }
      ids[i] = id;
    });
    for (let at = 0; at + this.n <= ids.length; at++) {
      ngramHash(ids, at, this.n, this.#hash);
      this.#table.add(this.#hash[0] as number, this.#hash[1] as number, item);
    }
    return item;
  }

  /**
   * The eval item whose shared n-grams cover the most of the row's words (ties: the earlier item),
   * or null when none shares one. A word counts as covered when some n-gram holding it is in that
   * eval item.
   */
  bestCover(text: string): CoverageMatch | null {
    const words = wordsOf(text);
    if (words.length < this.n) return null;
    const ids = new Int32Array(words.length);
    for (let i = 0; i < words.length; i++) ids[i] = this.#vocabulary.get(words[i] as string) ?? -1;
    // Per candidate: words covered so far, and the end of the last covered run (scan is left to right).
    const covered = new Map<number, { count: number; end: number }>();
    let unknownAt = -1;
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] === -1) unknownAt = i;
      const at = i - this.n + 1;
      if (at < 0 || unknownAt >= at) continue;
      ngramHash(ids, at, this.n, this.#hash);
      this.#table.forEach(this.#hash[0] as number, this.#hash[1] as number, (item) => {
        const seen = covered.get(item);
        if (!seen) covered.set(item, { count: this.n, end: i + 1 });
        else {
          seen.count += i + 1 - Math.max(seen.end, at);
          seen.end = i + 1;
        }
      });
    }
    let best: CoverageMatch | null = null;
    for (const [item, { count }] of covered)
      if (!best || count > best.covered || (count === best.covered && item < best.item))
        best = { item, covered: count, words: words.length };
    return best;
  }
}
