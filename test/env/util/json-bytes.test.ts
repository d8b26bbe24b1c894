import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonBytesOver } from "../../../env/util/json-bytes.ts";

const exact = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? "");

/** Strings with escapes, lone surrogates and characters of every UTF-8 width. */
const awkward = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\u0000", "\u001f", '"', "\\", "\n", "\ud800", "\udfff", "é", "€", "😀"),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
});

describe("jsonBytesOver", () => {
  it("gives the JSON's exact bytes when they are over the limit, and null when they are not", () => {
    const value = fc.oneof(
      fc.jsonValue(),
      awkward,
      fc.dictionary(awkward, fc.oneof(awkward, fc.double(), fc.constant(undefined))),
    );
    fc.assert(
      fc.property(value, fc.nat({ max: 4000 }), (v, limit) => {
        const bytes = exact(v);
        expect(jsonBytesOver(v, limit)).toBe(bytes > limit ? bytes : null);
        expect(jsonBytesOver(v, bytes)).toBeNull();
        if (bytes > 0) expect(jsonBytesOver(v, bytes - 1)).toBe(bytes);
      }),
      { numRuns: 1000 },
    );
  });

  it("bounds the longest numbers JavaScript writes, logprobs among them", () => {
    const longest = [
      -0.0000012345678901234567, -1.7976931348623157e308, -5e-324, -1234567890123456800000,
    ];
    for (const n of longest) expect(JSON.stringify(n).length).toBeLessThanOrEqual(25);
    // Thousands of them, as a message's token_logprobs: the bound's slack elsewhere does not cover them.
    const message = {
      role: "assistant",
      content: "ok",
      token_logprobs: Array(10_300).fill(longest[0]),
    };
    const bytes = exact(message);
    expect(jsonBytesOver(message, bytes - 1)).toBe(bytes);
    expect(jsonBytesOver(message, 262_144)).toBe(bytes > 262_144 ? bytes : null);
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e-5, max: -1e-6, noNaN: true }), { maxLength: 2000 }),
        (numbers) => {
          const bytes = exact(numbers);
          if (bytes > 0) expect(jsonBytesOver(numbers, bytes - 1)).toBe(bytes);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("measures a value that writes itself (toJSON) by its JSON", () => {
    const stamp = { toJSON: () => "x".repeat(100) };
    expect(jsonBytesOver({ at: stamp }, 50)).toBe(exact({ at: stamp }));
    expect(jsonBytesOver({ at: new Date(0) }, 10)).toBe(exact({ at: new Date(0) }));
  });
});
