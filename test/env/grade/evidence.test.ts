import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { EVIDENCE_CHARS, excerpt, FINDINGS_PER_CHECK } from "../../../env/grade/evidence.ts";
import { simulatorChecks } from "../../../env/grade/simulator.ts";
import type { ChatMessage } from "../../../spec/index.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";
import { withDefaultAxes } from "../../fixtures/situations.ts";
import { calls, say, started } from "../../support/episodes.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));

/** Order ids of the retail shape (W and 7 digits), all distinct. */
const orderIds = (n: number) => Array.from({ length: n }, (_, i) => `W${1_000_000 + i * 7}`);

describe("evidence stays bounded however many identifiers a message names", () => {
  it("an agent message with thousands of unknown ids: 20 findings and one counting the rest, each quoting a short excerpt", async () => {
    const episode = await started(retail, { tool: "get_order" }, { maxTurns: 1 });
    const earlier = JSON.stringify(episode.messages);
    const ids = orderIds(3000);
    const text = `Here are your orders. ${ids.join(" ")}. Anything else?`;
    await episode.step(say(text));
    const row = episode.row();
    const found = row.conduct.filter((f) => f.check === "unknown_identifier");
    expect(found).toHaveLength(FINDINGS_PER_CHECK + 1);
    const unsourced = ids.filter((id) => !earlier.includes(id)).length;
    expect(found.at(-1)?.detail).toMatch(
      new RegExp(`^${unsourced - FINDINGS_PER_CHECK} more unknown_identifier findings`),
    );
    for (const finding of found) {
      const { message, text: quoted, value } = finding.evidence;
      expect(row.messages[message]?.content).toBe(text);
      expect(quoted.length).toBeLessThanOrEqual(EVIDENCE_CHARS + 2);
      expect(quoted).toContain(value);
      expect(text).toContain(quoted.replace(/^…|…$/g, ""));
    }
    // Before, each finding carried the whole 27 KB message: 3,000 of them, 80 MB.
    expect(JSON.stringify(row.conduct).length).toBeLessThan(20_000);
  });

  it("a tool call with thousands of unknown ids in its arguments is capped the same way", async () => {
    const episode = await started(retail, { tool: "get_order" }, { maxTurns: 1 });
    const args = { order_id: "W1000000", note: orderIds(3000).slice(1).join(" ") };
    await episode.step(calls(["get_order", args, "c1"]));
    const found = episode.row().conduct.filter((f) => f.check === "unknown_identifier");
    expect(found).toHaveLength(FINDINGS_PER_CHECK + 1);
    for (const { evidence } of found) {
      expect(evidence.text.length).toBeLessThanOrEqual(EVIDENCE_CHARS + 2);
      expect(evidence.call?.arguments).toBe(evidence.text);
      expect(evidence.text).toContain(evidence.value);
    }
  });

  it("the simulator checks cap a person's unheld details the same way", async () => {
    const episode = await started(retail, { tool: "get_order" }, { maxTurns: 1 });
    await episode.step(say("Let me check."));
    const row = episode.row();
    const stated: ChatMessage = {
      role: "user",
      content: `My orders: ${orderIds(3000).join(", ")}`,
    };
    const findings = simulatorChecks(retail, { ...row, messages: [...row.messages, stated] });
    const unheld = findings.filter((f) => f.check === "stated_unheld_details");
    expect(unheld).toHaveLength(FINDINGS_PER_CHECK + 1);
    expect(unheld.every((f) => f.evidence.text.length <= EVIDENCE_CHARS + 2)).toBe(true);
    expect(unheld[0]?.evidence).toMatchObject({ message: row.messages.length, value: "W1000000" });
  });

  it("an excerpt is the sentence that holds the value, clipped with an ellipsis when it is long", () => {
    const text = "Hello there. Your order W1234567 is on its way! Anything else?";
    expect(excerpt(text, "W1234567")).toBe("Your order W1234567 is on its way!");
    const long = `${"x ".repeat(500)}W1234567${" y".repeat(500)}`;
    const quoted = excerpt(long, "W1234567");
    expect(quoted).toMatch(/^…x .*W1234567.* y…$/);
    expect(quoted.length).toBe(EVIDENCE_CHARS + 2);
  });
});
