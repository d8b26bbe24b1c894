import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { copyData } from "../../../env/util/copy.ts";
import { keyed } from "../../../env/util/lookup.ts";

/** A key the spec may use, read and written through a variable: `x.__proto__` would reach the prototype. */
const PROTO = "__proto__";
const TO_STRING = "toString";

describe("copyData", () => {
  it("copies JSON data as structuredClone does, sharing nothing", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyData(value);
        expect(copy).toStrictEqual(structuredClone(value));
        expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
        if (value !== null && typeof value === "object") expect(copy).not.toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps __proto__ and constructor as plain keys, and changing the copy leaves the original", () => {
    const original = JSON.parse('{"__proto__":{"x":1},"constructor":"c","list":[{"a":1}]}');
    const copy = copyData(original);
    expect(Object.hasOwn(copy, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(original));
    copy.list[0].a = 2;
    copy[PROTO].x = 2;
    expect(original.list[0].a).toBe(1);
    expect(original[PROTO].x).toBe(1);
  });

  it("copies objects keyed by spec names into plain objects with the same keys", () => {
    const record = keyed<string>();
    record[PROTO] = "Ember-288";
    record[TO_STRING] = "kept";
    const copy = copyData({ record });
    expect(Object.keys(copy.record)).toEqual(["__proto__", "toString"]);
    expect(copy.record[TO_STRING]).toBe("kept");
  });
});
