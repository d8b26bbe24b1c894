import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../env/util/hash.ts";

/** What canonicalJson wrote before it walked values itself: JSON.stringify with keys sorted. */
function sortedStringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

describe("canonicalJson", () => {
  it("writes what JSON.stringify with sorted keys writes, on any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(sortedStringify(value));
      }),
      { numRuns: 300, seed: 12 },
    );
  });

  it("treats what JSON leaves out as JSON does: undefined, functions, dates, index keys", () => {
    const value = {
      b: undefined,
      a: [undefined, () => 1, Symbol("s"), Number.NaN, -0],
      d: new Date(Date.UTC(2026, 5, 15)),
      k: { b: 1, "10": 2, "2": 3, "": 4, "01": 5 },
      j: { toJSON: (key: string) => `key ${key}` },
    };
    expect(canonicalJson(value)).toBe(sortedStringify(value));
  });

  it("serialises a value nested 20,000 levels deep, which overflowed the call stack", () => {
    // Reproduction (issue 12): a tool schema nested ~2,500 levels inside `examples` overflowed here.
    let deep: unknown = [];
    for (let i = 0; i < 20_000; i++) deep = i % 2 ? [deep] : { a: deep };
    const text = canonicalJson(deep);
    // 10,000 arrays of two brackets, 10,000 objects of `{"a":…}`, the innermost `[]`.
    expect(text.length).toBe(10_000 * 2 + 10_000 * 6 + 2);
    expect(text.startsWith('[{"a":[{"a":')).toBe(true);
  });

  it("refuses a cycle, as JSON.stringify does", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = { again: cycle };
    expect(() => canonicalJson(cycle)).toThrow(TypeError);
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});
