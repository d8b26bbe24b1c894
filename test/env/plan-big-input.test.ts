import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { describePlan } from "../../env/plan.ts";
import { SpecError } from "../../env/util/errors.ts";
import { LIMITS } from "../../spec/index.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";
import { growth } from "../support/growth.ts";

/** A made-up word for each number, so that no two sentences read as the same rule. */
function word(n: number): string {
  let out = "";
  let rest = n;
  do {
    out += "bcdfghjklmnpqrstvwxz"[rest % 20];
    rest = Math.floor(rest / 20);
    out += "aeiou"[rest % 5];
    rest = Math.floor(rest / 5);
  } while (rest > 0);
  return out;
}

/** The reference spec with a markdown policy of one paragraph of `chars` characters. */
function oneParagraph(chars: number, sentence: (n: number) => string) {
  const sentences: string[] = [];
  let length = 0;
  for (let n = 0; length < chars; n++) {
    const text = sentence(n);
    sentences.push(text);
    length += text.length + 1;
  }
  return { ...referenceSpec, policy: sentences.join(" ") };
}

const distinctRules = (chars: number) =>
  oneParagraph(
    chars,
    (n) =>
      `Never ${word(7 * n + 1)} the ${word(13 * n + 5)} without ${word(31 * n + 2)} ${word(n)}.`,
  );

/** Sentences the policy reader takes for one rule said again (they differ only in a number). */
const repeatedRule = (chars: number) =>
  oneParagraph(
    chars,
    (n) => `Staff must quote reference ${n} to the customer before they cancel_order anything.`,
  );

const refusalOf = (spec: unknown): string => {
  try {
    describePlan(spec);
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    return (error as Error).message;
  }
  throw new Error("the plan was not refused");
};

describe("a one-paragraph policy of a megabyte", () => {
  it("is refused up front, with the number of rules it makes and the limit", () => {
    // Issue 16's reproduction: 1 MB of sentence rules kept plan busy for more than 13 minutes.
    const spec = distinctRules(1_000_000);
    expect(spec.policy.length).toBeGreaterThanOrEqual(1_000_000);
    expect(refusalOf(spec)).toMatch(
      new RegExp(
        `policy: \\d{5} rules make as many values of the rule axis; a plan takes at most ${LIMITS.axisValues}`,
      ),
    );
  });

  it("is read and refused in time linear in its length", () => {
    const refuse = (spec: unknown) => expect(refusalOf(spec)).toContain("policy:");
    expect(growth(distinctRules, refuse, 40_000, 2)).toBeLessThan(8);
  });

  it("plans, in time linear in its length, when its sentences say one rule again and again", () => {
    const plan = describePlan(repeatedRule(200_000), { effort: 0 });
    expect(plan.policy.rules).toHaveLength(1);
    expect(plan.policy.dropped?.length).toBeGreaterThan(2_000);
    const planOf = (spec: unknown) => describePlan(spec, { effort: 0 });
    expect(growth(repeatedRule, planOf, 40_000, 2)).toBeLessThan(8);
  });
});

describe("a spec file past its size limit", () => {
  it("is refused before it is read, with its size and the limit", async () => {
    const folder = await mkdtemp(join(tmpdir(), "rehearse-big-spec-"));
    const path = join(folder, "big.json");
    // Valid JSON, and a spec in every way but its size: a tool description of 5 MB.
    const spec = structuredClone(referenceSpec) as {
      tools: { function: { description: string } }[];
    };
    (spec.tools[0] as { function: { description: string } }).function.description = "x".repeat(
      5 << 20,
    );
    await writeFile(path, JSON.stringify(spec));
    await expect(Agent.load(path)).rejects.toThrow(
      new RegExp(`the spec is 5\\.0 MiB; a spec takes at most ${LIMITS.specBytes / 2 ** 20} MiB`),
    );
    await rm(folder, { recursive: true, force: true });
  });
});
