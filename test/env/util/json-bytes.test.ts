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

  it("measures a value that writes itself (toJSON) by its JSON", () => {
    const stamp = { toJSON: () => "x".repeat(100) };
    expect(jsonBytesOver({ at: stamp }, 50)).toBe(exact({ at: stamp }));
    expect(jsonBytesOver({ at: new Date(0) }, 10)).toBe(exact({ at: new Date(0) }));
  });
});
