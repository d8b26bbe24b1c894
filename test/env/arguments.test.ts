import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { argumentCheck } from "../../env/arguments.ts";
import { SpecError } from "../../env/util/errors.ts";
import { lastTokenMatch, linearPattern, tokenMatches } from "../../env/util/regex.ts";
import { createWorld } from "../../env/world/index.ts";
import { situationOf } from "../fixtures/situations.ts";
import { SLOW_BEFORE_THE_FIX } from "../support/hostile.ts";
import { specOf } from "../support/specs.ts";

/** The pattern of the issue: 28 characters took the backtracking engine 1.3 s, doubling with each one more. */
const HOSTILE = String.raw`^([a-zA-Z0-9]+\s?)*$`;

/** Patterns of the kinds specs write, and the issue's. */
const PATTERNS = [
  String.raw`^W\d{7}$`,
  String.raw`^[A-Z]{2}-\d{4}$`,
  String.raw`^\S+@\S+\.\S+$`,
  String.raw`^\+?[0-9 ()-]{7,20}$`,
  "^[A-Z]{1,2}[0-9][A-Z0-9]? ?[0-9][A-Z]{2}$",
  String.raw`^\p{L}+( \p{L}+)*$`,
  String.raw`^(?<year>\d{4})-(?<month>\d{2})$`,
  "^.{1,8}$",
  String.raw`^[\s\S]*x`,
  String.raw`^\u00e9t\u00e9$`,
  "a|ab",
  HOSTILE,
];
// Characters where the engines' defaults differ: Unicode spaces, line breaks, astral symbols.
const CHARS = fc.constantFrom(..."aZ09 -+@.()x\u00a0\u2028\r\n\t\u00e9😀W".split(""), "😀");
/** Short texts of those characters: the backtracking engine answers them at once, as a reference. */
const TEXTS = fc.array(CHARS, { maxLength: 24 }).map((c) => c.join(""));

