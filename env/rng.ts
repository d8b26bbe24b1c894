/** A seed as users give it: a non-negative integer or any string. */
export type Seed = number | string;

/**
 * A deterministic random stream. Every choice in rehearse draws from one of these, each derived
 * from the run seed and a label path, so adding a draw in one place never shifts another stream.
 */
export class Rng {
  /** The generator, seeded at the first draw: many streams only fork others and never draw. */
  #generator: Alea | null = null;
  readonly key: string;

  constructor(seed: Seed, ...labels: string[]) {
    this.key = [String(seed), ...labels].join("/");
  }

  /** A float in [0, 1). */
  next(): number {
    this.#generator ??= new Alea(this.key);
    return this.#generator.next();
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

/** 2^-32. */
const UNIT = 2.3283064365386963e-10;
/** Mash's states after each of the three spaces Alea hashes before its seed: the same for every seed. */
const SPACE_1 = mash(0xefc8249d, " ");
const SPACE_2 = mash(SPACE_1, " ");
const SPACE_3 = mash(SPACE_2, " ");

/** Johannes Baagoe's Mash hash: the state after hashing `data` ({@link output} reads it). */
function mash(state: number, data: string): number {
  let n = state;
  for (let i = 0; i < data.length; i++) {
    n += data.charCodeAt(i);
    let h = 0.02519603282416938 * n;
    n = h >>> 0;
    h -= n;
    h *= n;
    n = h >>> 0;
    h -= n;
    n += h * 0x1_0000_0000;
  }
  return n;
}

/** Mash's output for a state: a float in [0, 1). */
function output(state: number): number {
  return (state >>> 0) * UNIT;
}

/**
 * Baagoe's Alea generator, number for number the one seedrandom 3 makes (`seedrandom.alea`). Its
 * Mash keeps the hash state in a closure, a number boxed anew for every character of the key:
 * seeding a stream here takes about 60% of its time (a row seeds about nine).
 */
class Alea {
  /**
   * s0, s1, s2 and c in a typed array: fractions kept in fields are stored as boxed numbers, with
   * a write barrier on every draw.
   */
  readonly #state = new Float64Array(4);

  constructor(seed: string) {
    const state = this.#state;
    let n = mash(SPACE_3, seed);
    state[0] = output(SPACE_1) - output(n);
    if ((state[0] as number) < 0) state[0] = (state[0] as number) + 1;
    n = mash(n, seed);
    state[1] = output(SPACE_2) - output(n);
    if ((state[1] as number) < 0) state[1] = (state[1] as number) + 1;
    n = mash(n, seed);
    state[2] = output(SPACE_3) - output(n);
    if ((state[2] as number) < 0) state[2] = (state[2] as number) + 1;
    state[3] = 1;
  }

  /** A float in [0, 1). */
  next(): number {
    const state = this.#state;
    const t = 2091639 * (state[0] as number) + (state[3] as number) * UNIT;
    state[0] = state[1] as number;
    state[1] = state[2] as number;
    const c = t | 0;
    state[3] = c;
    const fraction = t - c;
    state[2] = fraction;
    return fraction;
  }
}
