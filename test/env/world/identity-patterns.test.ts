import { describe, expect, it } from "vitest";
import { Rng } from "../../../env/rng.ts";
import {
  fitDetail,
  identityValue,
  makeIdentity,
  placesFitting,
} from "../../../env/world/identity.ts";
import { growth } from "../../support/growth.ts";

/** A pattern the backtracking engine takes 2^n steps to refuse on n characters and a `!`. */
const HOSTILE = String.raw`^([a-zA-Z0-9]+\s?)*$`;

describe("identity details are fitted to a spec's patterns in linear time", () => {
  it("fits a detail, an identity's value and the places by RE2, whatever the pattern", () => {
    // 2^40 steps for the backtracking engine; RE2 reads each character once.
    const value = `${"a".repeat(40)}!`;
    expect(fitDetail("member_code", value, HOSTILE)).toBe(value);
    const identity = makeIdentity(new Rng(1, "id"), 0, Date.UTC(2026, 0, 1));
    expect(identityValue("name", { ...identity, name: value }, HOSTILE)).toBeUndefined();
    expect(placesFitting([String.raw`^(\d+\s?)*$`]).length).toBeGreaterThan(0);
    expect(
      growth(
        (n) => `${"a".repeat(n)}!`,
        (text) => fitDetail("member_code", text, HOSTILE),
        2_000,
        3,
      ),
    ).toBeLessThan(8);
  });
});
