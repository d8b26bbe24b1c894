import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { argumentPhrase, chosenReason } from "../../../env/people/goal.ts";
import { argumentsIn } from "../../../env/text/reading.ts";
import { type ToolModel, WorldModel } from "../../../env/world/model.ts";
import { mcpTool } from "../../support/specs.ts";

const said = (text: string) => text.replace(/[\uE000\uE001]/g, "");

describe("a reason chosen from a list", () => {
  it("is said as the kind of words it is, its words kept as they are", () => {
    const cases: [string, string][] = [
      ["feeling better", "because I'm feeling better"],
      ["schedule conflict", "because of schedule conflict"],
      ["ordered by mistake", "because it was ordered by mistake"],
      ["stolen", "because it was stolen"],
      ["changed provider", "because I changed provider"],
      ["lost or stolen device", "because of lost or stolen device"],
      ["no longer needed", "because it's no longer needed"],
      ["too expensive", "because it's too expensive"],
      ["will fill elsewhere", "because I will fill elsewhere"],
      ["underwriting referral", "because of underwriting referral"],
      ["medical", "for medical reasons"],
      ["temporary", "because it's temporary"],
      ["other", "for some other reason"],
    ];
    for (const [reason, phrase] of cases) expect(said(chosenReason(reason))).toBe(phrase);
  });

  it("is read back as the choice it is; a reason in the person's own words follows 'because'", () => {
    const agent = Agent.from({
      name: "clinic",
      system_prompt: "You help patients.",
      policy: [],
      tools: [
        mcpTool("cancel_appointment", "Cancel an appointment.", {
          appointment_id: { type: "string", pattern: "^APT-[A-Z0-9]{6}$" },
          reason: {
            type: "string",
            enum: ["feeling_better", "schedule_conflict", "changed_provider", "other"],
          },
        }),
      ],
    });
    const model = WorldModel.of(agent);
    const cancel = model.tools.get("cancel_appointment") as ToolModel;
    for (const reason of ["feeling_better", "schedule_conflict", "changed_provider", "other"]) {
      const text = `I'd like to cancel my appointment APT-7QK29D ${said(argumentPhrase("reason", reason, true, true))}.`;
      expect(argumentsIn(model, cancel, text)).toEqual({ appointment_id: "APT-7QK29D", reason });
    }
    expect(said(argumentPhrase("reason", "it arrived damaged"))).toBe("because it arrived damaged");
  });
});
