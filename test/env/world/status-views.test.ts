import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { statusesOf } from "../../../env/world/statuses.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/**
 * A clinic whose list of appointments filters by when ("upcoming", "past"), while its description
 * lists the states an appointment is in: the filter is a view of those states, not the states.
 */
const CLINIC = {
  name: "clinic",
  system_prompt: "You help patients with their appointments.",
  policy: [],
  tools: [
    mcpTool(
      "list_appointments",
      "List a patient's appointments. Appointment statuses are 'scheduled', 'confirmed' (the patient replied to the reminder), 'checked_in', 'completed', 'cancelled', 'late_cancelled' and 'no_show'.",
      {
        patient_id: { type: "string" },
        status: {
          type: "string",
          enum: ["upcoming", "past", "all"],
          description: "'upcoming' (default) returns scheduled and confirmed appointments only.",
        },
      },
      ["patient_id"],
    ),
    mcpTool(
      "cancel_appointment",
      "Cancel an appointment. Only appointments in status 'scheduled' or 'confirmed' can be cancelled.",
      { appointment_id: { type: "string" } },
    ),
  ],
};

describe("a list's status filter that is a view of the states", () => {
  const agent = Agent.from(CLINIC);
  const appointment = WorldModel.of(agent).entities.get("appointment");

  it("leaves the states the spec lists as the record's: usable, and final ones with their kinds", () => {
    expect(appointment?.statuses).toEqual({
      usable: ["scheduled", "confirmed", "checked_in"],
      terminal: ["completed", "cancelled", "late_cancelled", "no_show"],
    });
    expect(Object.fromEntries(appointment?.statusViews ?? [])).toEqual({
      upcoming: ["scheduled", "confirmed"],
      past: ["completed", "cancelled", "late_cancelled", "no_show"],
    });
  });

  it("lists by each choice the records in the states it stands for", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "cancel_appointment", world: "normal" }),
    });
    const patient = world.state.person.customer_id as string;
    const ids = (status?: string) =>
      (
        JSON.parse(
          world.call("list_appointments", { patient_id: patient, ...(status ? { status } : {}) })
            .content,
        ).appointments as { appointment_id: string; status: string }[]
      ).map((a) => `${a.appointment_id} ${a.status}`);
    const all = ids();
    expect(all.length).toBeGreaterThan(1);
    const subject = world.person.ids.appointment_id as string;
    const before = all.find((a) => a.startsWith(subject)) as string;
    expect(before).toMatch(/ (scheduled|confirmed)$/);
    expect(ids("upcoming")).toContain(before);
    expect(ids("past")).not.toContain(before);
    expect(world.call("cancel_appointment", { appointment_id: subject }).ok).toBe(true);
    expect(ids("upcoming")).not.toContain(before);
    expect(ids("past")).toContain(`${subject} cancelled`);
    expect(ids("all")).toHaveLength(all.length);
  });

  it("puts a final record in one of the spec's final states, where a cancellation is refused", () => {
    for (let seed = 0; seed < 4; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "cancel_appointment", world: "terminal_state" }),
        seed,
      });
      const subject = world.person.ids.appointment_id as string;
      const answer = JSON.parse(
        world.call("cancel_appointment", { appointment_id: subject }).content,
      );
      expect(answer.error).toBe("invalid_state");
      expect(["completed", "cancelled", "late_cancelled", "no_show"]).toContain(answer.status);
    }
  });

  it("is read as states where its choices are ones the spec lists", () => {
    const listed = Agent.from({
      ...CLINIC,
      tools: [
        mcpTool(
          "list_appointments",
          "List a patient's appointments. Appointment statuses are 'scheduled', 'completed' and 'cancelled'.",
          {
            patient_id: { type: "string" },
            status: { type: "string", enum: ["scheduled", "completed", "all"] },
          },
          ["patient_id"],
        ),
      ],
    });
    const entity = WorldModel.of(listed).entities.get("appointment");
    expect(entity?.statuses.usable).toEqual(["scheduled"]);
    expect(entity?.statusViews.size).toBe(0);
  });
});

describe("a final state's kinds", () => {
  it("are final too (late_cancelled, rejected_pin); a state turned round by its first word is not (not_sent)", () => {
    expect(
      statusesOf("request", ["submitted", "rejected_pin", "not_sent", "late_cancelled"], []),
    ).toEqual({ usable: ["submitted", "not_sent"], terminal: ["rejected_pin", "late_cancelled"] });
  });
});
