import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { argumentsIn, intentOf } from "../../../env/text/reading.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { helpdeskSpec, referenceSpec } from "../../fixtures/reference-spec.ts";
import { withDefaultAxes } from "../../fixtures/situations.ts";
import { growth, SLOW_BEFORE_THE_FIX } from "../../support/hostile.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
const helpdesk = Agent.from(helpdeskSpec);

describe("the offline roles' reading stays linear on hostile text", () => {
  it(
    "reads an email argument after a million word characters, in linear time",
    () => {
      const model = WorldModel.of(helpdesk);
      const tool = model.tools.get("listTickets");
      if (!tool) throw new Error("listTickets missing");
      const text = `${"a".repeat(1_000_000)} write to me at sam.lee+it@corp.example.org.`;
      expect(argumentsIn(model, tool, text)).toMatchObject({
        userEmail: "sam.lee+it@corp.example.org",
      });
    },
    SLOW_BEFORE_THE_FIX,
  );

  it("skips quotations, and an unclosed quote mark stays linear", () => {
    const model = WorldModel.of(retail);
    const opened = (n: number) => intentOf(model, `${"“".repeat(n)} cancel my order`);
    expect(opened(16_000)?.tool.name).toBe("cancel_order");
    expect(
      intentOf(model, 'the sign said "cancel anytime", but I want to check my order')?.tool.name,
    ).not.toBe("cancel_order");
    // Four times the quote marks take about four times as long to read; a quadratic reading, sixteen.
    expect(growth(opened, 4_000)).toBeLessThan(8);
  });
});
