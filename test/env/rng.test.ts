import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { Rng } from "../../env/rng.ts";

const draw = (rng: Rng, n = 8) => Array.from({ length: n }, () => rng.next());

describe("Rng", () => {
  it("repeats for the same seed and labels, and differs for others", () => {
    expect(draw(new Rng(1, "a"))).toEqual(draw(new Rng(1, "a")));
    expect(draw(new Rng(1, "a"))).not.toEqual(draw(new Rng(1, "b")));
    expect(draw(new Rng(1, "a"))).not.toEqual(draw(new Rng(2, "a")));
    expect(draw(new Rng("1", "a"))).toEqual(draw(new Rng(1, "a")));
  });

  it("forks sub-streams that do not move the parent", () => {
    const parent = new Rng(5);
    const before = draw(new Rng(5), 3);
    const child = parent.fork("child");
    expect(draw(parent, 3)).toEqual(before);
    expect(draw(child, 3)).toEqual(draw(new Rng(5).fork("child"), 3));
  });

  it("draws integers in range, picks members and shuffles into permutations", () => {
    const rng = new Rng(9);
    const ints = Array.from({ length: 2000 }, () => rng.int(7));
    expect(Math.min(...ints)).toBe(0);
    expect(Math.max(...ints)).toBe(6);
    expect(["a", "b", "c"]).toContain(rng.pick(["a", "b", "c"]));
    const items = Array.from({ length: 20 }, (_, n) => n);
    const shuffled = rng.shuffle(items);
    expect([...shuffled].sort((a, b) => a - b)).toEqual(items);
    expect(shuffled).not.toEqual(items);
    expect(() => rng.int(0)).toThrow(/positive integer/);
    expect(() => rng.pick([])).toThrow(/non-empty/);
  });
});

describe("Rng's Alea", () => {
  it("draws the numbers seedrandom's Alea draws for the same key", () => {
    for (const labels of [[], ["world", "sit_f4269a468504cb43", "records"], ["é", "日本", "🙂"]]) {
      for (const seed of [0, 1, 424242, "a seed"]) {
        const ours = new Rng(seed, ...labels);
        const theirs = seedrandom.alea(ours.key);
        expect(draw(ours, 1000)).toEqual(Array.from({ length: 1000 }, () => theirs()));
      }
    }
  });
});
