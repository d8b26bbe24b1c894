import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { goalOf } from "../../../env/people/goal.ts";
import { Rng } from "../../../env/rng.ts";
import { outsideWindow } from "../../../env/world/date-windows.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** Meter readings of the last fortnight, tariffs from today to a month ahead, moves either side. */
const ENERGY = {
  name: "energy",
  system_prompt: "You help energy customers.",
  policy: [],
  tools: [
    mcpTool(
      "meter_reading_submit",
      "Submit a meter reading. Readings cannot be dated in the future or more than 14 days in the past.",
      {
        account_number: { type: "string", pattern: "^ACC\\d{8}$" },
        reading: { type: "integer", minimum: 0 },
        reading_date: { type: "string", format: "date" },
      },
    ),
    mcpTool("switch_tariff", "Switch the account's tariff.", {
      account_number: { type: "string", pattern: "^ACC\\d{8}$" },
      effective_date: {
        type: "string",
        description: "Start date, today or up to 30 days ahead (YYYY-MM-DD).",
      },
    }),
    mcpTool(
      "register_move_out",
      "Register a move out. Needs a move-out date (up to 28 days ahead, or up to 7 days in the past).",
      {
        account_number: { type: "string", pattern: "^ACC\\d{8}$" },
        move_out_date: { type: "string", format: "date" },
        note_date: { type: "string", format: "date" },
      },
    ),
  ],
};

describe("a date a tool bounds around today", () => {
  const agent = Agent.from(ENERGY);
  const model = WorldModel.of(agent);
  const windows = (name: string) => Object.fromEntries(model.tools.get(name)?.dateWindows ?? []);

  it("is read from the tool's description, or the parameter's own, in days either side", () => {
    expect(windows("meter_reading_submit")).toEqual({ reading_date: { past: 14, future: 0 } });
    expect(windows("switch_tariff")).toEqual({ effective_date: { past: 0, future: 30 } });
    // Two dates: the tool's words bound neither, as it does not say which.
    expect(windows("register_move_out")).toEqual({});
    expect(outsideWindow("2026-06-01", { past: 14, future: 0 })).toBeNull();
    expect(outsideWindow("2026-05-31", { past: 14, future: 0 })).toBe(
      "more than 14 days in the past",
    );
    expect(outsideWindow("2026-06-16", { past: 14, future: 0 })).toBe("in the future");
  });

  it("refuses a write dated outside it, and the person names a day inside it", () => {
    for (let seed = 0; seed < 6; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "meter_reading_submit", world: "normal" }),
        seed,
      });
      const goal = goalOf(world, new Rng(seed, "goal")).arguments;
      expect(outsideWindow(goal.reading_date, { past: 14, future: 0 })).toBeNull();
      expect(world.call("meter_reading_submit", goal).ok).toBe(true);
      const old = JSON.parse(
        world.call("meter_reading_submit", { ...goal, reading_date: "2026-04-01" }).content,
      );
      expect(old).toMatchObject({ error: "invalid_date", argument: "reading_date" });
      expect(old.message).toMatch(/more than 14 days in the past/);
    }
  });
});
