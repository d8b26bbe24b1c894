import { describe, expect, it } from "vitest";
import { typoMender } from "../../../env/text/typos.ts";

describe("typoMender", () => {
  const mend = typoMender(["again", "check", "meant"]);

  it("mends a slip of two neighbouring letters of a word it knows, keeping a capital", () => {
    expect(mend("Try aagin, and chekc it")).toBe("Try again, and check it");
    expect(mend("Agian? That's not what I maent")).toBe("Again? That's not what I meant");
  });

  it("leaves whole words alone: other words, the words themselves, a slip of a word's first letter, a slip inside a longer word", () => {
    expect(mend("again check meant mate aagins gaain")).toBe("again check meant mate aagins gaain");
  });
});
