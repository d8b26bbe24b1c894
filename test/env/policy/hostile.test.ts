import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { readPolicy } from "../../../env/policy/index.ts";
import { RuleIdSchema } from "../../../spec/index.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";
import { growth } from "../../support/growth.ts";

const TOOLS = Agent.from(referenceSpec).tools;
const read = (policy: string | { id: string; text: string }[], prompt = "You help.") =>
  readPolicy(policy, TOOLS, prompt);

describe("rule ids read from markdown", () => {
  it("never collide, and the policy is accepted (issue 12: a duplicate `refund_2` pointed at policy[2].id)", () => {
    for (const policy of [
      "Refund it. Refund it. Refund it 2.",
      "Refund it 2 today. Refund it now. Refund it later.",
      "- Refund the order.\n- Refund the order quickly.\n- Refund 2 orders.\n- Refund the order once.",
    ]) {
      const agent = Agent.from({ ...referenceSpec, policy });
      const ids = agent.rules.map((r) => r.id);
      expect(new Set(ids).size, policy).toBe(ids.length);
    }
  });

  it("stay distinct and valid rule ids for a thousand rules opening with the same words", () => {
    // The same opening, then words of their own: near enough for one id, too far apart to merge.
    const policy = Array.from(
      { length: 1000 },
      (_, i) => `- Never refund an order of this customer unless a${i} b${i} c${i} d${i} agree.`,
    ).join("\n");
    const ids = read(`# ${"Refund policy for every order ".repeat(4)}\n${policy}`).read.map(
      (r) => r.id,
    );
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(RuleIdSchema.safeParse(id).success, id).toBe(true);
    expect(ids.slice(0, 3)).toEqual([
      "refund_policy_every.never_refund_order_this_customer",
      "refund_policy_every.never_refund_order_this_customer_2",
      "refund_policy_every.never_refund_order_this_customer_3",
    ]);
  });

  it("problems of a rule read from markdown name the policy, never a path inside its string", () => {
    const spec = {
      ...referenceSpec,
      tools: [
        ...referenceSpec.tools,
        {
          type: "function" as const,
          function: {
            name: "calculate",
            description: "Evaluate arithmetic",
            parameters: { type: "object" as const, properties: { expression: { type: "string" } } },
          },
        },
      ],
      policy: "## Calculate\n- Always use it for totals.",
    };
    try {
      Agent.from(spec);
    } catch (error) {
      for (const issue of (error as { issues: { path: string }[] }).issues)
        expect(issue.path).not.toMatch(/^policy\[/);
    }
  });
});

describe("reading a policy takes time linear in its length", () => {
  // Each: a policy of about n characters. The time for 4n, over the time for n, measured in the
  // same run, is about 4 when the reading is linear and 16 when it is quadratic.
  const repeat = (unit: string) => (n: number) => unit.repeat(Math.ceil(n / unit.length));
  const lines = (line: (i: number) => string) => (n: number) => {
    const out: string[] = [];
    for (let i = 0, size = 0; size < n; i++) {
      out.push(line(i));
      size += (out.at(-1) as string).length + 1;
    }
    return out.join("\n");
  };
  const policies: Record<string, (n: number) => string> = {
    // Reproduction (issue 12): 400 KB of `[a](` took 102 s in link stripping.
    "unclosed links": repeat("[a]("),
    "a heading and a run of spaces": (n) => `# Refunds${" ".repeat(n)}x`,
    "a bullet and a run of spaces before a line break": (n) => `-${" ".repeat(n)}x\ry`,
    "closing hashes": (n) => `# a${" #".repeat(n / 2)} x\n- Must ask.`,
    "a long heading over many rules": (n) =>
      `# ${"refund order ".repeat(n / 24)}\n${"- Must ask first.\n".repeat(n / 36)}`,
    "a long bullet over many nested ones": (n) =>
      `- ${"refund order ".repeat(n / 24)}\n${"  - Must ask first.\n".repeat(n / 40)}`,
    "distinct rules": lines((i) => `- Never cancel order ${i.toString(36)} for reason r${i}.`),
    "rules opening alike": lines((i) => `- Never refund any order unless item${i} says q${i * 7}.`),
    "rules sharing common words": lines(
      (i) =>
        `- ${["order", "refund", "cancel", "item", "ship", "card", "pay", "user", "mail", "note"].filter((_, k) => (i >> k) & 1).join(" ")} must wait.`,
    ),
    "one long sentence": (n) => `Never cancel ${"an order ".repeat(n / 9)}`,
    "confirmation wording": repeat(
      "Confirm before you cancel or refund, and get a clear yes (yes/no); ",
    ),
  };
  for (const [name, policy] of Object.entries(policies))
    it(`on ${name}`, () => {
      expect(growth(policy, (text) => read(text), 25_000)).toBeLessThan(8);
    });

  it("on thousands of rules of ten words out of twenty", () => {
    // Reproduction (a planning probe): 20,000 such rules took 32 s to read, collecting every rule
    // sharing a word with each new one before comparing the first 256 of them.
    const vocabulary = Array.from(
      { length: 20 },
      (_, k) => `w${"bcdfghklmnprstvz"[k % 16]}${"aeiou"[k % 5]}${"rstlnm"[k % 6]}${k}x`,
    );
    const policy = lines((i) => {
      // Ten of the twenty words, drawn by a small generator of the rule's number.
      const words: string[] = [];
      for (let state = i + 1; words.length < 10; ) {
        state = (state * 1103515245 + 12345) % 2147483648;
        const word = vocabulary[(state >>> 16) % 20] as string;
        if (!words.includes(word)) words.push(word);
      }
      return `- You must ${words.join(" ")}.`;
    });
    expect(growth(policy, (text) => read(text), 150_000, 2)).toBeLessThan(8);
  });

  it("on a rule list and a system prompt with runs of spaces", () => {
    const spaced = (n: number) => `Verify${" ".repeat(n)}- the (  yes${" ".repeat(n)}/ no) first.`;
    expect(growth(spaced, (text) => read([{ id: "r", text }]), 25_000)).toBeLessThan(8);
    expect(growth(spaced, (text) => read("Be kind.", text), 25_000)).toBeLessThan(8);
  });
});
