import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { argumentsIn } from "../../../env/text/reading.ts";
import { createWorld } from "../../../env/world/index.ts";
import { type ToolModel, WorldModel } from "../../../env/world/model.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** Invoices of a patient, listed by a status that may be "all", and slots by a time of day that may be "any". */
const SPEC = {
  name: "catch-all choices",
  system_prompt: "You help patients with their invoices and appointments.",
  policy: [],
  tools: [
    mcpTool(
      "list_invoices",
      "List a patient's invoices.",
      {
        patient_id: { type: "string" },
        status: { type: "string", enum: ["unpaid", "paid", "all"] },
      },
      ["patient_id"],
    ),
    mcpTool(
      "list_appointments",
      "List a patient's appointments.",
      {
        patient_id: { type: "string" },
        time_of_day: { type: "string", enum: ["any", "morning", "afternoon", "evening"] },
      },
      ["patient_id"],
    ),
  ],
};

describe("an enum's catch-all choice (all, any)", () => {
  const agent = Agent.from(SPEC);
  const model = WorldModel.of(agent);
  const tool = (name: string) => model.tools.get(name) as ToolModel;

  it("filters nothing in a list, and no record holds it as its own value", () => {
    for (let seed = 0; seed < 6; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "list_invoices" }),
        seed,
      });
      const patient = world.person.ids.patient_id as string;
      const list = (args: Record<string, unknown>) =>
        JSON.parse(world.call("list_invoices", { patient_id: patient, ...args }).content);
      const all = list({});
      expect(all.total).toBeGreaterThan(0);
      expect(list({ status: "all" }).total).toBe(all.total);
      for (const invoice of world.snapshot().collections.invoices ?? [])
        expect(invoice.status).not.toBe("all");
      const appointments = world.snapshot().collections.appointments ?? [];
      expect(appointments.length).toBeGreaterThan(0);
      for (const appointment of appointments) expect(appointment.time_of_day).not.toBe("any");
    }
  });

  it("is not read from set phrases: a greeting's morning, nothing at all", () => {
    expect(
      argumentsIn(model, tool("list_appointments"), "Good morning. Can you list my appointments?"),
    ).toEqual({});
    expect(argumentsIn(model, tool("list_invoices"), "Nothing at all? Please look again.")).toEqual(
      {},
    );
    // Said as a choice, it is still read.
    expect(
      argumentsIn(model, tool("list_appointments"), "Only my appointments in the morning, please."),
    ).toEqual({ time_of_day: "morning" });
    expect(argumentsIn(model, tool("list_invoices"), "Show me all of my invoices.")).toEqual({
      status: "all",
    });
  });
});
