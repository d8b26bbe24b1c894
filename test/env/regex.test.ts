import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { regexLiteral, replaceStandalone } from "../../env/util/regex.ts";

/** What replaceStandalone stands for: the pattern it saves compiling for every value. */
function byPattern(text: string, value: string, by: string): string {
  return text.replace(new RegExp(`(?<![\\w-])${regexLiteral(value)}(?![\\w-])`, "g"), by);
}

describe("replaceStandalone", () => {
  it("replaces a value only where no word character or hyphen touches it", () => {
    expect(replaceStandalone("born 1990-04-02, reading 1990", "1990", " ")).toBe(
      "born 1990-04-02, reading  ",
    );
    expect(replaceStandalone("W123 and W1234 and xW123", "W123", "·")).toBe(
      "· and W1234 and xW123",
    );
    expect(replaceStandalone("aaa", "aa", "b")).toBe("aaa");
    expect(replaceStandalone("aa aa", "aa", "")).toBe(" ");
  });

  it("agrees with the lookaround pattern it replaces, on any text and value", () => {
    const alphabet = fc.constantFrom("a", "1", "-", "_", " ", ".", "W", "é", "$", "(");
    const text = fc.array(alphabet, { maxLength: 24 }).map((c) => c.join(""));
    const value = fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((c) => c.join(""));
    fc.assert(
      fc.property(text, value, fc.constantFrom(" ", "", "#"), (t, v, by) => {
        expect(replaceStandalone(t, v, by)).toBe(byPattern(t, v, by));
      }),
      { numRuns: 2000 },
    );
  });
});
