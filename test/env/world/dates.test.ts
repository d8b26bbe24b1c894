import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoDay, isoSecond } from "../../../env/world/dates.ts";

/** From 1900 to 2100: the birthdays, records and ids a world writes. */
const moment = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) });

describe("world dates", () => {
  it("write a moment's day as toISOString does, before 1970 too, and again from the cache", () => {
    fc.assert(
      fc.property(moment, (ms) => {
        const expected = new Date(ms).toISOString().slice(0, 10);
        expect(isoDay(ms)).toBe(expected);
        expect(isoDay(ms)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it("write a moment to the second as toISOString does, without its milliseconds", () => {
    fc.assert(
      fc.property(moment, (ms) => {
        expect(isoSecond(ms)).toBe(new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z"));
      }),
      { numRuns: 2_000 },
    );
    expect(isoSecond(Date.UTC(1969, 11, 31, 23, 59, 59, 999))).toBe("1969-12-31T23:59:59Z");
    expect(isoSecond(Date.UTC(2026, 5, 15))).toBe("2026-06-15T00:00:00Z");
  });
});
