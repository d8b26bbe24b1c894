import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { situationOf } from "../../fixtures/situations.ts";

const SPECS = "test/fixtures/specs";

describe("a catalog's records", () => {
  it("at its root are each called by a name no other record of their catalog has, on every corpus spec", async () => {
    // Reproduction: two of a hotel's nine properties were both "Tundra property" by chance, so a
    // person asking about "the Tundra property" picked the wrong one from the agent's list.
    let catalogs = 0;
    for (const file of readdirSync(SPECS).filter((f) => f.endsWith(".json"))) {
      const agent = await Agent.load(`${SPECS}/${file}`);
      const named = [...WorldModel.of(agent).entities.values()].filter(
        // A catalog's children (a flight's seat maps) are found through their parent, not by name.
        (e) => e.catalog && e.parent === null && e.fields.has("name") && e.collection !== undefined,
      );
      for (const entity of named)
        for (let seed = 0; seed < 12; seed++) {
          const world = createWorld({
            spec: agent,
            situation: situationOf(agent, { world: "normal" }, seed),
            seed,
          });
          const names = (world.snapshot().collections[entity.collection] ?? []).map((r) => r.name);
          expect(names.length, `${file} ${entity.name}`).toBeGreaterThan(1);
          expect(new Set(names).size, `${file} ${entity.name} seed ${seed}: ${names}`).toBe(
            names.length,
          );
          catalogs++;
        }
    }
    expect(catalogs).toBeGreaterThan(50);
  });
});
