import { describe, expect, it } from "vitest";
import { memoized } from "../../../env/util/memo.ts";

describe("memoized", () => {
  it("works a key out once, undefined results included, and starts afresh at its limit", () => {
    const asked: string[] = [];
    const lengthOf = memoized((key) => {
      asked.push(key);
      return key === "none" ? undefined : key.length;
    }, 3);
    expect([lengthOf("ab"), lengthOf("ab"), lengthOf("none"), lengthOf("none")]).toEqual([
      2,
      2,
      undefined,
      undefined,
    ]);
    expect(asked).toEqual(["ab", "none"]);
    lengthOf("abc");
    lengthOf("abcd");
    // The fourth key found three held: the memo started afresh, so "ab" is worked out again.
    expect(lengthOf("ab")).toBe(2);
    expect(asked).toEqual(["ab", "none", "abc", "abcd", "ab"]);
  });
});
