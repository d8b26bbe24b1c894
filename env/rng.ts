import seedrandom from "seedrandom";

/** A seed as users give it: a non-negative integer or any string. */
export type Seed = number | string;

/**
 * A deterministic random stream. Every choice in rehearse draws from one of these, each derived
 * from the run seed and a label path, so adding a draw in one place never shifts another stream.
 */
export class Rng {
  /** The generator, seeded at the first draw: many streams only fork others and never draw. */
  #generator: (() => number) | null = null;
  readonly key: string;

  constructor(seed: Seed, ...labels: string[]) {
    this.key = [String(seed), ...labels].join("/");
  }

  /** A float in [0, 1). */
  next(): number {
    this.#generator ??= seedrandom.alea(this.key);
    return this.#generator();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0)
      throw new RangeError(`Rng.int: expected a positive integer, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Rng.pick: expected a non-empty array");
    return items[this.int(items.length)] as T;
  }

  /** A new array with the items in a random order (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = out[i] as T;
      out[i] = out[j] as T;
      out[j] = tmp;
    }
    return out;
  }

  /** An independent sub-stream named by more labels. */
  fork(...labels: string[]): Rng {
    return new Rng(this.key, ...labels);
  }

  /** A 32-bit unsigned integer, for seeding things derived from this stream. */
  uint32(): number {
    return Math.floor(this.next() * 0x1_0000_0000);
  }
}
