/** Words of a text for the near-copy rule: runs of letters and digits, lower-cased. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * A 53-bit hash of `n` word ids starting at `at` (two 32-bit mixes joined): a number key, so an
 * index of millions of n-grams stays a Map of numbers, not of strings; at 53 bits a false match
 * among tens of millions of n-grams is vanishingly rare.
 */
function ngramHash(ids: Int32Array, at: number, n: number): number {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = at; i < at + n; i++) {
    const id = ids[i] as number;
    a = Math.imul(a ^ id, 0x01000193);
    b = Math.imul(b ^ (id + 0x7f4a7c15), 0x85ebca6b);
    b ^= b >>> 13;
  }
  return (a >>> 0) * 2 ** 21 + (b >>> 11);
}

/** The best near-copy match of a row: the eval item covering most of its words, and the share. */
export interface CoverageMatch {
  item: number;
  covered: number;
  words: number;
}

/**
 * An index of the `n`-word n-grams of an eval set, hashed, for the near-copy rule: a row is looked
 * up n-gram by n-gram (time linear in its words and the eval items sharing them), never compared
 * with every eval text.
 */
export class NgramIndex {
  readonly n: number;
  /** Word → id, for the eval set's words only: a row word outside it starts no shared n-gram. */
  readonly #vocabulary = new Map<string, number>();
  /** n-gram hash → the eval items holding it (one number for the common single holder). */
  readonly #postings = new Map<number, number | number[]>();
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
      const key = ngramHash(ids, at, this.n);
      const held = this.#postings.get(key);
      if (held === undefined) this.#postings.set(key, item);
      else if (typeof held === "number") {
        if (held !== item) this.#postings.set(key, [held, item]);
      } else if (held[held.length - 1] !== item) held.push(item);
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
      const held = this.#postings.get(ngramHash(ids, at, this.n));
      if (held === undefined) continue;
      for (const item of typeof held === "number" ? [held] : held) {
        const seen = covered.get(item);
        if (!seen) covered.set(item, { count: this.n, end: i + 1 });
        else {
          seen.count += i + 1 - Math.max(seen.end, at);
          seen.end = i + 1;
        }
      }
    }
    let best: CoverageMatch | null = null;
    for (const [item, { count }] of covered)
      if (!best || count > best.covered || (count === best.covered && item < best.item))
        best = { item, covered: count, words: words.length };
    return best;
  }
}
