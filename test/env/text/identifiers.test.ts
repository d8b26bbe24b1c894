import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { EMAIL, IdentifierReader } from "../../../env/text/identifiers.ts";
import { createWorld } from "../../../env/world/world.ts";
import { financeSpec, helpdeskSpec, referenceSpec } from "../../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../../fixtures/situations.ts";
import { SLOW_BEFORE_THE_FIX } from "../../support/hostile.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
const finance = Agent.from(financeSpec);
const helpdesk = Agent.from(helpdeskSpec);

describe("the identifier reader", () => {
  it("the identifier reader gives each identifier where it first appears, in order", () => {
    const reader = new IdentifierReader(retail);
    const text = "W1000007 then ann@shop.example.com, W1000000 and again W1000007.";
    const found = reader.locate(text);
    expect(found.map((f) => f.value)).toEqual(["W1000007", "ann@shop.example.com", "W1000000"]);
    for (const { value, at } of found) expect(at).toBe(text.indexOf(value));
    expect(reader.read(text)).toEqual(found.map((f) => f.value));
  });
});

describe("emails", () => {
  it(
    "EMAIL finds nothing in a long run of word characters, in linear time",
    () => {
      expect([..."a".repeat(1_000_000).matchAll(EMAIL)]).toEqual([]);
      const domain = `a@${"b".repeat(1_000_000)}`;
      expect([...domain.matchAll(EMAIL)]).toEqual([]);
      const labels = `a@${"a.".repeat(500_000)}!`;
      expect([...labels.matchAll(EMAIL)].map((m) => m[0])).toEqual(["a@a.a.a.a.a.a.a.a.a"]);
    },
    SLOW_BEFORE_THE_FIX,
  );

  it("still finds the emails people in the example worlds have", () => {
    for (const agent of [retail, finance, helpdesk]) {
      const world = createWorld({ spec: agent, situation: situationOf(agent, {}) });
      const { email } = world.person;
      const reader = new IdentifierReader(agent);
      expect(reader.read(`Hi, it's ${email}.`)).toEqual([email]);
      expect(reader.read(`(${email.toUpperCase()})`)).toEqual([email.toUpperCase()]);
    }
    expect([..."x jane.doe+tag@mail.example.co.uk y".matchAll(EMAIL)].map((m) => m[0])).toEqual([
      "jane.doe+tag@mail.example.co.uk",
    ]);
  });
});
