import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** A pharmacy's stores, found by zip code: each has an address and a phone of its own. */
const PHARMACY = {
  name: "pharmacy",
  system_prompt: "You help patients with their prescriptions.",
  policy: [],
  tools: [
    mcpTool(
      "find_patient_by_phone",
      "Find a patient by phone.",
      { phone: { type: "string" } },
      ["phone"],
      { patient_id: { type: "string" }, name: { type: "string" } },
    ),
    mcpTool("find_stores", "Find stores near a zip code.", { zip_code: { type: "string" } }, [], {
      stores: {
        type: "array",
        items: {
          type: "object",
          properties: {
            store_id: { type: "string" },
            address: { type: "string" },
            zip_code: { type: "string" },
            phone: { type: "string" },
          },
        },
      },
    }),
  ],
};

describe("a place's records (stores)", () => {
  const agent = Agent.from(PHARMACY);

  it("are a catalog though they have a phone: nobody's, each with its own address and phone", () => {
    expect(WorldModel.of(agent).entities.get("store")?.catalog).toBe(true);
    for (let seed = 0; seed < 4; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "find_stores", world: "normal" }),
        seed,
      });
      const stores = world.snapshot().collections.stores ?? [];
      expect(stores.length).toBeGreaterThan(2);
      for (const store of stores) {
        expect(store).not.toHaveProperty("patient_id");
        // Its address is in the place its zip code says.
        expect(String(store.address).endsWith(` ${store.zip_code}`)).toBe(true);
      }
      expect(new Set(stores.map((s) => s.address)).size).toBe(stores.length);
      expect(new Set(stores.map((s) => s.phone)).size).toBe(stores.length);
    }
  });
});