/** The fastest of five timings of `run`, in milliseconds. */
function fastest(run: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe("a spec's pattern on a client's argument", () => {
  it(
    "is matched in time linear in the argument: 2,800 characters cost about what 100 times 28 do",
    () => {
      const agent = Agent.from(
        specOf([["add_note", { note: { type: "string", pattern: HOSTILE } }, ["note"]]]),
      );
      const world = createWorld({ spec: agent, situation: situationOf(agent, {}) });
      const call = (n: number) => () =>
        world.call("add_note", JSON.stringify({ note: `${"a".repeat(n)}!` }));
      const refused = call(2_800)();
      expect(refused.ok).toBe(false);
      expect(refused.content).toMatch(/invalid_arguments.*must match pattern/);
      expect(
        world.call("add_note", JSON.stringify({ note: "a few words in a note" })).content,
      ).not.toMatch(/invalid_arguments/);
      call(28)(); // warm the code up before timing it
      // Linear work grows about 100-fold here at most (the call's fixed cost makes it less);
      // backtracking would need 2^2772 times as long, and never return.
      const ratio = fastest(call(2_800)) / fastest(call(28));
      expect(ratio).toBeLessThan(400);
    },
    SLOW_BEFORE_THE_FIX,
  );

  it("gives the answers the JavaScript engine gives, on the patterns specs write", () => {
    fc.assert(
      fc.property(fc.constantFrom(...PATTERNS), TEXTS, (pattern, text) => {
        expect(linearPattern(pattern).test(text)).toBe(new RegExp(pattern, "u").test(text));
      }),
      { seed: 12, numRuns: 600 },
    );
  });

  it("refuses a pattern only a backtracking engine runs, naming the tool and where the pattern is", () => {
    const refusal = (properties: Record<string, unknown>) => {
      try {
        Agent.from(specOf([["find_case", properties, []]]));
      } catch (error) {
        expect(error).toBeInstanceOf(SpecError);
        return (error as Error).message;
      }
      throw new Error("the spec was accepted");
    };
    expect(refusal({ code: { type: "string", pattern: String.raw`^(\d)\1$` } })).toMatch(
      /tools\[0\]\.function\.parameters: .*properties\.code\.pattern: "\^\(\\\\d\)\\\\1\$" uses a backreference, which needs a backtracking engine; rehearse matches patterns in linear time \(RE2\)/,
    );
    expect(refusal({ code: { type: "string", pattern: "^(?!0)\\d+$" } })).toMatch(
      /properties\.code\.pattern: .* uses a lookaround/,
    );
    expect(
      refusal({ tags: { type: "object", patternProperties: { "^(?<=x)y$": { type: "string" } } } }),
    ).toMatch(/properties\.tags\.patternProperties\["\^\(\?<=x\)y\$"\]: .* uses a lookaround/);
    expect(refusal({ code: { type: "string", pattern: "^a{2000}$" } })).toMatch(
      /properties\.code\.pattern: .* cannot be compiled by RE2.*invalid repeat count/,
    );
  });

  it("checks patternProperties and propertyNames with the same engine", () => {
    const check = argumentCheck({
      type: "object",
      properties: {
        labels: {
          type: "object",
          propertyNames: { pattern: HOSTILE },
          patternProperties: { "^x": { type: "integer" } },
        },
      },
    });
    const long = `${"a".repeat(5_000)}!`;
    expect(check({ labels: { [long]: 1 } })).toContain(`"labels" must match pattern "${HOSTILE}"`);
    expect(check({ labels: { xcount: "three" } })).toEqual(['"labels.xcount" must be an integer']);
    expect(check({ labels: { xcount: 3 } })).toEqual([]);
  });
});

describe("a spec's pattern read from what the person wrote", () => {
  it("finds the whole tokens that fit, where the backtracking reader did", () => {
    expect(lastTokenMatch(String.raw`^\d{4}$`, "my PIN is 675649631, or 4963")).toBe("4963");
    expect(lastTokenMatch(String.raw`^\d{4}$`, "my PIN is 675649631")).toBeNull();
    expect(lastTokenMatch(String.raw`^W\d{7}$`, "W1234567 and W7654321.")).toBe("W7654321");
    expect(lastTokenMatch("a|ab", "ab c")).toBe("ab");
    expect(lastTokenMatch(String.raw`^\d{5}$`, "12345 67890")).toBe("67890");
    expect(lastTokenMatch(String.raw`^(\d)\1$`, "11")).toBeNull();
    // The reader it replaces, with lookaround for the token's edges: a reference on short texts.
    const backtracking = (pattern: string, text: string, edge: string) => {
      const body = pattern.replace(/^\^/, "").replace(/\$$/, "");
      const re = new RegExp(`(?<![${edge}])(?:${body})(?![${edge}])`, "gu");
      return [...text.matchAll(re)]
        .map((m) => ({ value: m[0], at: m.index }))
        .filter((m) => m.value !== "");
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...PATTERNS),
        TEXTS,
        fc.constantFrom(String.raw`\w`, String.raw`\w-`),
        (pattern, text, edge) => {
          const expected = backtracking(pattern, text, edge);
          expect(tokenMatches(pattern, text, edge)).toEqual(expected);
          if (edge === String.raw`\w`)
            expect(lastTokenMatch(pattern, text)).toBe(
              expected.findLast((m) => m.value.trim().length > 0)?.value ?? null,
            );
        },
      ),
      { seed: 12, numRuns: 800 },
    );
  });

  it(
    "reads a hostile pattern in time linear in the text",
    () => {
      // A word character after the run: no token ends there, the case that made backtracking explode.
      const text = (n: number) => `${"a".repeat(n)}_`;
      lastTokenMatch(HOSTILE, text(28));
      const ratio =
        fastest(() => lastTokenMatch(HOSTILE, text(2_800))) /
        fastest(() => lastTokenMatch(HOSTILE, text(28)));
      expect(lastTokenMatch(HOSTILE, text(2_800))).toBeNull();
      expect(lastTokenMatch(HOSTILE, "note: fix the hinge please")).toBe("fix the hinge please");
      expect(ratio).toBeLessThan(400);
    },
    SLOW_BEFORE_THE_FIX,
  );
});
